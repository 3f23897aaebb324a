import libcst as cst

from hyblint.analysis.kinds import Kind
from hyblint.rules.base import Invalid, Rule, hybrid_block


class ItemAssignment(Rule):
    code = "HYB005"
    name = "item-assignment"
    message = "A Symbol does not support item assignment: build the new tensor with F.where instead"
    fix_availability = "sometimes"
    screen_triggers = ('tensor-subscript',)
    fix_summary = '`x = e` / `F.where` with a shape-free mask'
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
        x = F.where(F.contrib.arange_like(x, axis=0) == 0, F.ones_like(x) * 2, x)
        return x
    ```

    ## Fix safety
    `x[:] = e` becomes `x = e` for a tensor `e` (`x = F.ones_like(x) * v` for a number `v`).
    A number assigned to one position or literal slice of one axis (`x[0] = v`, `x[1:3] = v`,
    `x[:, -1] = v`) becomes `x = F.where(rows, F.ones_like(x) * v, x)`, where `rows` compares
    `F.contrib.arange_like(x, axis=k)` (reversed for negative positions) with the bounds, so no
    shape is read and no empty slice can occur; for an axis other than the first, the `F.where`
    runs between two `F.swapaxes`, since `F.where` selects along the first axis only.
    These fixes are safe when `x` is fresh where it is assigned into: in the same block, `x` was
    last bound to an `F.*` operator's result or to tensor arithmetic (`y = x * 1`,
    `y = F.dot(a, b)`), and since then only read as an operand or an `F.*` argument, so no other
    name, container, attribute or caller holds that array (`y = x * 1; y[:] = F.relu(y)` ->
    `y = F.relu(y)`). Otherwise they are unsafe when `x` is an argument of `hybrid_forward` (the
    original wrote into the caller's array, and the caller could observe that), or when another
    name, a container or an attribute refers to the same array: the rewrite only rebinds the
    local name. A name bound fresh in every branch of an if/else just before is fresh; one bound
    fresh in only one branch, or outside the loop that assigns into it, is not.
    `x[:] = e` is also unsafe unless `e` is arithmetic with `x` itself as an operand, or a
    shape-keeping operator applied to `x` (`F.relu(x)`, `F.clip(x, 0, 1)`): otherwise `e` may
    have had a smaller shape that the assignment broadcast into x's. Otherwise the fixes are
    safe. Tensor values assigned to part of `x`, and assignments with comments inside (the
    rewrite would drop them), have no fix. MXNet 1.x's own
    `x[bool_mask] = v` on NDArray does not do what NumPy does: it is flagged, never rewritten.
    """
    VALID = [
        hybrid_block("outs = []\nouts.append(x)\nouts[0] = F.relu(x)\nreturn outs[0]"),
        hybrid_block("layers = [x, x]\nfor i in range(2):\n    layers[i] = F.relu(layers[i])\nreturn layers[0]"),
    ]
    INVALID = [
        Invalid(hybrid_block("x[0] = 2\nreturn x"), unsafe=True,
                fixed=hybrid_block("x = F.where(F.contrib.arange_like(x, axis=0) == 0, F.ones_like(x) * 2, x)\n"
                                   "return x")),
        Invalid(hybrid_block("a[:] = a + b\nreturn a", args="a, b"), unsafe=True,
                fixed=hybrid_block("a = a + b\nreturn a", args="a, b")),
        Invalid(hybrid_block("y = F.relu(x)\ny[-1] = 0\nreturn y"),
                fixed=hybrid_block("y = F.relu(x)\ny = F.where(F.reverse(F.contrib.arange_like(y, axis=0), "
                                   "axis=0) == 0, F.ones_like(y) * 0, y)\nreturn y")),
        Invalid(hybrid_block("y = F.relu(x)\ny[-2:] = 0\nreturn y"),
                fixed=hybrid_block("y = F.relu(x)\ny = F.where((F.reverse(F.contrib.arange_like(y, axis=0), "
                                   "axis=0) <= 1), F.ones_like(y) * 0, y)\nreturn y")),
        Invalid(hybrid_block("y = F.relu(x)\ny[:2] = 0\nreturn y"),
                fixed=hybrid_block("y = F.relu(x)\ny = F.where((F.contrib.arange_like(y, axis=0) < 2), "
                                   "F.ones_like(y) * 0, y)\nreturn y")),
        Invalid(hybrid_block("y = F.relu(x)\ny[1:3] = -1.5\nreturn y"),
                fixed=hybrid_block("y = F.relu(x)\ny = F.where((F.contrib.arange_like(y, axis=0) >= 1) * "
                                   "(F.contrib.arange_like(y, axis=0) < 3), F.ones_like(y) * -1.5, y)\nreturn y")),
        Invalid(hybrid_block("y = F.relu(x)\ny[:] = 1\nreturn y"),
                fixed=hybrid_block("y = F.relu(x)\ny = F.ones_like(y) * 1\nreturn y")),
        Invalid(hybrid_block("y = F.relu(x)\ny[:] = y * 2\nreturn y"),
                fixed=hybrid_block("y = F.relu(x)\ny = y * 2\nreturn y")),
        Invalid(hybrid_block("y = F.relu(x)\ny[:] = F.sum(x)\nreturn y"), unsafe=True,
                fixed=hybrid_block("y = F.relu(x)\ny = F.sum(x)\nreturn y")),
        Invalid(hybrid_block("y = F.relu(x)\ny[:, 0] = 1\nreturn y"),
                fixed=hybrid_block("y = F.relu(x)\ny = F.swapaxes(F.where(F.contrib.arange_like(y, axis=1) == 0, "
                                   "F.ones_like(F.swapaxes(y, dim1=0, dim2=1)) * 1, F.swapaxes(y, dim1=0, dim2=1)), "
                                   "dim1=0, dim2=1)\nreturn y")),
        Invalid(hybrid_block("y = F.relu(x)\nz = y\ny[:] = x\nreturn z"), unsafe=True,
                fixed=hybrid_block("y = F.relu(x)\nz = y\ny = x\nreturn z")),
        # fresh: an operator's result that no other name holds where it is written into
        Invalid(hybrid_block("y = x * 1\ny[:] = F.relu(y)\nreturn y"),
                fixed=hybrid_block("y = x * 1\ny = F.relu(y)\nreturn y")),
        Invalid(hybrid_block("y = F.relu(x)\ny[0] = 1\nouts = [y]\nreturn outs[0]"),
                fixed=hybrid_block("y = F.relu(x)\ny = F.where(F.contrib.arange_like(y, axis=0) == 0, "
                                   "F.ones_like(y) * 1, y)\nouts = [y]\nreturn outs[0]")),
        Invalid(hybrid_block("if self.flip:\n    y = F.relu(x)\nelse:\n    y = x\ny[:] = F.relu(y)\nreturn y"),
                unsafe=True,
                fixed=hybrid_block("if self.flip:\n    y = F.relu(x)\nelse:\n    y = x\ny = F.relu(y)\nreturn y")),
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
