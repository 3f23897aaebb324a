"""`hyblint verify --discover` builds blocks with a module's model functions, as model zoos define
them (`resnet18(pretrained=False, **kwargs)`), and finds their inputs from their first layer."""
import json
import subprocess
import sys
import textwrap

ZOO = textwrap.dedent("""\
    from mxnet.gluon import nn

    CALLS = []


    class Tiny(nn.HybridBlock):
        def __init__(self, classes=10, **kwargs):
            super().__init__(**kwargs)
            self.features = nn.HybridSequential()
            self.features.add(nn.Conv2D(4, 3), nn.GlobalAvgPool2D(), nn.Flatten())
            self.output = nn.Dense(classes)

        def hybrid_forward(self, F, x):
            return self.output(self.features(x))


    def tiny(pretrained=False, **kwargs):
        if pretrained:
            raise RuntimeError("this test has no weights to download")
        return Tiny(**kwargs)


    def words(vocab=50, pretrained=True):
        if pretrained:
            raise RuntimeError("this test has no weights to download")
        net = nn.HybridSequential()
        net.add(nn.Embedding(vocab, 8), nn.Dense(2, flatten=False))
        return net


    class Detector(nn.HybridBlock):
        def __init__(self, classes=2, **kwargs):
            super().__init__(**kwargs)
            # registered before the network, as a detector's target generators are: no parameters
            self.targets = nn.HybridLambda(lambda F, boxes: boxes.slice_axis(axis=-1, begin=0, end=4))
            self.features = nn.HybridSequential()
            self.features.add(nn.Conv2D(4, 3), nn.GlobalAvgPool2D())
            self.output = nn.Dense(classes)

        def hybrid_forward(self, F, x):
            return self.output(self.features(x))


    def detector(pretrained=False, pretrained_base=True, classes=2):
        if pretrained or pretrained_base:
            raise RuntimeError("this test has no backbone weights to download")
        return Detector(classes)


    def helper(n=3):
        return n * 2


    def cleanup(**kwargs):
        raise RuntimeError("a function that takes no `pretrained` outside a models module is never called")


    def needs(units):
        return nn.Dense(units)
    """)


