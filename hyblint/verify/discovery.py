"""What `verify --discover` supplies to build and call a model zoo's blocks without asking.

GluonNLP-style model functions need a vocabulary when no dataset is named (`awd_lstm_lm_1150(
vocab=None)`: only its size matters to the network) and return `(model, vocab)`; their blocks take
token ids, whole numbers, which no first layer declares when the model's first registered child is
an encoder. Each rule below reads what the code itself declares: a keyword's name and default, the
package's own vocabulary class, and the Embedding layers an input flows into in the traced graph.

The worker loads this file by its path, in an interpreter that may have no hyblint (real MXNet's):
it needs only the standard library and the `mx` module it is handed.
"""
from __future__ import annotations

import collections
import inspect
import json
import sys

VOCAB_TOKENS = 20     # the stand-in vocabulary's own tokens (the package's class adds its special ones)
TOKEN_SHAPE = (2, 5)  # token ids: two sequences of five, as for a first-layer Embedding


def vocabulary_keywords(func) -> list:
    """The keywords of a model function that take a vocabulary and default to None (`vocab`,
    `src_vocab`): without one and without a dataset to download it from, the function cannot size
    its embeddings."""
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p.name for p in params if (p.name == "vocab" or p.name.endswith("_vocab")) and p.default is None
            and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def package_vocabulary(module):
    """A small vocabulary made by the class the module's top-level package exports as `Vocab`
    (gluonnlp.Vocab), from a counter of made-up tokens; None when the package has no such class."""
    top = sys.modules.get(module.__name__.split(".", 1)[0])
    cls = getattr(top, "Vocab", None)
    if not isinstance(cls, type):
        return None
    try:
        return cls(collections.Counter("token%d" % i for i in range(VOCAB_TOKENS)))
    except Exception:  # a class of that name that takes something else: no vocabulary to give
        return None


def the_block(made, hybrid_block):
    """The block a model function made: itself, or the first item of the tuple it returned
    (GluonNLP's `net, vocab = bert_12_768_12(...)`); None when it made no block."""
    if isinstance(made, tuple) and made:
        made = made[0]
    return made if isinstance(made, hybrid_block) else None


def token_id_inputs(probe, required: int, mx):
    """[{"shape", "low", "high"}] per required input when every one of them is read by an Embedding
    in the graph `probe` traces symbolically (token ids below the smallest vocabulary that reads
    it), else None. `probe` is an instance of its own: tracing runs hybrid_forward, whose Python
    state must not leak into the instances that are compared."""
    if required < 1:
        return None
    try:
        names = ["discovered_input%d" % i for i in range(required)]
        out = probe(*[mx.sym.var(n) for n in names])
        if isinstance(out, (list, tuple)):
            out = mx.sym.Group(list(_flat_symbols(out)))
        graph = json.loads(out.tojson())
    except Exception:  # a block that cannot be traced without shapes says nothing about its inputs
        return None
    nodes = graph["nodes"]
    index = {node["name"]: i for i, node in enumerate(nodes) if node["op"] == "null"}
    sizes: dict = {}
    for node in nodes:
        if node["op"] != "Embedding" or not node["inputs"]:
            continue
        data = node["inputs"][0][0]  # the ids: Embedding's first input, the weight its second
        try:
            size = int((node.get("attrs") or node.get("param") or {})["input_dim"])
        except (KeyError, ValueError):
            continue
        sizes[data] = min(size, sizes.get(data, size))
    specs = []
    for name in names:
        high = sizes.get(index.get(name))
        if not high:
            return None
        specs.append({"shape": list(TOKEN_SHAPE), "low": 0, "high": high})
    return specs


def _flat_symbols(value):
    for item in value:
        if isinstance(item, (list, tuple)):
            yield from _flat_symbols(item)
        elif item is not None:
            yield item
