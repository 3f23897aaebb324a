"""The first half of checking a file, which needs no libcst: which of its methods need the full check.

Python's parser checks the syntax; class and import lines are read from the text; each in-scope
hybrid_forward is cut out and dedented, and the `ast` screen clears those where no selected rule
can report. What is left, usually a few methods of a few files, goes to the second half
(`hyblint.engine.finish`), which parses it with libcst. A linting run screens in processes that
never import libcst, whose import alone costs as much as screening a whole corpus.
"""
from __future__ import annotations

import re
import symtable
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import FrozenSet, List, Optional, Set, Tuple

from hyblint.analysis.module import ModuleFacts, collect_imports, in_scope_classes, scan_classes
from hyblint.analysis.screen import can_screen, may_report
from hyblint.diagnostics import Diagnostic, Location, Severity, physical_lines
from hyblint.selection import selected_codes
from hyblint.settings import Settings

NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*))?", re.IGNORECASE)
SYNTAX_ERROR = "HYB900"
_DEF = re.compile(r"^(?P<indent>[ \t]*)def[ \t]+hybrid_forward\b", re.MULTILINE)


@dataclass
class Snippet:
    """One hybrid_forward cut out of a file: its text dedented, and where it came from."""

    text: str
    row: int      # 1-based row of the snippet's first line in the file
    indent: str   # the indentation removed from every line


@dataclass
class Triage:
    """What the first half learned about a file, and what is left for the second."""

    source: str
    filename: str
    codes: Tuple[str, ...]                       # the selected rules
    imports: ModuleFacts = field(default_factory=ModuleFacts)
    scope: Set[str] = field(default_factory=set)  # the classes whose hybrid_forward is checked
    snippets: List[Snippet] = field(default_factory=list)  # methods the screen could not clear
    whole_module: bool = False                   # a method could not be cut out: parse the file
    diagnostics: List[Diagnostic] = field(default_factory=list)  # final when nothing is left

    @property
    def settled(self) -> bool:
        return not self.snippets and not self.whole_module


def triage(source: str, filename: str, settings: Settings = Settings(), *,
           extra_hybrid_classes: FrozenSet[str] = frozenset()) -> Triage:
    codes = selected_codes(settings)
    result = Triage(source, filename, codes)
    if "hybrid_forward" not in source:
        return result  # nothing in scope: such files are not even parsed
    error = syntax_error(source, filename)
    if error is not None:
        result.diagnostics.append(error)
        return result
    classes = scan_classes(source)
    result.scope = in_scope_classes(classes, settings.hybrid_bases, extra_hybrid_classes)
    result.imports = collect_imports(source)
    snippets = _cut_snippets(source, classes, result.scope)
    if snippets is None:
        result.whole_module = True
        return result
    if can_screen(codes):
        aliases = tuple(sorted(result.imports.aliases.items()))
        result.snippets = [s for s in snippets if _screened(s.text, result.imports, aliases)]
    else:
        result.snippets = snippets
    return result


# The screen's verdict per method text and imports: the language server triages a file on every
# keystroke, and only the method being edited changes.
_VERDICTS: "OrderedDict[tuple, bool]" = OrderedDict()
_VERDICTS_SIZE = 4096


def _screened(text: str, imports: ModuleFacts, aliases: tuple) -> bool:
    """Whether the method `text` may have something to report (see `analysis.screen`)."""
    key = (text, aliases)
    verdict = _VERDICTS.get(key)
    if verdict is None:
        verdict = _VERDICTS[key] = may_report(text, imports)
        if len(_VERDICTS) > _VERDICTS_SIZE:
            _VERDICTS.popitem(last=False)
    else:
        _VERDICTS.move_to_end(key)
    return verdict


def _cut_snippets(source: str, classes, scope) -> Optional[List[Snippet]]:
    """The in-scope hybrid_forward methods, cut out and dedented; None when one cannot be."""
    lines: List[str] = []
    snippets = []
    row, counted = 0, 0  # the 0-based line that starts at offset `counted`
    owners = _Owners(classes)
    for match in _DEF.finditer(source):
        indent = match.group("indent")
        owner = owners.at(match.start(), len(indent.expandtabs()))
        if owner is None or owner not in scope:
            continue
        lines = lines or physical_lines(source, keepends=True)  # once a method is in scope
        row += _line_breaks(source, counted, match.start())
        counted = match.start()
        first = row  # 0-based line of the def
        while first > 0 and lines[first - 1].strip().startswith("@"):
            first -= 1                                   # decorators belong to the method
        text = []
        for number in range(first, len(lines)):
            line = lines[number]
            stripped = line.strip()
            if number > first and stripped and not line.startswith(indent + " ") \
                    and not line.startswith(indent + "\t") and not stripped.startswith(("#", ")", "]", "}")):
                if not lines[number - 1].rstrip().endswith(("\\", ",", "(", "[", "{")):
                    break
            if not stripped:
                text.append(line[len(line.rstrip("\r\n")):] or "\n")
            elif line.startswith(indent):
                text.append(line[len(indent):])
            elif stripped.startswith("#"):
                text.append(line.lstrip(" \t"))
            else:
                return None  # a continuation less indented than the method: parse it all
        while text and not text[-1].strip():
            text.pop()
        snippets.append(Snippet("".join(text), first + 1, indent))
    return snippets


def _line_breaks(source: str, start: int, end: int) -> int:
    """How many lines end between two offsets that start lines."""
    if "\r" not in source:
        return source.count("\n", start, end)
    return len(physical_lines(source[start:end], keepends=True))


class _Owners:
    """The innermost class enclosing a method: the last class line above it that is less indented.
    Asked in source order, it keeps the class lines above that could still be the answer, one per
    indentation, innermost last (a later class line hides earlier ones indented as much or more),
    so that a file of many classes costs one pass, not a scan of every class per method."""

    def __init__(self, classes) -> None:
        self.classes = classes
        self.next = 0      # the first class line not yet passed
        self.open: list = []

    def at(self, offset: int, indent: int) -> Optional[str]:
        while self.next < len(self.classes) and self.classes[self.next].offset < offset:
            line = self.classes[self.next]
            while self.open and self.open[-1].indent >= line.indent:
                self.open.pop()
            self.open.append(line)
            self.next += 1
        for line in reversed(self.open):
            if line.indent < indent:
                return line.name
        return None


def suppressed(lines: List[str], row: int, code: str) -> bool:
    """Whether a `# noqa` comment on `row` silences `code`."""
    if row - 1 >= len(lines):
        return False
    match = NOQA.search(lines[row - 1])
    if match is None:
        return False
    codes = match.group("codes")
    if codes is None:
        return True
    return code in {c.strip().upper() for c in codes.split(",")}


def syntax_error(source: str, filename: str) -> Optional[Diagnostic]:
    """Python's own parser's verdict. Its symbol table is the cheapest way to run it: 40% less than
    compiling to bytecode, and several times less than building an `ast` tree. (What only the
    bytecode compiler rejects, such as `return` outside a function, parses; pyflakes reports it.)"""
    try:
        symtable.symtable(source, filename, "exec")
    except SyntaxError as exc:
        row = exc.lineno or 1
        column = max(exc.offset or 1, 1)
        return Diagnostic(SYNTAX_ERROR, "syntax error: %s" % exc.msg, filename, Location(row, column),
                          Location(row, column), Severity.ERROR)
    except (ValueError, RecursionError, MemoryError) as exc:
        return Diagnostic(SYNTAX_ERROR, "cannot parse: %s" % exc, filename, Location(1, 1), Location(1, 1),
                          Severity.ERROR)
    return None
