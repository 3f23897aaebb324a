import libcst as cst

from hyblint.analysis.kinds import Kind
from hyblint.rules.base import Invalid, Rule, hybrid_block


class TensorIndexing(Rule):
    code = "HYB001"
    name = "tensor-indexing"
    message = ("Indexing a tensor breaks after hybridize(): a Symbol's `[i]` selects its i-th output; "
               "use F.slice_axis / F.slice / F.take")
    fix_availability = "sometimes"
    screen_triggers = ('tensor-subscript',)
    fix_summary = '`F.slice_axis` / `F.slice` / `F.squeeze` / `F.expand_dims`; `F.take` (unsafe)'
    docs = """
    ## What it does
    Flags subscripts (`x[0]`, `x[:, 1:3]`, `x[..., 0]`, `x[:, None]`, `x[idx]`) on tensors inside
    `hybrid_forward`.

    ## Why is this bad?
    Once the block is hybridized, `x` is a `Symbol`, and `Symbol.__getitem__` only selects one of
    the symbol's *outputs*. `x[0, 0]` raises `TypeError: Symbol only support integer index to fetch
    i-th output`; worse, `x[0]` on a single-output tensor returns the whole tensor without any error,
    so results silently change. Ops with several outputs are groups, whose `[i]` selects an
    output as it should (`F.linalg.slogdet(a)[1]`, `F.topk(x, ret_typ='both')[0]`,
    `F.split(x, num_outputs=3)[2]`, `F.RNN(..., state_outputs=True)[1]`: the table of such ops,
    recorded from MXNet 1.9.1, is in `analysis/vocabulary.py`); one asked for a single output
    is one tensor: `F.split(x, num_outputs=1)[0]` is the first row eagerly and the whole tensor
    once hybridized (checked on MXNet 1.9.1), and is flagged.

    ## Example
    ```python
    def hybrid_forward(self, F, x):
        return x[:, 1:3]
    ```

    Use instead:
    ```python
    def hybrid_forward(self, F, x):
        return F.slice_axis(x, axis=1, begin=1, end=3)
    ```

    Subscripts that are stored into or deleted (`x[0] = v`, `x[0][1] = v`, `x[0][1] += v`,
    `del x[0]`, `for x[0] in ...`) are HYB005's: `x[0][1] = v` writes into `x` through the view
    `x[0]`, which a rewrite of `x[0]` would cut off.

    ## Fix safety
    Safe, except for index arrays (below). Integers, slices and `None`/`...` become `F.slice_axis` / `F.slice` (with `step=` on
    leading axes) / `F.reverse`, then `F.expand_dims` for `None` and `F.squeeze` for the axes
    that integers drop: MXNet's legacy NDArray result, including shape `(1,)` where every axis
    is dropped (`x[0]` on a 1-D tensor, `x[i, j]` on a 2-D one). "To the end" is `end=None`,
    never `i + 1` (which is 0 for -1; a non-literal `i` gets `end=i + 1 or None`).
    Positions and bounds must be ints by construction: literals, `len(...)`, arithmetic on ints,
    local names only ever bound to those or to `range(...)`; `self.*` attributes are taken as
    the block's integer settings. A single index array becomes `F.take(x, idx, mode='wrap')`,
    which counts negative indices from the end as NDArray indexing does. That fix is unsafe:
    an index past either end (`>= n` or `< -n`) raised an `IndexError`, and `mode='wrap'`
    silently wraps it into range instead. One index array per leading axis (`x[rows, cols]`)
    becomes `F.gather_nd(x, F.stack(rows, cols))`, which raises on such indices as the
    original does.
    Where the two still differ, the rewrite raises instead of returning something else: bounds
    beyond an axis' length (Python slicing clips them, `F.slice_axis` raises) and index arrays of
    different shapes (NDArray broadcasts them, `F.stack` raises). Steps on axes counted from the
    end (`x[..., ::2]`), a zero step (`x[1:2:0]` raises), index arrays mixed with other indices,
    and subscripts with comments inside (the rewrite would drop them) have no fix.
    """
    VALID = [
        hybrid_block("parts = F.split(x, num_outputs=3, axis=1)\nreturn parts[0] + parts[2]"),
        hybrid_block("h = states[0]\nreturn F.broadcast_add(x, h)", args="x, states"),
        hybrid_block("return x.shape[0]  # reported by HYB002, not here"),
        hybrid_block("out = self.rnn(x)\nreturn out[0]"),
        hybrid_block("sign, logdet = F.linalg.slogdet(x)[0], F.linalg.slogdet(x)[1]\nreturn logdet"),
        hybrid_block("return F.slice_axis(x, axis=1, begin=1, end=3)"),
        # stores through `y[0]` into y: HYB005's, and a rewrite of `y[0]` would leave y unchanged
        hybrid_block("y = F.relu(x)\ny[0][1] = 2\nreturn y"),
        hybrid_block("y = F.relu(x)\ny[0][1] += 2\nreturn y"),
        hybrid_block("y = F.relu(x)\ndel y[0][1]\nreturn y"),
        hybrid_block("y = F.relu(x)\nfor y[0][1] in range(3):\n    pass\nreturn y"),
        hybrid_block("y = F.relu(x)\ny[0][1], z = 2, 3\nreturn y"),
    ]
    INVALID = [
        Invalid(hybrid_block("return x[0, 0]"),
                fixed=hybrid_block("return F.squeeze(F.slice(x, begin=(0, 0), end=(1, 1)), axis=(0, 1))")),
        Invalid(hybrid_block("return x[-1]"),
                fixed=hybrid_block("return F.squeeze(F.slice_axis(x, axis=0, begin=-1, end=None), axis=0)")),
        Invalid(hybrid_block("return x[::-1, None]"),
                fixed=hybrid_block("return F.expand_dims(F.reverse(x, axis=0), axis=1)")),
        Invalid(hybrid_block("return x[idx]", args="x, idx"), unsafe=True,
                fixed=hybrid_block("return F.take(x, idx, mode='wrap')", args="x, idx")),
        # the index of a store is a read: it is flagged and fixed, the store is HYB005's
        Invalid(hybrid_block("y = F.relu(x)\nz = F.relu(x)\ny[0][z[0]] = 2\nreturn y"), fixed=hybrid_block(
            "y = F.relu(x)\nz = F.relu(x)\ny[0][F.squeeze(F.slice_axis(z, axis=0, begin=0, end=1), axis=0)] = 2"
            "\nreturn y")),
        # a zero step raises in Python and MXNet: no rewrite may turn it into a result
        Invalid(hybrid_block("return x[1:2:0]")),
        # the rewrite would drop the comments
        Invalid(hybrid_block("return x[\n    0,  # first row\n    1:3,  # columns\n]")),
        Invalid(hybrid_block("y = F.relu(x)\nreturn y[0]")),
        Invalid(hybrid_block("return x[:, 1:3]")),
        Invalid(hybrid_block("return x[..., 0]")),
        Invalid(hybrid_block("return x[:, None]")),
        Invalid(hybrid_block("return x[idx]", args="x, idx")),
        Invalid(hybrid_block("h = self.dense(x)\nreturn h[:, 0]")),
        Invalid(hybrid_block("return F.split(x, num_outputs=1, axis=1)[0]")),
    ]

    def __init__(self, *args):
        super().__init__(*args)
        self.targets = set()

    # Whatever is stored into or deleted is HYB005's: `x[0][1] = 2` writes through the view
    # `x[0]`, so rewriting that inner read into `F.slice_axis(...)` would leave `x` unchanged.
    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._targets(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._targets(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._targets(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self._targets(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._targets(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._targets(node.target)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._targets(node.asname.name)

    def _targets(self, target: cst.BaseExpression) -> None:
        """Mark `target` and every subscript its store goes through (`x[0]` in `x[0][1]`,
        `x[0].a[1]`); the index expressions themselves are reads and stay checked."""
        pending = [target]
        while pending:
            node = pending.pop()
            if isinstance(node, (cst.Tuple, cst.List)):
                pending.extend(element.value for element in node.elements)
            elif isinstance(node, cst.StarredElement):
                pending.append(node.value)
            elif isinstance(node, cst.Subscript):
                self.targets.add(node)
                pending.append(node.value)
            elif isinstance(node, cst.Attribute):
                pending.append(node.value)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if node in self.targets:
            return
        base = self.kind(node.value)
        if base is Kind.TENSOR:
            self.report(node, fix=self.rewrite(node))
        elif base is Kind.MAYBE and not _tuple_can_take(node):
            self.report(node, fix=self.rewrite(node))

    def rewrite(self, node: cst.Subscript):
        from hyblint.fixes.indexing import index_fix
        return index_fix(node, self)


def _tuple_can_take(node: cst.Subscript) -> bool:
    """`y[0]` or `y[1:]` also work on a tuple of outputs, so a child's result there is not flagged."""
    if len(node.slice) != 1:
        return False
    element = node.slice[0].slice
    if isinstance(element, cst.Slice):
        return True
    return not isinstance(element.value, (cst.Name,)) or element.value.value != "None"
