"""Record what real MXNet 1.9.1 does where running model zoos found the runtime differing.

Run with an interpreter that has `mxnet==1.9.1` (never needed by the tests themselves):
    PYTHON tools/record_zoo_cases.py tests/data/zoo
Writes cases.json (names, shapes, values per case), box_nms.npz (inputs and MXNet's outputs of
`contrib.box_nms` for each attribute combination), and parameter files MXNet wrote:
symbol_block.params (a network with a SymbolBlock child, `save_parameters`) and
param_dict.params (`ParameterDict.save` with a stripped prefix).
"""
import json
import sys
from pathlib import Path

import mxnet as mx
import numpy as np
from mxnet.gluon import nn

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
cases = {}
rng = np.random.RandomState(7)


def array(shape):
    return mx.nd.array(rng.uniform(-1, 1, size=shape).astype("float32"))


# default layer names and their outputs' names
layers = nn.HybridSequential()
with layers.name_scope():
    layers.add(nn.Conv2D(4, 3), nn.Conv1D(2, 1), nn.BatchNorm(), nn.Dense(2), nn.MaxPool2D(), nn.Activation("relu"),
               nn.Conv2DTranspose(2, 1), nn.Conv3D(2, 1), nn.LayerNorm(), nn.Embedding(3, 2), nn.Dropout(0.1))
cases["layer_names"] = {"children": [c.name for c in layers._children.values()],
                        "internals": layers(mx.sym.var("data")).get_internals().list_outputs()}
x = mx.sym.var("x")
cases["output_names"] = {
    "BatchNorm": mx.sym.BatchNorm(x, name="bn").list_outputs(),
    "BatchNorm_mean_var": mx.sym.BatchNorm(x, name="bn", output_mean_var=True).list_outputs(),
    "split": mx.sym.split(x, num_outputs=2, name="sp").list_outputs(),
    "box_nms": mx.sym.contrib.box_nms(x, name="nms").list_outputs(),
}

# ParameterDict.save with a stripped prefix, read back by ParameterDict.load with restore_prefix
dense = nn.Dense(3, in_units=2, prefix="head_")
dense.initialize(mx.init.Xavier())
dense.collect_params().save(str(out / "param_dict.params"), strip_prefix="head_")
cases["param_dict"] = {name: p.data().asnumpy().tolist() for name, p in dense.collect_params().items()}


