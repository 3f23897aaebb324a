import libcst as cst

from hyblint.analysis.kinds import Kind
from hyblint.diagnostics import Applicability
from hyblint.rules.base import CstFix, Invalid, Rule, hybrid_block


class InplaceOperator(Rule):
    code = "HYB006"
    name = "inplace-operator"
    message = "In-place `{op}` is only available on NDArray: write `{target} = {target} {bare} ...`"
    fix_availability = "always"
    screen_triggers = ('tensor-augassign',)
    fix_summary = '`x = x + y`'
    docs = """
    ## What it does
    Flags augmented assignments (`+=`, `-=`, `*=`, `/=`, ...) whose target is a tensor, including a
    Python number that became a tensor in an earlier loop iteration (`acc = 0` then
    `acc += F.sum(x)` in a loop).

    ## Why is this bad?
    Hybridized, `NotImplementedForSymbol: Function __iadd__ (namely operator "+=") ... is not
    implemented for Symbol and only available in NDArray.`

    ## Example
    ```python
    def hybrid_forward(self, F, a, b):
        a += b
        return a
    ```

    Use instead:
    ```python
    def hybrid_forward(self, F, a, b):
        a = a + b
        return a
    ```

    ## Fix safety
    Safe: `x = x + y` computes the same values. Eagerly, the original also wrote into the
    caller's array; no caller of a HybridBlock can rely on that, since the hybridized block never
    does it. Unsafe when another name, a container or a list refers to the same array
    (`y = x` before `x += 1`): the original changed what that name sees, the rewrite does not.
    Safe again when the target is fresh where it is written: in the same block, last bound to an
    `F.*` operator's result or to tensor arithmetic and since then only read as an operand or an
    `F.*` argument (`h = F.dot(a, b); h += c; outs = [h]`: the list takes `h` only after the
    write, so it sees the same values either way). Bound fresh in every branch of an if/else
    just before, it is fresh; in only one branch, or outside the loop that writes into it, not.
    """
    VALID = [
        hybrid_block("n = 0\nfor i in range(3):\n    n += 1\nreturn x * n"),
        hybrid_block("outs = []\nouts += [x]\nreturn outs[0]"),
        hybrid_block("self.count += 1\nreturn x"),
    ]
    INVALID = [
        Invalid(hybrid_block("a += b\nreturn a", args="a, b"),
                fixed=hybrid_block("a = a + b\nreturn a", args="a, b")),
        Invalid(hybrid_block("acc = 0\nfor i in range(3):\n    acc += F.sum(x)\nreturn acc"),
                fixed=hybrid_block("acc = 0\nfor i in range(3):\n    acc = acc + F.sum(x)\nreturn acc")),
        Invalid(hybrid_block("y = F.relu(x)\ny *= 2\nreturn y"),
                fixed=hybrid_block("y = F.relu(x)\ny = y * 2\nreturn y")),
        Invalid(hybrid_block("h = F.dot(a, b)\nh += c\nouts = [h]\nreturn outs[0]", args="a, b, c"),
                fixed=hybrid_block("h = F.dot(a, b)\nh = h + c\nouts = [h]\nreturn outs[0]", args="a, b, c")),
        Invalid(hybrid_block("z = x\nx += 1\nreturn z"), unsafe=True,
                fixed=hybrid_block("z = x\nx = x + 1\nreturn z")),
        Invalid(hybrid_block("y = F.relu(x)\nz = y\ny += 1\nreturn z"), unsafe=True,
                fixed=hybrid_block("y = F.relu(x)\nz = y\ny = y + 1\nreturn z")),
    ]

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if not isinstance(node.target, cst.Name) or self.kind(node.target) is not Kind.TENSOR:
            return
        op = self.code_of(node.operator).strip()
        bare = op[:-1]
        target = node.target.value
        value = node.value
        if isinstance(value, (cst.BinaryOperation, cst.BooleanOperation, cst.Comparison, cst.IfExp,
                              cst.Lambda, cst.UnaryOperation)) and not value.lpar:
            value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        new = cst.Assign(
            targets=[cst.AssignTarget(target=node.target)],
            value=cst.BinaryOperation(left=node.target, operator=_BINARY[bare](), right=value))
        from hyblint.analysis.freshness import is_fresh
        from hyblint.fixes.assignment import aliased
        # `y = x; x += 1` changes y too; `x = x + 1` does not. A fresh tensor has no such alias
        # where the write happens, whatever the rest of the function does with the name.
        hidden = is_fresh(target, node, self.function, self.F, self.is_tensor) or not aliased(target, self)
        applicability = Applicability.SAFE if hidden else Applicability.UNSAFE
        fix = CstFix(((node, new),), "Rewrite as `%s = %s %s ...`" % (target, target, bare), applicability)
        self.report(node, self.message.format(op=op, target=target, bare=bare), fix=fix)


_BINARY = {"+": cst.Add, "-": cst.Subtract, "*": cst.Multiply, "/": cst.Divide, "//": cst.FloorDivide,
           "%": cst.Modulo, "**": cst.Power, "@": cst.MatrixMultiply, "&": cst.BitAnd, "|": cst.BitOr,
           "^": cst.BitXor, "<<": cst.LeftShift, ">>": cst.RightShift}
