"""Small helpers to render libcst nodes to source and build nodes back from source text."""
from __future__ import annotations

import contextlib
import contextvars
import functools
from typing import Optional

import libcst as cst

_EMPTY = cst.Module(body=[])

# The indentation of the block around the node being rewritten. A line inside brackets that
# continues at the block's indentation plus some columns stores only the extra columns; rendered
# on its own it would lose the block's part.
_BLOCK_INDENT: contextvars.ContextVar[str] = contextvars.ContextVar("block_indent", default="")
# The module being rewritten: its newline (\r\n or \n) and indentation unit.
_MODULE: contextvars.ContextVar[cst.Module] = contextvars.ContextVar("module", default=_EMPTY)


def render(node: cst.CSTNode, indent: str = "", module: Optional[cst.Module] = None) -> str:
    """The source text of `node` as it reads inside a block indented by `indent`, with the
    newlines of `module` (default: the module being rewritten)."""
    module = module if module is not None else _MODULE.get()
    try:
        from libcst._nodes.internal import CodegenState
    except ImportError:  # a libcst without this internal: continuation lines may lose indentation
        return module.code_for_node(node)
    state = CodegenState(default_indent=module.default_indent, default_newline=module.default_newline,
                         indent_tokens=[indent] if indent else [])
    node._codegen(state)
    return "".join(state.tokens)


def code(node: cst.CSTNode) -> str:
    """The source text of `node`, exactly as written (comments and spacing included)."""
    return render(node, _BLOCK_INDENT.get())


def block_indent(module: cst.Module, target: cst.CSTNode) -> str:
    """The indentation of the innermost block of `module` that holds `target` ("" if none)."""
    return _indents_of(module).get(id(target), "")


# The indentation of every node of the module last asked about, by id: a rule or the engine asks
# once per fix, and walking the tree each time made a method with many fixes quadratic. The module
# is held with its table, so that the ids stay those of its nodes.
_INDENTS: list = [None, {}]


def _indents_of(module: cst.Module) -> dict:
    if _INDENTS[0] is not module:
        from hyblint.analysis.walk import children
        table = {}
        stack = [(module, "")]
        while stack:
            node, indent = stack.pop()
            if indent:
                table[id(node)] = indent
            if isinstance(node, cst.IndentedBlock):
                indent += module.default_indent if node.indent is None else node.indent
            stack.extend((child, indent) for child in children(node))
        _INDENTS[:] = [module, table]
    return _INDENTS[1]


@contextlib.contextmanager
def indented_like(module: cst.Module, node: cst.CSTNode):
    """Render with `code()` as `node` reads in `module`, for the duration of the block."""
    token = _BLOCK_INDENT.set(block_indent(module, node))
    module_token = _MODULE.set(module)
    try:
        yield
    finally:
        _MODULE.reset(module_token)
        _BLOCK_INDENT.reset(token)


def expr(text: str) -> Optional[cst.BaseExpression]:
    """Parse `text` as one expression; None when it is not valid Python."""
    try:
        return cst.parse_expression(text)
    except cst.ParserSyntaxError:
        return None


def int_value(node: cst.BaseExpression) -> Optional[int]:
    """The value of an integer literal (`3`, `-1`, `+2`, `(4)`), else None."""
    if isinstance(node, cst.Integer):
        return int(node.value, 0)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.expression, cst.Integer):
        inner = int_value(node.expression)
        if inner is None:
            return None
        if isinstance(node.operator, cst.Minus):
            return -inner
        if isinstance(node.operator, cst.Plus):
            return inner
    return None


def is_none(node: Optional[cst.BaseExpression]) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def is_self_attribute(node: cst.BaseExpression) -> bool:
    """`self.x` or `self.x.y`: a Python value fixed when the block was built."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name) and node.value == "self"


def tuple_text(items) -> str:
    """Python source of a tuple of already-rendered items: `(a,)`, `(a, b)`."""
    items = list(items)
    if len(items) == 1:
        return f"({items[0]},)"
    return "(" + ", ".join(items) + ")"


def fix_or_none(adapter):
    """A rule's fix builder that returns None instead of raising: an unexpected construct in
    user code costs that diagnostic its fix, never the check of the file. (The snapshot and
    rule-example tests catch a fix that goes missing.)"""
    @functools.wraps(adapter)
    def guarded(*args, **kwargs):
        try:
            return adapter(*args, **kwargs)
        except (RecursionError, ValueError, TypeError, AttributeError, KeyError, IndexError,
                cst.ParserSyntaxError):
            return None
    return guarded


def keeps_comments(old: cst.CSTNode, new_text: str) -> bool:
    """Whether every comment written inside `old` is still in `new_text`, its replacement. A
    rewrite that would drop one (`x[0,  # first row` ...) is not offered: the user's words are
    not the fixer's to delete."""
    stack = [old]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Comment) and node.value not in new_text:
            return False
        stack.extend(node.children)  # whitespace nodes included: that is where comments are
    return True
