import libcst as cst

from hyblint.diagnostics import Applicability
from hyblint.rules.base import CstFix, Invalid, Rule, hybrid_block

PREFIXES = ("mxnet.ndarray.", "mxnet.nd.")
# Functions of mxnet.ndarray that make or move NDArrays and have no symbol twin.
IMPERATIVE_ONLY = {"array", "empty", "load", "save", "waitall", "from_numpy", "from_dlpack", "NDArray",
                   "moveaxis", "concatenate", "imdecode", "onehot_encode"}


class ImperativeNamespace(Rule):
    code = "HYB009"
    name = "imperative-namespace"
    message = "`{call}` is an NDArray-only function: call it through the `{F}` namespace"
    fix_availability = "sometimes"
    docs = """
    ## What it does
    Flags calls through the imperative namespace inside `hybrid_forward`: `nd.relu(x)`,
    `mx.nd.concat(...)`, `mxnet.ndarray.op(...)`.

    ## Why is this bad?
    Hybridized, the inputs are Symbols and the NDArray function rejects them (an `AssertionError`
    deep inside the operator call). `F` is the namespace that matches the inputs in both modes.

    ## Example
    ```python
    def hybrid_forward(self, F, x):
        return nd.relu(x)
    ```

    Use instead:
    ```python
    def hybrid_forward(self, F, x):
        return F.relu(x)
    ```

    ## Fix safety
    Safe for operators that exist in both namespaces: the same operator runs with the same
    arguments. Functions that only exist for NDArrays (`nd.array`, `nd.load`, ...) have no fix.
    """
    VALID = [
        hybrid_block("return F.relu(x)"),
        hybrid_block("if isinstance(x, nd.NDArray):\n    return x\nreturn F.relu(x)"),
        "from mxnet import nd as F\nfrom mxnet.gluon import nn\n\n\nclass Net(nn.HybridBlock):\n"
        "    def hybrid_forward(self, F, x):\n        return F.relu(x)\n",
    ]
    INVALID = [
        Invalid(hybrid_block("return nd.relu(x)"), fixed=hybrid_block("return F.relu(x)")),
        Invalid(hybrid_block("return mx.nd.concat(x, x, dim=1)"), fixed=hybrid_block("return F.concat(x, x, dim=1)")),
        Invalid(hybrid_block("return x + nd.array([1.0])")),
    ]

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.imports.resolve(node.func, self.facts.params)
        if resolved is None or not resolved.startswith(PREFIXES):
            return
        op = resolved.split(".", 2)[2]
        fix = None
        if op.split(".")[-1] not in IMPERATIVE_ONLY and not op.startswith(("random.", "sparse.", "image.")):
            new_func = _attribute_chain(self.F, op)
            fix = CstFix(((node.func, new_func),), "Call `%s.%s` instead" % (self.F, op), Applicability.SAFE)
        self.report(node, self.message.format(call=self.code_of(node.func), F=self.F), fix=fix)


def _attribute_chain(head: str, dotted_rest: str) -> cst.BaseExpression:
    node: cst.BaseExpression = cst.Name(head)
    for part in dotted_rest.split("."):
        node = cst.Attribute(value=node, attr=cst.Name(part))
    return node
