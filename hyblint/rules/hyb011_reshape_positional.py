import libcst as cst

from hyblint.analysis.kinds import Kind
from hyblint.diagnostics import Applicability
from hyblint.rules.base import CstFix, Invalid, Rule, hybrid_block


class ReshapePositional(Rule):
    code = "HYB011"
    name = "reshape-positional"
    message = ("Positional reshape dimensions bind to other parameters on a Symbol "
               "(`shape`, `reverse`, ...): pass the shape as one tuple")
    fix_availability = "always"
    screen_triggers = ('positional-reshape',)
    fix_summary = '`x.reshape((a, b))`'
    docs = """
    ## What it does
    Flags `x.reshape(-1, 1)` and `F.reshape(x, 0, 4, -1)`: reshape dimensions given as separate
    positional arguments.

    ## Why is this bad?
    `NDArray.reshape(*shape)` accepts dimensions one by one, but on a Symbol the positional
    arguments bind to the operator's parameters in order: `x.reshape(-1, 1)` means
    `shape=-1, reverse=1` and silently returns shape `(N,)` instead of `(N, 1)`. Through
    `F.reshape`, extra positional values land in `reverse`, `target_shape` and `keep_highest`, and
    the graph fails to build.

    ## Example
    ```python
    def hybrid_forward(self, F, x):
        return x.reshape(-1, 1)
    ```

    Use instead:
    ```python
    def hybrid_forward(self, F, x):
        return x.reshape((-1, 1))
    ```

    ## Fix safety
    Safe: the tuple form is what the NDArray call meant.
    """
    VALID = [
        hybrid_block("return x.reshape((-1, 1))"),
        hybrid_block("return x.reshape(shape=(-1, 1))"),
        hybrid_block("return F.reshape(x, (0, -1))"),
        hybrid_block("return x.reshape(-1)"),
    ]
    INVALID = [
        Invalid(hybrid_block("return x.reshape(-1, 1)"), fixed=hybrid_block("return x.reshape((-1, 1))")),
        Invalid(hybrid_block("return F.reshape(x, 0, self.groups, -1)"),
                fixed=hybrid_block("return F.reshape(x, (0, self.groups, -1))")),
    ]

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value != "reshape":
            return
        positional = [a for a in node.args if a.keyword is None and a.star == ""]
        if len(positional) != len(node.args) and any(a.star for a in node.args):
            return
        if isinstance(func.value, cst.Name) and func.value.value == self.F:
            dims = positional[1:]       # F.reshape(data, d0, d1, ...)
        elif self.kind(func.value) is Kind.TENSOR:
            dims = positional           # x.reshape(d0, d1, ...)
        else:
            return
        if len(dims) < 2 or any(isinstance(d.value, (cst.Tuple, cst.List)) for d in dims):
            return
        shape = cst.Tuple([cst.Element(d.value) for d in dims])
        first = node.args.index(dims[0])
        last = node.args.index(dims[-1])
        new_args = list(node.args[:first]) + [cst.Arg(shape, comma=dims[-1].comma)] + list(node.args[last + 1:])
        fix = CstFix(((node, node.with_changes(args=new_args)),), "Pass the shape as one tuple", Applicability.SAFE)
        self.report(node, fix=fix)
