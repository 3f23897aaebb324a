import libcst as cst

from hyblint.analysis.vocabulary import FROZEN_CALLS
from hyblint.analysis.walk import descendants
from hyblint.diagnostics import Severity
from hyblint.rules.base import Invalid, Rule, hybrid_block



class TraceTimeBranch(Rule):
    code = "HYB013"
    name = "trace-time-branch"
    severity = Severity.WARNING
    message = ("`{call}` is read once, when the graph is traced: the branch taken then is frozen "
               "into the hybridized graph")
    docs = """
    ## What it does
    Flags `if autograd.is_training():` and `if autograd.is_recording():` inside `hybrid_forward`.

    ## Why is this bad?
    A hybridized block runs its Python code once per input signature. Whichever branch the first
    call took (training or inference) is the only one in the graph: later calls in the other mode
    silently run the wrong branch.

    ## Example
    ```python
    def hybrid_forward(self, F, x):
        if autograd.is_training():
            x = F.Dropout(x, p=0.5)
        return x
    ```

    Use instead: operators that read the mode when they run, such as `F.Dropout` (identity
    outside training) or `F.BatchNorm`, without the Python branch.
    ```python
    def hybrid_forward(self, F, x):
        return F.Dropout(x, p=0.5)
    ```

    ## Fix safety
    No automatic fix.
    """
    VALID = [
        hybrid_block("return F.Dropout(x, p=0.5)"),
    ]
    INVALID = [
        Invalid(hybrid_block("if autograd.is_training():\n    x = F.Dropout(x, p=0.5)\nreturn x",
                             imports="from mxnet import autograd\n")),
        Invalid(hybrid_block("if mx.autograd.is_recording():\n    return x * 2\nreturn x")),
    ]

    def visit_If(self, node: cst.If) -> None:
        for call in _calls(node.test):
            resolved = self.imports.resolve(call.func, self.facts.params)
            if resolved in FROZEN_CALLS:
                self.report(node.test, self.message.format(call=self.code_of(call)))
                return


def _calls(expr):
    if isinstance(expr, cst.Call):
        yield expr
    yield from (node for node in descendants(expr) if isinstance(node, cst.Call))
