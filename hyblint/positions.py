"""Where nodes are in a module's text, the same as libcst's PositionProvider, at a third of its cost.

The provider turns every token into lines and columns with a regular expression and builds two
frozen dataclasses for every node of the module. Here the code generation only counts characters
and keeps a pair of offsets per node; offsets become lines and columns only for the nodes that
are asked for (the handful a check reports). This leans on libcst's code generation protocol
(`CodegenState`, internal to libcst): where it is missing, the provider itself is used.
"""
from __future__ import annotations

import bisect
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Dict, Iterable, Iterator, List, Optional, Set, Tuple

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

try:
    from libcst._nodes.internal import CodegenState
except ImportError:  # pragma: no cover - a libcst that moved its internals
    CodegenState = None

_NEWLINE = re.compile(r"\r\n?|\n")  # what the provider counts as a line break


class Positions:
    """node -> CodeRange (1-based lines, 0-based columns), as PositionProvider gives them."""

    def __init__(self, text: str, offsets: Dict[int, Tuple[int, int]]):
        self._offsets = offsets  # by the node's id: libcst nodes hash in Python, ids in C
        self._line_starts = [0] + [match.end() for match in _NEWLINE.finditer(text)]

    def _position(self, offset: int) -> CodePosition:
        line = bisect.bisect_right(self._line_starts, offset)
        return CodePosition(line, offset - self._line_starts[line - 1])

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        start, end = self._offsets[id(node)]
        return CodeRange(self._position(start), self._position(end))


class _AllFound(Exception):
    """Every node asked for has its offsets: the rest of the code need not be generated."""


if CodegenState is not None:
    @dataclass
    class _CountingState(CodegenState):
        offset: int = 0
        popped: str = ""
        offsets: Dict[int, Tuple[int, int]] = field(default_factory=dict)
        starts: List[int] = field(default_factory=list)
        wanted: Optional[Set[int]] = None  # the ids of the nodes asked for, None for all

        def add_indent_tokens(self) -> None:
            self.tokens.extend(self.indent_tokens)
            for token in self.indent_tokens:
                self.offset += len(token)

        def add_token(self, value: str) -> None:
            self.tokens.append(value)
            self.offset += len(value)

        def pop_trailing_newline(self) -> None:
            # the provider leaves its count as it was: so do the offsets, and the text keeps the newline
            if self.tokens:
                self.popped = self.tokens.pop()

        def before_codegen(self, node: cst.CSTNode) -> None:
            self.starts.append(self.offset)

        def after_codegen(self, node: cst.CSTNode) -> None:
            start = self.starts.pop()
            key = id(node)
            if key not in self.offsets:  # a syntactic position recorded inside stays
                self.offsets[key] = (start, self.offset)
            wanted = self.wanted
            if wanted is not None and key in wanted:
                # (a node's codegen records its syntactic position inside, never after it)
                wanted.discard(key)
                if not wanted:
                    raise _AllFound

        @contextmanager
        def record_syntactic_position(self, node: cst.CSTNode, *, start_node: Optional[cst.CSTNode] = None,
                                      end_node: Optional[cst.CSTNode] = None) -> Iterator[None]:
            start = self.offset
            yield  # (generation stopped inside: nothing more to record)
            end = self.offset
            if start_node is not None:
                start = self.offsets[id(start_node)][0]
            if end_node is not None:
                end = self.offsets[id(end_node)][1]
            self.offsets[id(node)] = (start, end)


def positions_of(module: cst.Module, wanted: Optional[Iterable[cst.CSTNode]] = None):
    """A mapping from each node of `module` to its CodeRange; with `wanted`, from those nodes at
    least (code generation stops once it has passed them all: a check asks for a few)."""
    if CodegenState is None:  # pragma: no cover
        return MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    state = _CountingState(default_indent=module.default_indent, default_newline=module.default_newline,
                           wanted=None if wanted is None else {id(node) for node in wanted})
    if state.wanted == set():
        return Positions("", state.offsets)
    try:
        module._codegen(state)
    except _AllFound:
        pass
    return Positions("".join(state.tokens) + state.popped, state.offsets)
