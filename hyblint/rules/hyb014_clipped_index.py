import libcst as cst

from hyblint.analysis.vocabulary import INDEX_ARGUMENT
from hyblint.diagnostics import Applicability
from hyblint.rules.base import CstFix, Invalid, Rule, hybrid_block


class ClippedIndex(Rule):
    code = "HYB014"
    name = "clipped-index"
    message = "`{op}` clips indices by default (mode='clip'): the negative index {value} silently means 0"
    fix_availability = "always"
    screen_triggers = ('negative-index',)
    fix_summary = "`mode='wrap'` (unsafe)"
    docs = """
    ## What it does
    Flags `F.take` / `F.pick` given a negative literal index (directly, or through
    `F.full`/`F.array`/`F.ones_like(...) * k`) without a `mode`.

    ## Why is this bad?
    Python's `x[-1]` is the last row, but `F.take` and `F.pick` default to `mode='clip'`, which maps
    every negative index to 0: the first row comes back, without an error.

    ## Example
    ```python
    def hybrid_forward(self, F, x):
        return F.take(x, F.full((1,), -1))
    ```

    Use instead:
    ```python
    def hybrid_forward(self, F, x):
        return F.take(x, F.full((1,), -1), mode='wrap')
    ```

    ## Fix safety
    Unsafe: the fix changes results by design. `mode='wrap'` differs from `clip` only for
    indices outside `[0, n)`, and there it returns other values: Python's meaning for
    `-n <= i < 0` (row `n + i` instead of row 0), and a wrapped row instead of the last one for
    `i >= n`. That is the intended correction, but it is not the same result for every input,
    so it is applied only with `--unsafe-fixes`.
    """
    VALID = [
        hybrid_block("return F.take(x, F.full((1,), -1), mode='wrap')"),
        hybrid_block("return F.take(x, idx)", args="x, idx"),
    ]
    INVALID = [
        Invalid(hybrid_block("return F.take(x, F.full((1,), -1))"), unsafe=True,
                fixed=hybrid_block("return F.take(x, F.full((1,), -1), mode='wrap')")),
        Invalid(hybrid_block("return F.pick(x, F.ones_like(F.sum(x, axis=1)) * -1, axis=1)"), unsafe=True,
                fixed=hybrid_block("return F.pick(x, F.ones_like(F.sum(x, axis=1)) * -1, axis=1, mode='wrap')")),
    ]

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
                and func.value.value == self.F and func.attr.value in INDEX_ARGUMENT):
            return
        if any(a.keyword is not None and a.keyword.value == "mode" for a in node.args):
            return
        keyword, position = INDEX_ARGUMENT[func.attr.value]
        index = None
        for i, arg in enumerate(node.args):
            if (arg.keyword is not None and arg.keyword.value == keyword) or (arg.keyword is None and i == position):
                index = arg.value
        value = _negative_literal(index)
        if value is None:
            return
        last = node.args[-1]
        args = list(node.args[:-1]) + [
            last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
            cst.Arg(cst.SimpleString("'wrap'"), keyword=cst.Name("mode"),
                    equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                          whitespace_after=cst.SimpleWhitespace("")))]
        fix = CstFix(((node, node.with_changes(args=args)),), "Add mode='wrap'", Applicability.UNSAFE)
        self.report(node, self.message.format(op=self.F + "." + func.attr.value, value=value), fix=fix)


def _negative_literal(expr):
    """The negative number an index expression is built from, if it is one."""
    if expr is None:
        return None
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus) \
            and isinstance(expr.expression, (cst.Integer, cst.Float)):
        return "-" + expr.expression.value
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Multiply):
        return _negative_literal(expr.right) or _negative_literal(expr.left)
    if isinstance(expr, (cst.List, cst.Tuple)):
        for element in expr.elements:
            found = _negative_literal(element.value)
            if found:
                return found
    if isinstance(expr, cst.Call):
        name = expr.func.attr.value if isinstance(expr.func, cst.Attribute) else None
        if name in ("full", "array"):
            for arg in expr.args[:2] if name == "full" else expr.args[:1]:
                if arg.keyword is None or arg.keyword.value in ("val", "source_array", "object"):
                    found = _negative_literal(arg.value)
                    if found and (name == "array" or arg is not expr.args[0]):
                        return found
    return None
