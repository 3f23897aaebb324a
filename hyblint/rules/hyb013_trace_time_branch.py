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
    screen_triggers = ("frozen-call",)
    docs = """
    ## What it does
    Flags `if autograd.is_training():` and `if autograd.is_recording():` inside `hybrid_forward`,
    and every other read of those calls there: in a conditional expression
    (`p = 0.5 if autograd.is_training() else 0.0`), as an argument, or assigned to a name.

    ## Why is this bad?
    A hybridized block runs its Python code once per input signature. Whichever branch the first
    call took (training or inference) is the only one in the graph: later calls in the other mode
    silently run the wrong branch. The same holds for the value wherever it is read: on MXNet
    1.9.1 a block computing `x * (1 - (0.5 if autograd.is_training() else 0.0))`, first called
    under `autograd.record()`, returns `0.5 * x` in prediction too once hybridized (`x` eagerly).

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
        Invalid(hybrid_block("p = 0.5 if autograd.is_training() else 0.0\nreturn x * (1 - p)",
                             imports="from mxnet import autograd\n")),
        Invalid(hybrid_block("return F.BatchNorm(x, use_global_stats=not autograd.is_training())",
                             imports="from mxnet import autograd\n")),
        Invalid(hybrid_block("training = is_training()\nreturn self.head(x, training)",
                             imports="from mxnet.autograd import is_training\n")),
        Invalid(hybrid_block("while autograd.is_recording():\n    x = x * 2\nreturn x",
                             imports="from mxnet import autograd\n")),
    ]

    def __init__(self, *args):
        super().__init__(*args)
        self.in_tests = set()  # calls inside a reported `if` test

    def visit_If(self, node: cst.If) -> None:
        frozen = [call for call in _calls(node.test) if self._frozen(call)]
        if frozen:
            self.report(node.test, self.message.format(call=self.code_of(frozen[0])))
            self.in_tests.update(frozen)

    def visit_Call(self, node: cst.Call) -> None:
        # `if` tests are visited first (pre-order), so their calls are already reported
        if node not in self.in_tests and self._frozen(node):
            self.report(node, self.message.format(call=self.code_of(node)))

    def _frozen(self, call: cst.Call) -> bool:
        return self.imports.resolve(call.func, self.facts.params) in FROZEN_CALLS


def _calls(expr):
    if isinstance(expr, cst.Call):
        yield expr
    yield from (node for node in descendants(expr) if isinstance(node, cst.Call))
