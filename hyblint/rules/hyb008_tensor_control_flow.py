import libcst as cst

from hyblint.analysis.kinds import Kind
from hyblint.diagnostics import Applicability
from hyblint.fixes._code import fix_or_none
from hyblint.rules.base import CstFix, Invalid, Rule, hybrid_block


class TensorControlFlow(Rule):
    code = "HYB008"
    name = "tensor-control-flow"
    message = "Python `{what}` decides on a tensor's value, which a traced Symbol does not have: use F.where"
    fix_availability = "sometimes"
    screen_triggers = ('tensor-test',)
    fix_summary = '`F.where` (unsafe)'
    docs = """
    ## What it does
    Flags Python control flow that decides on a tensor value: `if`, `while`, `assert`, a
    conditional expression, `and`, `or` and `not` whose operand is a tensor.

    ## Why is this bad?
    Deciding needs `bool(x)`, so it needs the value. Hybridized, `NotImplementedForSymbol`: the
    graph is traced once and cannot take a different Python path per input.

    ## Example
    ```python
    def hybrid_forward(self, F, x):
        if x.sum() > 0:
            y = x
        else:
            y = -x
        return y
    ```

    Use instead:
    ```python
    def hybrid_forward(self, F, x):
        y = F.where(F.broadcast_greater(F.sum(x), F.zeros((1,))) * F.ones_like(x), x, -x)
        return y
    ```
    or `F.contrib.cond` when the branches are expensive.

    ## Fix safety
    A conditional expression `a if cond else b`, and an `if`/`else` whose two branches each
    assign one name, with pure expressions (`F.*` calls, tensor methods, arithmetic; no child
    block calls) become `F.where(F.broadcast_mul(cond, F.ones_like(a)), a, b)`, the condition broadcast to the
    branches' shape. The fix is unsafe: both branches are then evaluated (a branch that would
    have raised or produced NaN/inf for this input now runs too), and branches of different
    shapes make `F.where` fail. Other control flow has no fix.
    """
    VALID = [
        hybrid_block("if mask is not None:\n    x = F.broadcast_mul(x, mask)\nreturn x", args="x, mask=None"),
        hybrid_block("if self._flag and len(states) > 0:\n    return x\nreturn x + 1", args="x, states"),
        hybrid_block("if F is mx.nd:\n    if x.sum() > 0:\n        return x\nreturn x"),
    ]
    INVALID = [
        Invalid(hybrid_block("if x.sum() > 0:\n    return x\nreturn -x")),
        Invalid(hybrid_block("if x.sum() > 0:\n    y = x * 2\nelse:\n    y = -x\nreturn y"), unsafe=True,
                fixed=hybrid_block("y = F.where(F.broadcast_mul(x.sum() > 0, F.ones_like(x * 2)), x * 2, -x)\n"
                                   "return y")),
        Invalid(hybrid_block("if F.max(x) > 1:\n    y = x\nelse:\n    y = 0\nreturn y"), unsafe=True,
                fixed=hybrid_block("y = F.where(F.broadcast_mul(F.max(x) > 1, F.ones_like(x)), x, F.ones_like(x) * 0)\n"
                                   "return y")),
        Invalid(hybrid_block("if x.sum() > 0:\n    y = self.dense(x)\nelse:\n    y = x\nreturn y")),
        Invalid(hybrid_block("while F.max(x) > 1:\n    x = x / 2\nreturn x")),
        Invalid(hybrid_block("assert F.min(x) >= 0\nreturn x")),
        Invalid(hybrid_block("return x if F.sum(x) > 0 else -x"), unsafe=True,
                fixed=hybrid_block("return F.where(F.broadcast_mul(F.sum(x) > 0, F.ones_like(x)), x, -x)")),
        Invalid(hybrid_block("return not x")),
        Invalid(hybrid_block("return x and F.relu(x)")),
    ]

    def visit_If(self, node: cst.If) -> None:
        self._decides(node.test, "if", lambda: self._where_fix(node))

    @fix_or_none
    def _where_fix(self, node: cst.If):
        from hyblint.fixes.assign import rewrite_if_to_where
        from hyblint.fixes.assignment import _is_number
        from hyblint.fixes._code import indented_like
        with indented_like(self.module, node):
            new = rewrite_if_to_where(node, self.F, is_tensor=self.is_tensor,
                                      is_scalar=lambda e: _is_number(e, self))
        if new is None:
            return None
        # the If's span stops before its last newline
        text = self.code_of(new).rstrip("\r\n")
        return CstFix(((node, text),), "Compute both branches and select with %s.where" % self.F,
                      Applicability.UNSAFE)

    def visit_While(self, node: cst.While) -> None:
        self._decides(node.test, "while")

    def visit_Assert(self, node: cst.Assert) -> None:
        self._decides(node.test, "assert")

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._decides(node.test, "... if ... else ...", lambda: self._ifexp_fix(node))

    @fix_or_none
    def _ifexp_fix(self, node: cst.IfExp):
        from hyblint.fixes._code import indented_like, render
        from hyblint.fixes.assign import rewrite_ifexp_to_where
        from hyblint.fixes.assignment import _is_number
        with indented_like(self.module, node):
            new = rewrite_ifexp_to_where(node, self.F, is_tensor=self.is_tensor,
                                         is_scalar=lambda e: _is_number(e, self))
        if new is None:
            return None
        return CstFix(((node, render(new, module=self.module)),), "Compute both branches and select with %s.where" % self.F,
                      Applicability.UNSAFE)

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if isinstance(node.operator, cst.Not) and self.kind(node.expression) is Kind.TENSOR:
            self.report(node, self.message.format(what="not"))

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        word = "and" if isinstance(node.operator, cst.And) else "or"
        if self.kind(node.left) is Kind.TENSOR:
            self.report(node, self.message.format(what=word))

    def _decides(self, test: cst.BaseExpression, what: str, build_fix=None) -> None:
        # `not x` and `x and y` are reported where the conversion happens, once.
        if isinstance(test, (cst.UnaryOperation, cst.BooleanOperation)):
            return
        if self.kind(test) is Kind.TENSOR:
            # a fix is built only for a test that is reported: most tests are Python values
            self.report(test, self.message.format(what=what), fix=build_fix() if build_fix else None)
