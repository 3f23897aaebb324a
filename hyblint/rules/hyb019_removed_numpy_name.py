import libcst as cst

from hyblint.analysis.vocabulary import REMOVED_NUMPY_NAMES
from hyblint.rules.base import CstFix, Invalid, Rule, hybrid_block


class RemovedNumpyName(Rule):
    code = "HYB019"
    name = "removed-numpy-name"
    message = "`{name}` was removed in NumPy {version}: {advice}"
    fix_availability = "sometimes"
    screen_triggers = ("removed-numpy-name",)
    fix_summary = "`int`, `float`, `bool`, `np.nan`, `np.float64`, ..."
    docs = """
    ## What it does
    Flags NumPy names that NumPy 1.24 or 2.0 removed, used inside `hybrid_forward` through any
    import alias of NumPy: the aliases of Python's types (`np.int`, `np.float`, `np.bool`,
    `np.object`, `np.str`, `np.complex`, `np.long`, `np.unicode`), the constants' old spellings
    (`np.NaN`, `np.NAN`, `np.Inf`, `np.Infinity`, `np.infty`, `np.PINF`, `np.NINF`, `np.PZERO`,
    `np.NZERO`), and the old names of types and functions (`np.float_`, `np.complex_`, `np.cfloat`,
    `np.string_`, `np.unicode_`, `np.longfloat`, `np.round_`, `np.product`, `np.cumproduct`,
    `np.sometrue`, `np.alltrue`, ...). Like every rule, it sees the code that hyblint analyzes:
    `hybrid_forward` and the helpers it calls with `F` or tensors; the same names in constructors
    and module-level helpers (GluonCV's anchor generators call `np.float` from `__init__`) are not
    reported.

    ## Why is this bad?
    Gluon code written for MXNet 1.x ran on NumPy 1.x. On a current NumPy these names raise
    `AttributeError: module 'numpy' has no attribute 'float'` when the line runs, eagerly or while
    the graph is traced; `np.bool` and `np.long` came back in NumPy 2 with another meaning
    (NumPy's `bool_`, the C `long`).

    ## Example
    ```python
    def hybrid_forward(self, F, x):
        scale = np.float(self._scale)
        return F.cast(x * scale, dtype=np.int)
    ```

    Use instead:
    ```python
    def hybrid_forward(self, F, x):
        scale = float(self._scale)
        return F.cast(x * scale, dtype=int)
    ```

    ## Fix safety
    Safe: each replacement is the object the removed name stood for on the NumPy it was written
    for (`np.int` was Python's `int`, `np.float_` NumPy's `float64`, `np.product` was `np.prod`).
    `np.NINF`, `np.PZERO` and `np.NZERO` have no plain name and are not fixed; write `-np.inf`,
    `0.0` and `-0.0`. A function that binds the builtin's name (`int = ...`) is not fixed.
    """
    VALID = [
        hybrid_block("return F.cast(x, dtype=np.float32) * np.nan", imports="import numpy as np\n"),
        hybrid_block("return x * float(self._scale) + np.inf", imports="import numpy as np\n"),
        hybrid_block("return F.cast(x, dtype=np.int)", imports="import mxnet.numpy as np\n"),
    ]
    INVALID = [
        Invalid(hybrid_block("return F.cast(x, dtype=np.int)", imports="import numpy as np\n"),
                fixed=hybrid_block("return F.cast(x, dtype=int)", imports="import numpy as np\n")),
        Invalid(hybrid_block("scale = onp.float(self._scale)\nreturn x * scale", imports="import numpy as onp\n"),
                fixed=hybrid_block("scale = float(self._scale)\nreturn x * scale", imports="import numpy as onp\n")),
        Invalid(hybrid_block("return F.where(x > 0, x, F.full_like(x, np.NaN))", imports="import numpy as np\n"),
                fixed=hybrid_block("return F.where(x > 0, x, F.full_like(x, np.nan))",
                                   imports="import numpy as np\n")),
        Invalid(hybrid_block("return F.cast(x, dtype=numpy.float_)", imports="import numpy\n"),
                fixed=hybrid_block("return F.cast(x, dtype=numpy.float64)", imports="import numpy\n")),
        Invalid(hybrid_block("return F.clip(x, np.NINF, 0)", imports="import numpy as np\n")),
        Invalid(hybrid_block("int = F.cast\nreturn int(x, dtype=np.int)", imports="import numpy as np\n")),
    ]

    def visit_Attribute(self, node: cst.Attribute) -> None:
        resolved = self.imports.resolve(node, self.facts.params)
        found = REMOVED_NUMPY_NAMES.get(resolved) if resolved is not None else None
        if found is None:
            return
        replacement, version = found
        written = self.code_of(node)
        if replacement is None:
            advice = {"NINF": "write `-np.inf`", "PZERO": "write `0.0`", "NZERO": "write `-0.0`"}[node.attr.value]
            self.report(node, self.message.format(name=written, version=version, advice=advice))
            return
        if replacement.startswith("numpy."):
            # the same module reference as written (`onp.nan` for `onp.NaN`)
            text = written.rpartition(".")[0] + "." + replacement.partition(".")[2]
        else:
            text = replacement
        advice = "write `%s`, the same %s" % (text, "object" if "." in text else "thing on NumPy 1.x")
        fix = None
        if "." in text or not self._binds(text):
            fix = CstFix(((node, cst.parse_expression(text)),), "Replace `%s` with `%s`" % (written, text))
        self.report(node, self.message.format(name=written, version=version, advice=advice), fix=fix)

    def _binds(self, name: str) -> bool:
        """Whether the function being checked binds `name`: then it is not the builtin there."""
        return name in self.facts.params or name in _bound_names(self.function)


def _bound_names(function: cst.FunctionDef) -> set:
    """The names that assignments, loops, `with ... as` and imports bind anywhere in `function`."""
    bound = set()

    class Names(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            bound.add(node.value)

    class Targets(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            node.target.visit(Names())

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            node.target.visit(Names())

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            node.target.visit(Names())

        def visit_For(self, node: cst.For) -> None:
            node.target.visit(Names())

        def visit_AsName(self, node: cst.AsName) -> None:
            node.name.visit(Names())

        def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
            node.target.visit(Names())

    function.body.visit(Targets())
    return bound
