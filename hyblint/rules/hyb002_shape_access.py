import libcst as cst

from hyblint.analysis.kinds import Kind, may_be_tensor
from hyblint.rules.base import Invalid, Rule, hybrid_block


class ShapeAccess(Rule):
    code = "HYB002"
    name = "shape-access"
    message = "A Symbol has no `.{attr}`: shapes are unknown while hybrid_forward is traced"
    fix_availability = "sometimes"
    docs = """
    ## What it does
    Flags `.shape`, `.size`, `.ndim` and `len(x)` on tensors inside `hybrid_forward`.

    ## Why is this bad?
    Hybridized, `x` is a `Symbol`, which has no shape until the graph is bound:
    `AttributeError: 'Symbol' object has no attribute 'shape'`. `len(x)` counts a Symbol's
    outputs (1), not its rows.

    ## Example
    ```python
    def hybrid_forward(self, F, x):
        return x.reshape((x.shape[0], -1))
    ```

    Use instead:
    ```python
    def hybrid_forward(self, F, x):
        return F.reshape(x, shape=(0, -1))
    ```
    Other idioms: `F.reshape_like(y, x)` for `y.reshape(x.shape)`, `F.zeros_like(x)` for
    `F.zeros(x.shape)`, `F.broadcast_like(y, x)`, `F.contrib.arange_like(x, axis=k)`,
    `F.shape_array(x)` for a shape as a tensor.

    ## Fix safety
    The rewrites of reshape idioms into reshape special codes (`0` copies a dimension, `-1`
    infers one) and of `*_like` idioms are safe. Other uses of a shape have no fix.
    """
    VALID = [
        hybrid_block("return x.reshape((0, -1))"),
        hybrid_block("return F.broadcast_mul(x, self.weight.data())\n# self.weight.shape is a tuple"),
        hybrid_block("n = len(self.blocks)\nreturn x * n"),
        hybrid_block("if not states:\n    return x\nreturn x + len(states)", args="x, states"),
    ]
    INVALID = [
        Invalid(hybrid_block("return x * x.shape[0]")),
        Invalid(hybrid_block("return x.reshape((x.shape[0], -1))")),
        Invalid(hybrid_block("return F.zeros(x.shape)")),
        Invalid(hybrid_block("n = len(x)\nreturn x / n")),
        Invalid(hybrid_block("return x.size")),
    ]

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in ("shape", "size", "ndim") and may_be_tensor(self.kind(node.value)):
            self.report(node, self.message.format(attr=node.attr.value), fix=self.rewrite(node))

    def visit_Call(self, node: cst.Call) -> None:
        if (isinstance(node.func, cst.Name) and node.func.value == "len" and len(node.args) == 1
                and "len" not in self.facts.params and self.kind(node.args[0].value) is Kind.TENSOR):
            self.report(node, "`len()` of a Symbol counts its outputs, not its rows")

    def rewrite(self, node: cst.Attribute):
        from hyblint.fixes.shapes import shape_fix
        return shape_fix(node, self)
