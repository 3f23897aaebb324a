import libcst as cst

from hyblint.analysis.vocabulary import PYTHON_RANDOM_PREFIXES
from hyblint.rules.base import Invalid, Rule, hybrid_block


class TraceTimeRandom(Rule):
    code = "HYB016"
    name = "trace-time-random"
    message = ("`{call}` draws once, when the graph is traced: the hybridized block reuses that number on "
               "every call; use F.random.* (or F.Dropout), which draw on each run")
    screen_triggers = ("python-random",)
    docs = """
    ## What it does
    Flags calls into NumPy's or Python's random modules inside `hybrid_forward`:
    `np.random.uniform()`, `np.random.permutation(n)`, `random.random()`, `random.choice(...)`,
    through any import alias (`import numpy as onp`, `from numpy import random as npr`,
    `from random import random`). The operators of `F.random` (and `mx.nd.random`, which
    HYB009 reports) are not flagged.

    ## Why is this bad?
    A hybridized block runs its Python code once, to trace the graph; the number drawn then is
    baked into the graph as a constant. On MXNet 1.9.1, `x * np.random.uniform()` and
    `x * random.random()` give a new factor on every eager call and the same factor on every
    hybridized call: a random drop, crop or sample silently becomes a fixed one.

    ## Example
    ```python
    def hybrid_forward(self, F, x):
        if np.random.uniform() < self._drop_prob:
            return F.zeros_like(x)
        return x
    ```

    Use instead: draw with an operator, so that each run of the graph draws anew.
    ```python
    def hybrid_forward(self, F, x):
        keep = F.random.uniform_like(F.slice_axis(x, axis=1, begin=0, end=1)) >= self._drop_prob
        return F.broadcast_mul(x, keep)
    ```

    ## Fix safety
    No automatic fix: an operator's draw has a shape and a distribution to choose.
    """
    VALID = [
        hybrid_block("return F.Dropout(x, p=0.5)"),
        hybrid_block("return x * F.random.uniform(shape=(1,))"),
        hybrid_block("noise = F.random.normal_like(x)\nreturn x + noise"),
        hybrid_block("random = F.random\nreturn x * random.uniform(shape=(1,))", imports="import random\n"),
    ]
    INVALID = [
        Invalid(hybrid_block("return x * np.random.uniform()", imports="import numpy as np\n")),
        Invalid(hybrid_block("return x * onp.random.uniform(0.5, 1.5)", imports="import numpy as onp\n")),
        Invalid(hybrid_block("return x * npr.rand()", imports="from numpy import random as npr\n")),
        Invalid(hybrid_block("if random.random() < 0.5:\n    return F.flip(x, axis=2)\nreturn x",
                             imports="import random\n")),
        Invalid(hybrid_block("return x * random()", imports="from random import random\n")),
        Invalid(hybrid_block("order = np.random.permutation(4)\nreturn F.take(x, F.array(order))",
                             imports="import numpy as np\n")),
    ]

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.imports.resolve(node.func, self.facts.params)
        if resolved is not None and resolved.startswith(PYTHON_RANDOM_PREFIXES):
            self.report(node, self.message.format(call=self.code_of(node.func) + "(...)"))
