"""A fast pre-order walk over libcst nodes.

libcst's own visitors rebuild every node they pass (`_visit_and_replace_children`), which costs more
than parsing. Rules only read the tree, so this walk follows the dataclass fields that hold
syntax, skipping whitespace and punctuation, and builds nothing.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, Iterator, List, Tuple

import libcst as cst

_SKIPPED = ("whitespace", "lpar", "rpar", "leading_lines", "lines_after_decorators", "comma", "semicolon",
            "trailing_whitespace", "header", "footer", "equal", "colon", "lbracket", "rbracket", "lbrace",
            "rbrace", "first_colon", "second_colon", "asynchronous", "operator", "dot",
            "empty_lines", "newline", "default_indent", "default_newline", "encoding", "indent")
_FIELDS: Dict[type, Tuple[str, ...]] = {}


def _syntax_fields(node_type: type) -> Tuple[str, ...]:
    found = _FIELDS.get(node_type)
    if found is None:
        found = tuple(f.name for f in dataclasses.fields(node_type)
                      if not any(f.name.startswith(prefix) for prefix in _SKIPPED))
        _FIELDS[node_type] = found
    return found


_IS_NODE: Dict[type, bool] = {}


def _is_node(value) -> bool:
    # a dict lookup per type: isinstance against libcst's abstract base class is slow
    kind = type(value)
    known = _IS_NODE.get(kind)
    if known is None:
        known = _IS_NODE[kind] = issubclass(kind, cst.CSTNode)
    return known


def children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    for name in _syntax_fields(type(node)):
        value = getattr(node, name)
        if type(value) in (tuple, list):
            for item in value:
                if _is_node(item):
                    yield item
        elif _is_node(value):
            yield value


def _child_list(node: cst.CSTNode) -> List[cst.CSTNode]:
    """`children`, as a list (the walk below asks for every node's: a generator costs more)."""
    found = []
    fields = _FIELDS.get(type(node)) or _syntax_fields(type(node))
    for name in fields:
        value = getattr(node, name)
        kind = type(value)
        if kind is tuple or kind is list:
            found.extend(item for item in value if _is_node(item))
        elif _IS_NODE.get(kind) or (kind not in _IS_NODE and _is_node(value)):
            found.append(value)
    return found


def preorder(root: cst.CSTNode) -> Tuple[List[cst.CSTNode], List[int]]:
    """The nodes below `root` in source order, and for each the index just past its subtree, so
    that one list serves every later pass, including passes that skip subtrees."""
    nodes: List[cst.CSTNode] = []
    ends: List[int] = []
    stack: list = _child_list(root)[::-1]
    while stack:
        item = stack.pop()
        if item.__class__ is int:  # the marker pushed below a node's children: its subtree ends here
            ends[item] = len(nodes)
            continue
        stack.append(len(nodes))
        nodes.append(item)
        ends.append(0)
        stack.extend(_child_list(item)[::-1])
    return nodes, ends


def subtree(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    yield node
    yield from descendants(node)


def descendants(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    stack = list(children(node))
    while stack:
        current = stack.pop()
        yield current
        stack.extend(children(current))


def visit_all(root: cst.CSTNode, visitor) -> None:
    """Call `visitor.visit_<NodeType>(node)` on `root` and every node under it, in no set order: a
    read-only visit for collecting facts, without libcst's rebuilding of each node it passes."""
    for node in subtree(root):
        handler = getattr(visitor, "visit_" + type(node).__name__, None)
        if handler is not None:
            handler(node)
