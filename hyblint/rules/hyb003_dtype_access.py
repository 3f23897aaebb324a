import libcst as cst

from hyblint.analysis.kinds import may_be_tensor
from hyblint.analysis.vocabulary import DTYPE_ATTRIBUTES
from hyblint.rules.base import Invalid, Rule, hybrid_block


class DtypeAccess(Rule):
    code = "HYB003"
    name = "dtype-access"
    message = ("A Symbol has no `.dtype` while hybrid_forward is traced: pass the dtype to the "
               "constructor, or use `*_like` ops that keep the input's dtype")
    screen_triggers = ('tensor-attribute',)
    docs = """
    ## What it does
    Flags `.dtype` on tensors inside `hybrid_forward`.

    ## Why is this bad?
    Hybridized, `x` is a `Symbol`: `AttributeError: 'Symbol' object has no attribute 'dtype'`.

    ## Example
    ```python
    def hybrid_forward(self, F, x):
        if x.dtype == 'float16':
            return x
        return x * 2
    ```

    Use instead: decide the dtype when the block is built.
    ```python
    def __init__(self, dtype='float32', **kwargs):
        super().__init__(**kwargs)
        self._dtype = dtype

    def hybrid_forward(self, F, x):
        if self._dtype == 'float16':
            return x
        return x * 2
    ```
    To make constants of the input's dtype, use `F.zeros_like(x)` / `F.ones_like(x)`, or
    `F.cast(y, dtype=self._dtype)`.

    ## Fix safety
    No automatic fix: where the dtype comes from is a design decision.
    """
    VALID = [
        hybrid_block("if self._dtype == 'float16':\n    return x\nreturn x * 2"),
        hybrid_block("return F.cast(x, dtype=self.weight.dtype)"),
    ]
    INVALID = [
        Invalid(hybrid_block("if x.dtype == 'float16':\n    return x\nreturn x * 2")),
        Invalid(hybrid_block("return F.cast(F.relu(x), dtype=x.dtype)")),
    ]

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in DTYPE_ATTRIBUTES and may_be_tensor(self.kind(node.value)):
            self.report(node)
