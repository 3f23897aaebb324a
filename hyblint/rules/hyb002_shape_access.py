import libcst as cst

from hyblint.analysis.kinds import Kind, may_be_tensor
from hyblint.analysis.vocabulary import SHAPE_ATTRIBUTES
from hyblint.rules.base import Invalid, Rule, hybrid_block


class ShapeAccess(Rule):
    code = "HYB002"
    name = "shape-access"
    message = "A Symbol has no `.{attr}`: shapes are unknown while hybrid_forward is traced"
    fix_availability = "sometimes"
    screen_triggers = ('tensor-attribute', 'tensor-call')
    fix_summary = 'reshape special codes, `*_like` operators (known idioms)'
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
    Safe: reshapes whose shape reads the reshaped tensor's own dimensions become special codes
    (`0` copies a dimension, `-3` merges two, `-2` copies the rest: `x.shape[:2] + (-1,)`,
    `(-1,) + x.shape[2:]`; `reverse=True` for dimensions counted from the end), also through `b, c, h, w = x.shape` when every use of those names is such a reshape
    (the unpacking is then removed); `y.reshape(x.shape)` becomes `F.reshape_like(y, x)` and
    `F.broadcast_to(y, x.shape)` (or `y.broadcast_to(x.shape)`) becomes `F.broadcast_like(y, x)`.
    Unsafe: `F.zeros(x.shape)`, `F.ones(x.shape)`, `F.full(x.shape, v)` and
    `F.arange(x.shape[k])` become `F.zeros_like(x)`, `F.ones_like(x)`, `F.ones_like(x) * v` and
    `F.contrib.arange_like(x, axis=k)`, which take x's dtype where the originals made float32:
    the same values, but a float16 model gets float16.
    Other uses of a shape (a dimension as a number) have no fix.
    """
    VALID = [
        hybrid_block("return x.reshape((0, -1))"),
        hybrid_block("return F.broadcast_mul(x, self.weight.data())\n# self.weight.shape is a tuple"),
        hybrid_block("n = len(self.blocks)\nreturn x * n"),
        hybrid_block("if not states:\n    return x\nreturn x + len(states)", args="x, states"),
    ]
    INVALID = [
        Invalid(hybrid_block("return x * x.shape[0]")),
        Invalid(hybrid_block("return x.reshape((x.shape[0], -1))"),
                fixed=hybrid_block("return F.reshape(x, shape=(0, -1))")),
        Invalid(hybrid_block("return x.reshape((x.shape[0], x.shape[1], -1))"), expected=2,
                fixed=hybrid_block("return F.reshape(x, shape=(0, 0, -1))")),
        Invalid(hybrid_block("return x.reshape((-1, x.shape[-1]))"),
                fixed=hybrid_block("return F.reshape(x, shape=(-1, 0), reverse=True)")),
        Invalid(hybrid_block("return F.reshape(x, (x.shape[0] * x.shape[1], -1))"), expected=2,
                fixed=hybrid_block("return F.reshape(x, shape=(-3, -1))")),
        Invalid(hybrid_block("return x.reshape((-1,) + x.shape[2:])"),
                fixed=hybrid_block("return F.reshape(x, shape=(-3, -2))")),
        Invalid(hybrid_block("return x.reshape(x.shape[:2] + (-1,))"),
                fixed=hybrid_block("return F.reshape(x, shape=(0, 0, -1))")),
        Invalid(hybrid_block("y = F.relu(x)\nreturn y.reshape(x.shape)"),
                fixed=hybrid_block("y = F.relu(x)\nreturn F.reshape_like(y, x)")),
        Invalid(hybrid_block("return F.broadcast_to(F.sum(x), x.shape)"),
                fixed=hybrid_block("return F.broadcast_like(F.sum(x), x)")),
        Invalid(hybrid_block("y = F.sum(x, axis=1, keepdims=True)\nreturn y.broadcast_to(x.shape)"),
                fixed=hybrid_block("y = F.sum(x, axis=1, keepdims=True)\nreturn F.broadcast_like(y, x)")),
        Invalid(hybrid_block("b, c, h, w = x.shape\nreturn x.reshape((b, c, h * w))"),
                fixed=hybrid_block("return F.reshape(x, shape=(0, 0, -3))")),
        Invalid(hybrid_block("b, c, h, w = x.shape\nreturn x.reshape((b, -1)) * h")),
        Invalid(hybrid_block("return F.zeros(x.shape)"), unsafe=True,
                fixed=hybrid_block("return F.zeros_like(x)")),
        Invalid(hybrid_block("return F.full(x.shape, 0.5)"), unsafe=True,
                fixed=hybrid_block("return F.ones_like(x) * 0.5")),
        Invalid(hybrid_block("return F.arange(x.shape[1])"), unsafe=True,
                fixed=hybrid_block("return F.contrib.arange_like(x, axis=1)")),
        Invalid(hybrid_block("n = len(x)\nreturn x / n")),
        Invalid(hybrid_block("return x.size")),
    ]

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in SHAPE_ATTRIBUTES and may_be_tensor(self.kind(node.value)):
            self.report(node, self.message.format(attr=node.attr.value), fix=self.rewrite(node))

    def visit_Call(self, node: cst.Call) -> None:
        if (isinstance(node.func, cst.Name) and node.func.value == "len" and len(node.args) == 1
                and "len" not in self.facts.params and self.kind(node.args[0].value) is Kind.TENSOR):
            self.report(node, "`len()` of a Symbol counts its outputs, not its rows")

    def rewrite(self, node: cst.Attribute):
        from hyblint.fixes.shapes import shape_fix
        return shape_fix(node, self)
