import libcst as cst

from hyblint.analysis.vocabulary import ITERATING_BUILTINS
from hyblint.rules.base import Invalid, Rule, hybrid_block


class TensorIteration(Rule):
    code = "HYB015"
    name = "tensor-iteration"
    message = ("Iterating over a tensor breaks after hybridize(): a Symbol iterates as one item, itself, "
               "not as its rows; use F.split(x, num_outputs=n, axis=0, squeeze_axis=True)")
    screen_triggers = ("iteration",)
    docs = """
    ## What it does
    Flags iteration over a value known to be one tensor inside `hybrid_forward`: `for row in x`,
    comprehensions over `x`, `enumerate(x)`, `zip(x, y)`, `list(x)`, `tuple(x)`, `sorted(x)`,
    `sum(x)`, `*x` in a call, and unpacking `a, b = x`. A group of outputs (`F.split(...)`'s
    result) and Python lists of tensors iterate as they should and are not flagged.

    ## Why is this bad?
    Eagerly an NDArray iterates over its first axis. Hybridized, `x` is a `Symbol`, which
    iterates over its *outputs*: one, the whole tensor. On MXNet 1.9.1, a block computing
    `sum(r * (i + 1) for i, r in enumerate(x))` returns the weighted sum of the rows eagerly and
    `x` itself once hybridized, and `F.stack(*list(x))` returns `x` with an extra leading axis:
    no error, different results. `a, b, c = x` raises `ValueError: not enough values to unpack
    (expected 3, got 1)`.

    ## Example
    ```python
    def hybrid_forward(self, F, x):
        return F.stack(*[F.relu(row) for row in x])
    ```

    Use instead (with the number of rows a setting of the block):
    ```python
    def hybrid_forward(self, F, x):
        rows = F.split(x, num_outputs=self._rows, axis=0, squeeze_axis=True)
        return F.stack(*[F.relu(row) for row in rows])
    ```

    ## Fix safety
    No automatic fix: the number of rows is not known from the code.
    """
    VALID = [
        hybrid_block("parts = F.split(x, num_outputs=3, axis=1)\nreturn F.concat(*[F.relu(p) for p in parts], dim=1)"),
        hybrid_block("for block in self.blocks:\n    x = block(x)\nreturn x"),
        hybrid_block("a, b = F.split(x, num_outputs=2)\nreturn a + b"),
        hybrid_block("return F.concat(*[s for s in states], dim=1)", args="x, states"),
        hybrid_block("for i, feat in enumerate(features):\n    x = x + feat\nreturn x", args="x, features"),
        hybrid_block("h, c = self.cell(x)\nreturn h", name="Cell"),
        hybrid_block("mean, var = F.moments(x, axes=0)\nreturn (x - mean) / var"),
        hybrid_block("scores, ids = x.topk(k=3, ret_typ='both')\nreturn scores"),
        hybrid_block("preds = [F.relu(x)]\nreturn self.loss(*(preds + self.target(x)))"),
        hybrid_block("y = F.BatchNorm(x, g, b, m, v, **self._kwargs)\nout, mean, var = y\nreturn out",
                     args="x, g, b, m, v"),
    ]
    INVALID = [
        Invalid(hybrid_block("y = F.relu(x)\nout = 0\nfor row in y:\n    out = out + row\nreturn out")),
        Invalid(hybrid_block("y = F.softmax(x)\nreturn F.stack(*[r * 2 for r in y])")),
        Invalid(hybrid_block("y = F.relu(x)\nfor i, r in enumerate(y):\n    x = x + r * i\nreturn x")),
        Invalid(hybrid_block("y = F.relu(x)\nreturn F.stack(*[a + b for a, b in zip(y, y)])")),
        Invalid(hybrid_block("y = F.relu(x)\nreturn F.stack(*list(y))")),
        Invalid(hybrid_block("y = F.relu(x)\nreturn tuple(y)")),
        Invalid(hybrid_block("y = F.relu(x)\nreturn sorted(y)")),
        Invalid(hybrid_block("y = F.relu(x)\nreturn F.concat(*y, dim=0)")),
        Invalid(hybrid_block("y = F.relu(x)\na, b = y\nreturn a + b")),
        Invalid(hybrid_block("y = F.relu(x)\nreturn sum(y)")),
    ]

    def visit_For(self, node: cst.For) -> None:
        self._iterated(node.iter)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._iterated(node.iter)

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.star == "*":
            self._iterated(node.value)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Name) or func.value not in ITERATING_BUILTINS or func.value in self.facts.params:
            return
        positional = [arg for arg in node.args if arg.keyword is None and arg.star == ""]
        if func.value in ("min", "max") and len(positional) != 1:
            return  # `max(a, b)` compares its arguments
        if func.value in ("map", "filter"):
            positional = positional[1:]
        elif func.value != "zip":
            positional = positional[:1]
        for arg in positional:
            if self._iterated(arg.value):
                return

    def visit_Assign(self, node: cst.Assign) -> None:
        if any(isinstance(t.target, (cst.Tuple, cst.List)) for t in node.targets):
            self._iterated(node.value)

    def _iterated(self, value: cst.BaseExpression) -> bool:
        if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, (cst.Add, cst.Multiply)):
            return False  # `preds + targets` may join two lists (the analysis takes a list for a Python value)
        if self.is_tensor(value):
            self.report(value)
            return True
        return False
