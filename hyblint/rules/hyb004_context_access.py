import libcst as cst

from hyblint.analysis.kinds import may_be_tensor
from hyblint.analysis.vocabulary import CONTEXT_ATTRIBUTES
from hyblint.rules.base import Invalid, Rule, hybrid_block


class ContextAccess(Rule):
    code = "HYB004"
    name = "context-access"
    message = "A Symbol has no `.{attr}`: a graph is placed on a device when it is bound, not traced"
    screen_triggers = ('tensor-attribute',)
    docs = """
    ## What it does
    Flags `.context` and `.ctx` on tensors inside `hybrid_forward`.

    ## Why is this bad?
    Hybridized, `x` is a `Symbol`: `AttributeError: 'Symbol' object has no attribute 'context'`.
    Operators inside a graph run on the graph's device anyway.

    ## Example
    ```python
    def hybrid_forward(self, F, x):
        mask = F.ones((4,), ctx=x.context)
        return F.broadcast_mul(x, mask)
    ```

    Use instead:
    ```python
    def hybrid_forward(self, F, x):
        mask = F.ones_like(F.slice_axis(x, axis=0, begin=0, end=1))
        return F.broadcast_mul(x, mask)
    ```

    ## Fix safety
    No automatic fix: dropping a `ctx=` argument changes where an eager block allocates.
    """
    VALID = [
        hybrid_block("return F.ones_like(x)"),
        hybrid_block("return x + self.weight.data(ctx=None)"),
    ]
    INVALID = [
        Invalid(hybrid_block("if x.context == mx.cpu():\n    return x\nreturn x * 2")),
        Invalid(hybrid_block("return F.broadcast_mul(x, F.ones((4,), ctx=x.ctx))")),
    ]

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in CONTEXT_ATTRIBUTES and may_be_tensor(self.kind(node.value)):
            self.report(node, self.message.format(attr=node.attr.value))