# children with prefix='' name their operators in their parent's sequence
class Unit(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        return F.relu(x) + 1


class EmptyPrefixNet(nn.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.a = Unit(prefix="")
            self.b = Unit(prefix="")
            self.dense = nn.Dense(2)

    def hybrid_forward(self, F, x):
        return self.dense(self.b(self.a(x)))


net = EmptyPrefixNet(prefix="net_")
cases["empty_prefix"] = {"internals": net(mx.sym.var("data")).get_internals().list_outputs(),
                         "params": list(net.collect_params().keys())}


# a SymbolBlock child (GluonCV's SSD and FPN feature extractors), saved with save_parameters
class WithSymbolBlock(nn.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        base = nn.HybridSequential(prefix="base_")
        with base.name_scope():
            base.add(nn.Dense(5, activation="relu"), nn.BatchNorm(), nn.Dense(4))
        data = mx.sym.var("data")
        internals = base(data).get_internals()
        with self.name_scope():
            self.features = nn.SymbolBlock(internals["base_batchnorm0_fwd_output"], data,
                                           params=base.collect_params())
            self.head = nn.Dense(2)

    def hybrid_forward(self, F, x):
        return self.head(self.features(x))


mx.random.seed(5)
model = WithSymbolBlock(prefix="model_")
model.initialize(mx.init.Xavier())
x_in = array((3, 6))
y_eager = model(x_in)
model.save_parameters(str(out / "symbol_block.params"))
cases["symbol_block"] = {"keys": sorted(mx.nd.load(str(out / "symbol_block.params")).keys()),
                         "features_reg_params": sorted(model.features._reg_params),
                         "input": x_in.asnumpy().tolist(), "output": y_eager.asnumpy().tolist()}


# nested lists and tuples of arrays as input
class Nested(nn.HybridBlock):
    def hybrid_forward(self, F, x, pair):
        first, (second, third) = x
        return first * 2 + second - third * pair[0] + pair[1]


nested_in = [array((2, 3)), (array((2, 3)), array((2, 3)))]
pair_in = (array((2, 3)), array((2, 3)))
nested = Nested()
eager = nested(nested_in, pair_in)
nested.hybridize()
hybrid = nested(nested_in, pair_in)
cases["nested_input"] = {"x": [nested_in[0].asnumpy().tolist(), [a.asnumpy().tolist() for a in nested_in[1]]],
                         "pair": [a.asnumpy().tolist() for a in pair_in],
                         "eager": eager.asnumpy().tolist(), "hybrid": hybrid.asnumpy().tolist()}

# item assignment of a one-element array at an integer position
target = mx.nd.zeros((2, 3, 4))
target[1, 2, 3] = mx.nd.array([5.0])
target[0, 1] = mx.nd.array([7.0])
cases["setitem_one_element"] = target.asnumpy().tolist()


# weight tying through params= inside the parent's name_scope (a BERT-like tied decoder)
class TiedLM(nn.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.embed = nn.Embedding(10, 4)
            self.encoder = nn.Dense(4, flatten=False)
            self.decoder = nn.HybridSequential()
            with self.decoder.name_scope():
                self.decoder.add(nn.Dense(4, flatten=False))
                self.decoder.add(nn.Dense(10, flatten=False, params=self.embed.params))

    def hybrid_forward(self, F, tokens):
        return self.decoder(self.encoder(self.embed(tokens)))


lm = TiedLM(prefix="lm_")
cases["tied"] = {"params": list(lm.collect_params().keys()),
                 "decoder_weight": lm.decoder[1].weight.name,
                 "same_object": lm.decoder[1].weight is lm.embed.weight,
                 "decoder_params": list(lm.decoder[1].params.keys())}

# random samplers with a positional shape
cases["random_shapes"] = {"normal": list(mx.nd.random.normal(0, 1, (2, 3)).shape),
                          "uniform": list(mx.nd.random.uniform(-1, 1, (4,)).shape),
                          "normal_dtype": str(mx.nd.random.normal(0, 1, (2, 3)).dtype.__name__)}

# Parameter._deferred_init before and after the shape is known
param = mx.gluon.Parameter("w", shape=(0, 3), allow_deferred_init=True)
param.initialize()
deferred = param._deferred_init
param.shape = (2, 3)
param._finish_deferred_init()
cases["deferred_init"] = {"length": len(deferred), "ctx": [str(c) for c in deferred[1]],
                          "data": deferred[3] is None, "after": list(param._deferred_init)}

# shape_array / size_array, eager and symbolic
shaped = mx.nd.zeros((2, 3, 5))
v = mx.sym.var("v")
executor = mx.sym.Group([v.shape_array(), v.size_array(), mx.sym.shape_array(v), mx.sym.size_array(v)]).bind(
    mx.cpu(), {"v": shaped})
cases["shape_array"] = {"shape": shaped.shape_array().asnumpy().tolist(), "size": shaped.size_array().asnumpy().tolist(),
                        "dtype": shaped.shape_array().dtype.__name__,
                        "symbolic": [o.asnumpy().tolist() for o in executor.forward()]}

# contrib.box_nms for each attribute that changes its result
boxes = {}
for name, (count, width) in {"small": (40, 6), "classes": (60, 6), "wide": (50, 8)}.items():
    data = rng.uniform(0, 1, size=(2, count, width)).astype("float32")
    corner = data[..., 2:6].copy()
    data[..., 2] = np.minimum(corner[..., 0], corner[..., 2])
    data[..., 4] = np.maximum(corner[..., 0], corner[..., 2]) + 0.05
    data[..., 3] = np.minimum(corner[..., 1], corner[..., 3])
    data[..., 5] = np.maximum(corner[..., 1], corner[..., 3]) + 0.05
    data[..., 0] = rng.randint(0, 3, size=(2, count))
    data[..., 1, ] = np.round(data[..., 1], 2)   # ties between scores
    data[0, :5, 1] = 0.5
    boxes[name] = data
nms_cases = [
    ("small", {}), ("small", {"overlap_thresh": 0.3}), ("small", {"topk": 10}), ("small", {"valid_thresh": 0.4}),
    ("classes", {"id_index": 0}), ("classes", {"id_index": 0, "force_suppress": True}),
    ("classes", {"id_index": 0, "background_id": 0}), ("classes", {"id_index": 0, "background_id": 1, "topk": 20}),
    ("small", {"out_format": "center"}), ("small", {"in_format": "center", "out_format": "corner"}),
    ("small", {"in_format": "center", "out_format": "center", "overlap_thresh": 0.2}),
    ("wide", {"coord_start": 3, "score_index": 2, "id_index": 1}), ("wide", {"coord_start": 4, "score_index": 0}),
    ("classes", {"overlap_thresh": 0.7, "valid_thresh": 0.2, "topk": 15, "id_index": 0, "background_id": 2}),
]
arrays = {}
for i, (name, attrs) in enumerate(nms_cases):
    arrays["input%d" % i] = boxes[name]
    arrays["output%d" % i] = mx.nd.contrib.box_nms(mx.nd.array(boxes[name]), **attrs).asnumpy()
    arrays["output%d_2d" % i] = mx.nd.contrib.box_nms(mx.nd.array(boxes[name][0]), **attrs).asnumpy()
np.savez_compressed(str(out / "box_nms.npz"), **arrays)
cases["box_nms"] = [attrs for _, attrs in nms_cases]

(out / "cases.json").write_text(json.dumps(cases, indent=1, sort_keys=True) + "\n")
print("recorded into", out)
