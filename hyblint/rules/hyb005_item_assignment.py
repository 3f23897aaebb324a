import libcst as cst

from hyblint.analysis.kinds import Kind
from hyblint.rules.base import Invalid, Rule, hybrid_block


class ItemAssignment(Rule):
    code = "HYB005"
    name = "item-assignment"
    message = "A Symbol does not support item assignment: build the new tensor with F.where instead"
    fix_availability = "sometimes"
    docs = """
    ## What it does
    Flags assignments into a tensor: `x[i] = v`, `x[:] = v`, `x[mask] = v`, `x[i] += v`.

    ## Why is this bad?
    A graph has no mutable buffers: hybridized, `TypeError: 'Symbol' object does not support
    item assignment`.

    ## Example
    ```python
    def hybrid_forward(self, F, x):
        x[0] = 2
        return x
    ```

    Use instead:
    ```python
    def hybrid_forward(self, F, x):
        keep = F.concat(F.zeros_like(F.slice_axis(x, axis=0, begin=0, end=1)),
                        F.ones_like(F.slice_axis(x, axis=0, begin=1, end=None)), dim=0)
        x = F.where(keep, x, F.ones_like(x) * 2)
        return x
    ```

    ## Fix safety
    `x[:] = e` becomes `x = e`. It is unsafe: the original wrote into the caller's array (an
    argument of `hybrid_forward`, or another name bound to the same array) and the caller could
    observe that; the rewrite only rebinds the local name. An assignment to one position or slice
    of the first axis becomes an `F.where` with a mask built from slices of `x`, so no shape is
    needed; it is safe when `x` is not observed by the caller, and marked unsafe otherwise, for the
    same reason. MXNet 1.x's own `x[bool_mask] = v` on NDArray does not do what NumPy does: it is
    flagged, never rewritten.
    """
    VALID = [
        hybrid_block("outs = []\nouts.append(x)\nouts[0] = F.relu(x)\nreturn outs[0]"),
        hybrid_block("layers = [x, x]\nfor i in range(2):\n    layers[i] = F.relu(layers[i])\nreturn layers[0]"),
    ]
    INVALID = [
        Invalid(hybrid_block("x[0] = 2\nreturn x")),
        Invalid(hybrid_block("a[:] = a + b\nreturn a", args="a, b")),
        Invalid(hybrid_block("x[x > 0] = 0\nreturn x")),
        Invalid(hybrid_block("y = F.relu(x)\ny[1] += 1\nreturn y")),
    ]

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Subscript) and self.kind(target.target.value) is Kind.TENSOR:
                self.report(target.target, fix=self.rewrite(node, target.target))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Subscript) and self.kind(node.target.value) is Kind.TENSOR:
            self.report(node.target)

    def rewrite(self, node: cst.Assign, target: cst.Subscript):
        from hyblint.fixes.assignment import item_assignment_fix
        return item_assignment_fix(node, target, self)
