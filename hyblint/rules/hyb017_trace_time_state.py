import libcst as cst

from hyblint.analysis.kinds import Kind
from hyblint.analysis.walk import subtree
from hyblint.diagnostics import Severity
from hyblint.rules.base import Invalid, Rule, hybrid_block


class TraceTimeState(Rule):
    code = "HYB017"
    name = "trace-time-state"
    severity = Severity.WARNING
    message = ("Setting `{target}` in hybrid_forward runs once, when the graph is traced: the hybridized "
               "block never updates it again")
    screen_triggers = ("self-assignment",)
    docs = """
    ## What it does
    Flags state that a block keeps across calls, set inside `hybrid_forward`: augmented
    assignments to its attributes (`self.step += 1`), and assignments (`self.margin = ...`,
    `self._cache.value = ...`, `setattr(self, name, value)`) of anything but a plain Python
    value: a value computed from the block's attributes (`self.margin * 0.9`), a tensor
    (`self._prev_output = output`), a call's result. A Python value that is the same on every
    call (`self._clip = -1`, `self.child.end = len(ys)`, `self.outputs = []`) is not flagged.

    ## Why is this bad?
    A hybridized block runs its Python code once per input signature, to trace the graph. On
    MXNet 1.9.1 a block doing `self.step += 1; return x * self.step` returns `x`, `2 * x`, ...
    eagerly and `x` on every hybridized call: `step` stays at its first value, so a schedule
    (a warm-up, an annealed margin, a counter) freezes, and whatever reads the attribute
    outside the block sees it stop changing. A tensor stored for the next call (a previous
    output, as zoneout keeps) is the traced Symbol once hybridized: the graph keeps using what
    the first call saw, and code reading the attribute gets a Symbol.

    ## Example
    ```python
    def hybrid_forward(self, F, x):
        self.step += 1
        return x * min(1.0, self.step / 1000)
    ```

    Use instead: keep the state outside the traced code, e.g. update it in the training loop
    and pass it in as a tensor input.
    ```python
    def hybrid_forward(self, F, x, scale):
        return F.broadcast_mul(x, scale)
    ```

    ## Fix safety
    No automatic fix.
    """
    VALID = [
        hybrid_block("y = self.proj(x)\nreturn y"),
        hybrid_block("state = self.begin_state\nstate = F.relu(x)\nreturn state"),
        hybrid_block("self.cache[0]\nreturn x"),
        hybrid_block("if self._clip is None:\n    self._clip = -1\nreturn F.clip(x, self._clip, 1)"),
        hybrid_block("ys = [x, x]\nself.head.end = len(ys)\nreturn self.head(ys)"),
    ]
    INVALID = [
        Invalid(hybrid_block("self.step += 1\nreturn x * self.step")),
        Invalid(hybrid_block("self.margin = self.margin * 0.9\nreturn x - self.margin")),
        Invalid(hybrid_block("self._shift: int = self._shift * 2\nreturn x")),
        Invalid(hybrid_block("self.stats.count = self.stats.count - 1\nreturn x")),
        Invalid(hybrid_block("setattr(self, 'step', self.step + 1)\nreturn x")),
        Invalid(hybrid_block("self.a = self.b = self.a + 1\nreturn x"), expected=2),
        Invalid(hybrid_block("out = F.relu(x) + self._prev\nself._prev = out\nreturn out")),
        Invalid(hybrid_block("self.cls, self.loc = self.head(x)\nreturn self.cls, self.loc"), expected=2),
        Invalid(hybrid_block("self.margin = schedule(x)\nreturn x - self.margin")),
    ]

    def visit_Assign(self, node: cst.Assign) -> None:
        if self._changes(node.value):
            for target in node.targets:
                self._target(target.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._target(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None and self._changes(node.value):
            self._target(node.target)

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "setattr" and "setattr" not in self.facts.params \
                and len(node.args) == 3 and self._is_self(node.args[0].value) and self._changes(node.args[2].value):
            self.report(node, self.message.format(target="setattr(%s, ...)" % self.code_of(node.args[0].value)))

    def _target(self, target) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._target(element.value)
            return
        if not isinstance(target, cst.Attribute):
            return
        base = target.value
        while isinstance(base, cst.Attribute):
            base = base.value
        if self._is_self(base):
            self.report(target, self.message.format(target=self.code_of(target)))

    def _changes(self, value) -> bool:
        """A value that may differ from call to call: anything but a Python value computed without
        the block's attributes (`-1`, `[]`, `len(ys)`)."""
        if self.kind(value) not in (Kind.PYTHON, Kind.NONE):
            return True
        return any(isinstance(node, cst.Attribute) and self._is_self(node.value) for node in subtree(value))

    def _is_self(self, node) -> bool:
        first = self.function.params.params[0].name.value if self.function.params.params else None
        return isinstance(node, cst.Name) and node.value == first
