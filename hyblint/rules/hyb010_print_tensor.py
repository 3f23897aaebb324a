import libcst as cst

from hyblint.analysis.kinds import may_be_tensor
from hyblint.diagnostics import Severity
from hyblint.rules.base import Invalid, Rule, hybrid_block


class PrintTensor(Rule):
    code = "HYB010"
    name = "print-tensor"
    severity = Severity.WARNING
    message = "`print` of a tensor shows `<Symbol ...>` once, at trace time, and never again after hybridize()"
    screen_triggers = ('tensor-call',)
    docs = """
    ## What it does
    Flags `print(...)` calls with a tensor argument inside `hybrid_forward`.

    ## Why is this bad?
    Hybridized, `hybrid_forward` runs once to trace the graph: the print shows a Symbol's name,
    then nothing on later calls, when the compiled graph runs without Python.

    ## Example
    ```python
    def hybrid_forward(self, F, x):
        print(x)
        return F.relu(x)
    ```

    Use instead: inspect outputs outside the block, or run it without `hybridize()` while
    debugging.

    ## Fix safety
    No automatic fix.
    """
    VALID = [
        hybrid_block("print('tracing', self.name)\nreturn x"),
    ]
    INVALID = [
        Invalid(hybrid_block("print(x)\nreturn F.relu(x)")),
        Invalid(hybrid_block("y = self.dense(x)\nprint('y =', y)\nreturn y")),
    ]

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "print" and "print" not in self.facts.params:
            if any(may_be_tensor(self.kind(arg.value)) for arg in node.args):
                self.report(node)
