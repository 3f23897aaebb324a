import libcst as cst

from hyblint.analysis.vocabulary import IMPERATIVE_PREFIXES
from hyblint.diagnostics import Applicability
from hyblint.fixes.shared_ops import SHARED_OPS
from hyblint.rules.base import CstFix, Invalid, Rule, hybrid_block

_HELPER = "\n\ndef ones():\n    return nd.ones((1,))\n"


class ImperativeNamespace(Rule):
    code = "HYB009"
    name = "imperative-namespace"
    message = "`{call}` is an NDArray-only function: call it through the `{F}` namespace"
    fix_availability = "sometimes"
    screen_triggers = ('imperative-call',)
    fix_summary = '`F.op`'
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
    arguments. Only operators that MXNet 1.9.1 defines in both `mxnet.ndarray` and `mxnet.symbol`
    are rewritten; functions that only exist for NDArrays (`nd.array`, `nd.load`, ...) have no
    fix. An import that only served the rewritten calls (`from mxnet import nd`) is removed when
    nothing else can need it; it is kept when it is used elsewhere in the module (a string
    annotation such as `"nd.NDArray"` included), exported (listed in `__all__`, re-exported as
    `nd as nd`, or any import of a package's `__init__.py`), marked `# noqa` on its line, or
    when the module reaches names by their strings (`globals()`, `vars()`, `eval`, ...).
    """
    VALID = [
        hybrid_block("return F.relu(x)"),
        hybrid_block("if isinstance(x, nd.NDArray):\n    return x\nreturn F.relu(x)"),
        "from mxnet import nd as F\nfrom mxnet.gluon import nn\n\n\nclass Net(nn.HybridBlock):\n"
        "    def hybrid_forward(self, F, x):\n        return F.relu(x)\n",
    ]
    INVALID = [
        # the import that only served the rewritten calls goes too
        Invalid(hybrid_block("return nd.relu(x)"),
                fixed=hybrid_block("return F.relu(x)").replace("from mxnet import nd\n", "")),
        Invalid(hybrid_block("return mx.nd.concat(x, x, dim=1)"),
                fixed=hybrid_block("return F.concat(x, x, dim=1)").replace("import mxnet as mx\n", "")),
        Invalid(hybrid_block("return x + nd.array([1.0])")),
        # `nd` is still used outside hybrid_forward: the import stays
        Invalid(hybrid_block("return nd.relu(x)") + _HELPER,
                fixed=hybrid_block("return F.relu(x)") + _HELPER),
        # `nd` is exported: the import stays
        Invalid(hybrid_block("return nd.relu(x)") + '\n__all__ = ["Net", "nd"]\n',
                fixed=hybrid_block("return F.relu(x)") + '\n__all__ = ["Net", "nd"]\n'),
        Invalid(hybrid_block("return mxnet.ndarray.contrib.box_nms(x)", imports="import mxnet\n"),
                fixed=hybrid_block("return F.contrib.box_nms(x)")),
    ]

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.imports.resolve(node.func, self.facts.params)
        if resolved is None or not resolved.startswith(IMPERATIVE_PREFIXES):
            return
        op = resolved.split(".", 2)[2]
        fix = None
        if op in SHARED_OPS:
            new_func = _attribute_chain(self.F, op)
            fix = CstFix(((node.func, new_func),), "Call `%s.%s` instead" % (self.F, op), Applicability.SAFE)
        self.report(node, self.message.format(call=self.code_of(node.func), F=self.F), fix=fix)


def _attribute_chain(head: str, dotted_rest: str) -> cst.BaseExpression:
    node: cst.BaseExpression = cst.Name(head)
    for part in dotted_rest.split("."):
        node = cst.Attribute(value=node, attr=cst.Name(part))
    return node