def verify(*argv, cwd):
    return subprocess.run([sys.executable, "-m", "hyblint", "verify", *map(str, argv)], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def test_discover_calls_model_functions_with_pretrained_false(tmp_path):
    (tmp_path / "zoo.py").write_text(ZOO)
    done = verify("zoo.py", "--discover", "--format", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    results = {r["block"]: r for r in json.loads(done.stdout)}
    # functions that return no block, need arguments, or do not look like a zoo's are no candidates
    assert set(results) == {"Tiny", "Detector", "tiny(pretrained=False)", "words(pretrained=False)",
                            "detector(pretrained=False, pretrained_base=False)"}
    detector = results["detector(pretrained=False, pretrained_base=False)"]
    assert detector["status"] == "agrees"  # an RGB image, from the first layer with parameters
    assert detector["inputs"][0] == "(2, 3, 32, 32)"
    for result in results.values():
        assert result["status"] == "agrees", result
    # the image network's channels were deferred: an RGB image, and its odd size, were tried
    assert results["tiny(pretrained=False)"]["inputs"] == ["(2, 3, 32, 32)", "(1, 3, 32, 32)", "(3, 3, 32, 32)",
                                                           "(2, 3, 33, 33)"]
    assert results["words(pretrained=False)"]["inputs"][0] == "(2, 5)"


def test_without_discover_model_functions_are_left_alone(tmp_path):
    (tmp_path / "zoo.py").write_text(ZOO)
    done = verify("zoo.py", "--format", "json", cwd=tmp_path)
    results = {r["block"]: r for r in json.loads(done.stdout)}
    assert set(results) == {"Tiny", "Detector"}
    assert results["Tiny"]["status"] == results["Detector"]["status"] == "no-inputs"  # no image guessed


STEMS = textwrap.dedent("""\
    from mxnet.gluon import nn


    def wide_head(pretrained=False):
        # declares RGB input, and needs more than a small image: its pooling window is 40 wide
        net = nn.HybridSequential()
        net.add(nn.Conv2D(4, 3, in_channels=3), nn.AvgPool2D(pool_size=40), nn.Flatten(), nn.Dense(2))
        return net


    def normalized_stem(pretrained=False):
        # ResNet v2: the raw image is normalized before the first convolution
        net = nn.HybridSequential()
        net.add(nn.BatchNorm(scale=False, center=False), nn.Conv2D(4, 3), nn.GlobalAvgPool2D(), nn.Flatten())
        return net
    """)


def test_discover_takes_image_networks_from_their_stem(tmp_path):
    (tmp_path / "stems.py").write_text(STEMS)
    done = verify("stems.py", "--discover", "--format", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    results = {r["block"]: r for r in json.loads(done.stdout)}
    assert results["wide_head(pretrained=False)"]["status"] == "agrees", results
    assert results["wide_head(pretrained=False)"]["inputs"][0] == "(2, 3, 224, 224)"
    assert results["normalized_stem(pretrained=False)"]["status"] == "agrees", results
    assert results["normalized_stem(pretrained=False)"]["inputs"][0] == "(2, 3, 32, 32)"


# A package laid out as GluonNLP is: its top level exports a vocabulary class, its model functions
# need a vocabulary when no dataset is named and return (model, vocab), and the model's first
# registered child is an encoder, so no first layer tells that both inputs are token ids.
TEXT_PACKAGE = textwrap.dedent("""\
    class Vocab:
        def __init__(self, counter):
            self.tokens = ["<unk>"] + sorted(counter)

        def __len__(self):
            return len(self.tokens)
    """)
TEXT_MODELS = textwrap.dedent("""\
    from mxnet.gluon import nn


    class Encoder(nn.HybridBlock):
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)
            self.norm = nn.LayerNorm(in_channels=units)

        def hybrid_forward(self, F, x):
            return self.norm(x)


    class Model(nn.HybridBlock):
        def __init__(self, vocab_size, units=8, **kwargs):
            super().__init__(**kwargs)
            self.encoder = Encoder(units)
            self.word_embed = nn.Embedding(vocab_size, units)
            self.type_embed = nn.Embedding(2, units)

        def hybrid_forward(self, F, inputs, token_types, valid_length=None):
            return self.encoder(self.word_embed(inputs) + self.type_embed(token_types))


    class Mixed(nn.HybridBlock):
        # its second input is features, read by a Dense of deferred size: nothing to infer it from
        def __init__(self, vocab_size, **kwargs):
            super().__init__(**kwargs)
            self.encoder = Encoder(4)
            self.embed = nn.Embedding(vocab_size, 4)
            self.proj = nn.Dense(4, flatten=False)

        def hybrid_forward(self, F, inputs, features):
            return self.encoder(self.embed(inputs) + self.proj(features))


    def model_12(dataset_name=None, vocab=None, pretrained=True):
        if pretrained:
            raise RuntimeError("this test has no weights to download")
        assert vocab is not None, "Must specify vocab if not loading from predefined datasets."
        return Model(len(vocab)), vocab


    def mixed_4(vocab=None, pretrained=True):
        if pretrained:
            raise RuntimeError("this test has no weights to download")
        return Mixed(len(vocab)), vocab
    """)


def test_discover_gives_a_vocabulary_and_finds_token_id_inputs(tmp_path):
    (tmp_path / "textzoo").mkdir()
    (tmp_path / "textzoo" / "__init__.py").write_text(TEXT_PACKAGE)
    (tmp_path / "textzoo" / "models.py").write_text(TEXT_MODELS)
    done = verify("textzoo/models.py", "--discover", "--format", "json", cwd=tmp_path)
    results = {r["block"]: r for r in json.loads(done.stdout)}
    model = results["model_12(pretrained=False, vocab=<20-token Vocab>)"]
    # the package's Vocab of 20 tokens and its own <unk>: 21 words; token types below 2
    assert model["status"] == "agrees", model
    assert model["inputs"][:2] == ["(2, 5), (2, 5)", "(1, 5), (1, 5)"]
    # the class itself needs its vocabulary size: not built, as before
    assert results["Model"]["status"] == "not-built"
    mixed = results["mixed_4(pretrained=False, vocab=<20-token Vocab>)"]
    assert mixed["status"] == "no-inputs", mixed


def test_token_ids_stay_below_each_embedding_that_reads_them():
    import runtime
    from hyblint.verify import discovery
    with runtime.as_mxnet():
        import mxnet as mx
        from mxnet.gluon import nn

        class Shared(nn.HybridBlock):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                self.big = nn.Embedding(30, 4)
                self.small = nn.Embedding(7, 4)

            def hybrid_forward(self, F, ids):
                return self.big(ids) + self.small(ids)

        assert discovery.token_id_inputs(Shared(), 1, mx) == [{"shape": [2, 5], "low": 0, "high": 7}]
        assert discovery.token_id_inputs(nn.Dense(3), 1, mx) is None


SEQUENCES = textwrap.dedent("""\
    from mxnet.gluon import nn


    class Encoder(nn.HybridBlock):
        # a Transformer's encoder: positions are added along axis 1, then the steps are normalized
        def __init__(self, units=6, **kwargs):
            super().__init__(**kwargs)
            self.norm = nn.LayerNorm(in_channels=units)
            self.cell = nn.Dense(units, flatten=False)

        def hybrid_forward(self, F, inputs):
            steps = F.arange(5).reshape((1, 5, 1))
            return self.cell(self.norm(F.broadcast_add(inputs, steps)))


    def encoder(pretrained=False):
        return Encoder()


    def projection(pretrained=False):
        net = nn.HybridSequential()
        net.add(nn.Dense(3, flatten=False, in_units=4), nn.Dense(2, flatten=False))
        return net
    """)


def test_discover_gives_sequence_models_steps_of_features(tmp_path):
    (tmp_path / "seqs.py").write_text(SEQUENCES)
    done = verify("seqs.py", "--discover", "--format", "json", cwd=tmp_path)
    results = {r["block"]: r for r in json.loads(done.stdout)}
    assert results["encoder(pretrained=False)"]["status"] == "agrees", results
    assert results["encoder(pretrained=False)"]["inputs"][0] == "(2, 5, 6)"
    assert results["projection(pretrained=False)"]["status"] == "agrees", results
    assert results["projection(pretrained=False)"]["inputs"][0] == "(2, 5, 4)"
    # without --discover nothing is guessed for the LayerNorm
    done = verify("seqs.py", "--format", "json", cwd=tmp_path)
    assert {r["block"]: r["status"] for r in json.loads(done.stdout)}["Encoder"] == "no-inputs"


FREE = textwrap.dedent("""\
    from mxnet.gluon import nn


    class Scores(nn.HybridBlock):
        # an attention score: no parameters, so no layer says how large its inputs are
        def hybrid_forward(self, F, query, key):
            return F.softmax(F.batch_dot(query, key, transpose_b=True))


    class Pool(nn.HybridBlock):
        # images only: the guess does not run, and the block is listed, not run on something else
        def hybrid_forward(self, F, x):
            return F.Pooling(x, kernel=(2, 2), pool_type="max")
    """)


def test_discover_tries_a_block_without_parameters_on_guessed_inputs(tmp_path):
    (tmp_path / "free.py").write_text(FREE)
    done = verify("free.py", "--discover", "--format", "json", cwd=tmp_path)
    results = {r["block"]: r for r in json.loads(done.stdout)}
    assert results["Scores"]["status"] == "agrees", results
    assert results["Scores"]["inputs"][0] == "(2, 5, 8), (2, 5, 8)"
    assert results["Pool"]["status"] == "no-inputs", results
    assert "guessed" in results["Pool"]["detail"]
    # without --discover nothing is guessed for a block without parameters
    done = verify("free.py", "--format", "json", cwd=tmp_path)
    assert {r["block"]: r["status"] for r in json.loads(done.stdout)}["Scores"] == "no-inputs"
    assert {r["block"]: r["status"] for r in json.loads(done.stdout)} == {"Scores": "no-inputs", "Pool": "no-inputs"}


# GluonCV's detectors take one image at a time (Faster R-CNN sizes its proposals for one) or need
# more than 224 pixels (SSD 512's extra layers); parts of its models download a backbone from
# their constructor (`DeconvResnet(pretrained_base=True)`) or from a `get_` factory.
DETECTORS = textwrap.dedent("""\
    from mxnet.gluon import nn


    class OneImage(nn.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.conv = nn.Conv2D(4, 3)

        def hybrid_forward(self, F, x):
            y = self.conv(x)
            # as a detector whose proposals are sized for one image: batch 2 does not run
            return F.elemwise_add(y, F.ones_like(F.slice_axis(y, axis=0, begin=0, end=1)))


    def one_image(pretrained=False):
        return OneImage()


    def large_input(pretrained=False):
        net = nn.HybridSequential()
        net.add(nn.Conv2D(4, 3, strides=4), nn.AvgPool2D(pool_size=64), nn.Flatten())
        return net


    class Backboned(nn.HybridBlock):
        def __init__(self, pretrained_base=True, dataset="voc", **kwargs):
            super().__init__(**kwargs)
            if pretrained_base:
                raise RuntimeError("this test has no backbone weights to download")
            self.conv = nn.Conv2D(4, 3)

        def hybrid_forward(self, F, x):
            return self.conv(x)


    def get_backboned(pretrained_base=True, pretrained_model="voc"):
        return Backboned(pretrained_base=pretrained_base)
    """)


def test_discover_tries_one_image_and_larger_images(tmp_path):
    (tmp_path / "detectors.py").write_text(DETECTORS)
    done = verify("detectors.py", "--discover", "--format", "json", cwd=tmp_path)
    results = {r["block"]: r for r in json.loads(done.stdout)}
    one = results["one_image(pretrained=False)"]
    assert one["status"] == "agrees", one
    assert one["inputs"][0] == "(1, 3, 224, 224)"
    large = results["large_input(pretrained=False)"]
    assert large["status"] == "agrees", large
    assert large["inputs"][0] == "(2, 3, 512, 512)"


def test_discover_switches_off_downloads_of_classes_and_factories(tmp_path):
    (tmp_path / "detectors.py").write_text(DETECTORS)
    done = verify("detectors.py", "--discover", "--format", "json", cwd=tmp_path)
    results = {r["block"]: r for r in json.loads(done.stdout)}
    # a keyword whose default names something (a dataset) is no download switch: left as it is
    for name in ("Backboned(pretrained_base=False)", "get_backboned(pretrained_base=False)"):
        assert results[name]["status"] == "agrees", results
        assert results[name]["inputs"][0] == "(2, 3, 32, 32)"
    # without --discover, a class is built as it is declared
    done = verify("detectors.py", "--format", "json", cwd=tmp_path)
    results = {r["block"]: r for r in json.loads(done.stdout)}
    assert results["Backboned"]["status"] == "not-built"
    assert "no backbone weights" in results["Backboned"]["detail"]


def test_a_diagnostic_of_a_class_built_with_its_downloads_off_stays_with_it(tmp_path):
    """A block named with its call (`Backboned(pretrained_base=False)`) still holds the diagnostics of
    its class that no run reached (GluonCV's smot SSD: its HYB013 vanished from the JSON)."""
    plain = "    def hybrid_forward(self, F, x):\n        return self.conv(x)\n"
    assert plain in DETECTORS
    source = DETECTORS.replace(plain, "    def hybrid_forward(self, F, x):\n        if autograd.is_training():\n"
                                      "            return x\n        return self.conv(x)\n", 1)
    source = "from mxnet import autograd\n" + source
    (tmp_path / "detectors.py").write_text(source)
    (tmp_path / "needs.py").write_text(source.replace("pretrained_base=True, dataset=\"voc\", **kwargs",
                                                      "units, pretrained_base=True, **kwargs"))
    done = verify("needs.py", "--discover", "--format", "json", cwd=tmp_path)
    results = {r["block"]: r for r in json.loads(done.stdout)}
    held = results["Backboned(pretrained_base=False)"]
    assert held["status"] == "not-built", held
    assert [d["code"] for d in held["diagnostics"]] == ["HYB013"], held
