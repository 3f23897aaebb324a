import libcst as cst

from hyblint.analysis.kinds import Kind, may_be_tensor
from hyblint.analysis.vocabulary import CONVERSION_BUILTINS, CONVERSION_METHODS, NUMPY_FUNCTIONS
from hyblint.rules.base import Invalid, Rule, hybrid_block



class NumpyConversion(Rule):
    code = "HYB007"
    name = "numpy-conversion"
    message = "`{what}` needs concrete values, which a traced Symbol does not have"
    screen_triggers = ('tensor-attribute', 'tensor-call', 'numpy-call')
    docs = """
    ## What it does
    Flags conversions of tensors to NumPy or Python values inside `hybrid_forward`:
    `.asnumpy()`, `.asscalar()`, `.item()`, `.tolist()`, `np.array(x)`, `float(x)`, `int(x)`.

    ## Why is this bad?
    Hybridized, `NotImplementedForSymbol: Function asnumpy is not implemented for Symbol and only
    available in NDArray.` Even eagerly, each conversion waits for the device and copies the data.

    ## Example
    ```python
    def hybrid_forward(self, F, x):
        scale = float(x.max().asscalar())
        return x / scale
    ```

    Use instead: keep the value a tensor.
    ```python
    def hybrid_forward(self, F, x):
        return F.broadcast_div(x, F.max(x))
    ```

    ## Fix safety
    No automatic fix.
    """
    VALID = [
        hybrid_block("return F.broadcast_div(x, F.max(x))"),
        hybrid_block("scale = float(self._scale)\nreturn x * scale"),
    ]
    INVALID = [
        Invalid(hybrid_block("y = x.asnumpy()\nreturn x * 2")),
        Invalid(hybrid_block("return x / float(F.max(x))")),
        Invalid(hybrid_block("return x * np.array(x).mean()", imports="import numpy as np\n")),
    ]

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in CONVERSION_METHODS and may_be_tensor(self.kind(func.value)):
            self.report(node, self.message.format(what="." + func.attr.value + "()"))
            return
        if len(node.args) < 1 or self.kind(node.args[0].value) is not Kind.TENSOR:
            return
        if isinstance(func, cst.Name) and func.value in CONVERSION_BUILTINS \
                and func.value not in self.facts.params:
            self.report(node, self.message.format(what=func.value + "()"))
        elif self.imports.resolve(func, self.facts.params) in NUMPY_FUNCTIONS:
            self.report(node, self.message.format(what=self.code_of(func) + "()"))
