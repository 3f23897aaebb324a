import libcst as cst

from hyblint.analysis.kinds import Kind
from hyblint.diagnostics import Applicability
from hyblint.rules.base import CstFix, Invalid, Rule, hybrid_block

OPERATORS = {cst.Add: "broadcast_add", cst.Subtract: "broadcast_sub", cst.Multiply: "broadcast_mul",
             cst.Divide: "broadcast_div", cst.Modulo: "broadcast_mod", cst.Power: "broadcast_power"}
COMPARISONS = {cst.Equal: "broadcast_equal", cst.NotEqual: "broadcast_not_equal",
               cst.GreaterThan: "broadcast_greater", cst.GreaterThanEqual: "broadcast_greater_equal",
               cst.LessThan: "broadcast_lesser", cst.LessThanEqual: "broadcast_lesser_equal"}


class ImplicitBroadcast(Rule):
    code = "HYB012"
    name = "implicit-broadcast"
    default_selected = False
    message = "NDArray `{op}` broadcasts, Symbol `{op}` does not: use `{F}.{func}` when shapes may differ"
    fix_availability = "always"
    fix_summary = '`F.broadcast_*`'
    docs = """
    ## What it does
    Flags arithmetic (`+ - * / % **`) and comparisons between two tensors inside
    `hybrid_forward`. Not selected by default: most such expressions combine tensors of equal
    shapes. Enable it with `--extend-select HYB012`.

    ## Why is this bad?
    NDArray operators broadcast (shapes `(2, 3)` and `(1, 3)` add fine); Symbol operators are
    elementwise and never broadcast, so the hybridized graph fails to bind with
    `MXNetError: ... Incompatible attr`.

    ## Example
    ```python
    def hybrid_forward(self, F, a, b):
        return a + b
    ```

    Use instead:
    ```python
    def hybrid_forward(self, F, a, b):
        return F.broadcast_add(a, b)
    ```

    ## Fix safety
    Safe: for equal shapes both forms give the same result, and for broadcastable shapes the
    rewrite gives NDArray's result.
    """
    VALID = [
        hybrid_block("return x * 2 + 1"),
        hybrid_block("return F.broadcast_add(a, b)", args="a, b"),
    ]
    INVALID = [
        Invalid(hybrid_block("return a + b", args="a, b"), fixed=hybrid_block("return F.broadcast_add(a, b)", args="a, b")),
        Invalid(hybrid_block("return F.relu(a) * b", args="a, b"),
                fixed=hybrid_block("return F.broadcast_mul(F.relu(a), b)", args="a, b")),
        Invalid(hybrid_block("return a > b", args="a, b"), fixed=hybrid_block("return F.broadcast_greater(a, b)", args="a, b")),
    ]

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        func = OPERATORS.get(type(node.operator))
        if func and self.kind(node.left) is Kind.TENSOR and self.kind(node.right) is Kind.TENSOR:
            self._report(node, node.left, node.right, func, self.code_of(node.operator).strip())

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if len(node.comparisons) != 1:
            return
        target = node.comparisons[0]
        func = COMPARISONS.get(type(target.operator))
        if func and self.kind(node.left) is Kind.TENSOR and self.kind(target.comparator) is Kind.TENSOR:
            self._report(node, node.left, target.comparator, func, self.code_of(target.operator).strip())

    def _report(self, node, left, right, func, op):
        call = cst.Call(func=cst.Attribute(cst.Name(self.F), cst.Name(func)),
                        args=[cst.Arg(_bare(left), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                              cst.Arg(_bare(right))])
        fix = CstFix(((node, call),), "Use `%s.%s`" % (self.F, func), Applicability.SAFE)
        self.report(node, self.message.format(op=op, F=self.F, func=func), fix=fix)


def _bare(expr):
    """An operand without the parentheses it only needed as an operand."""
    if getattr(expr, "lpar", None) and len(expr.lpar) == 1:
        return expr.with_changes(lpar=[], rpar=[])
    return expr
