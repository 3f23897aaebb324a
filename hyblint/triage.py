"""The first half of checking a file, which needs no libcst: which of its methods need the full check.

Python's parser checks the syntax; class and import lines are read from the text; each in-scope
hybrid_forward is cut out and dedented, and the `ast` screen clears those where no selected rule
can report. What is left, usually a few methods of a few files, goes to the second half
(`hyblint.engine.finish`), which parses it with libcst. A linting run screens in processes that
never import libcst, whose import alone costs as much as screening a whole corpus.
"""
from __future__ import annotations

import _symtable
import ast
import re
import symtable
from dataclasses import dataclass, field
from typing import Callable, Dict, FrozenSet, List, Optional, Set, Tuple

from hyblint.analysis.index import ClassContext, Helper, Package, block_end, definition, helpers, nodes_of
from hyblint.analysis.kinds import Kind
from hyblint.analysis.module import (ClassLine, ModuleFacts, collect_imports, in_scope_classes, line_matches,
                                     scan_classes)
from hyblint.analysis.screen import can_screen, may_report
from hyblint.diagnostics import Diagnostic, Location, Severity, physical_lines
from hyblint.guard import guarded
from hyblint.recent import Recent
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
    owner: str = ""  # the class it belongs to
    # where its def line starts in the file, when that is its first line (no decorators); else -1
    start: int = -1


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
    # what the package index knows of the classes whose methods are left (by class name)
    context: Dict[str, ClassContext] = field(default_factory=dict)
    # the methods and functions its hybrid_forwards call with F or tensors, cut out like methods
    helpers: List[Tuple[Helper, Snippet]] = field(default_factory=list)

    @property
    def settled(self) -> bool:
        return not self.snippets and not self.whole_module


def triage(source: str, filename: str, settings: Settings = Settings(), *,
           extra_hybrid_classes: FrozenSet[str] = frozenset(), exact: bool = False) -> Triage:
    """`exact`: take the classes from Python's tree and parse the whole module, never the
    text scan (what `tools/check_screen.py` and the tests compare triage with)."""
    codes = selected_codes(settings)

    def failed(diagnostics: List[Diagnostic]) -> Triage:
        return Triage(source, filename, codes, diagnostics=diagnostics)
    return guarded(_triage, filename, failed, source, filename, settings, codes, extra_hybrid_classes, exact)


def _triage(source: str, filename: str, settings: Settings, codes: Tuple[str, ...],
            extra_hybrid_classes: FrozenSet[str], exact: bool) -> Triage:
    result = Triage(source, filename, codes)
    if "hybrid_forward" not in source:
        return result  # nothing in scope: such files are not even parsed
    listed, error = _listing(source, filename, by_parts=_seen_before(filename))
    if error is not None:
        result.diagnostics.append(error)
        return result
    confirmed = None if exact else _confirmed(source, scan_classes(source), listed)
    if confirmed is None:
        # the text scan missed or misplaced a class or method (a form feed, a line continued
        # after `class` or `def`, lone CR line endings): the classes come from Python's own
        # tree, and the whole module is parsed
        plain = _LONE_CR.sub("\n", source)  # the same offsets, lines Python counts alike
        result.scope = in_scope_classes(_exact_classes(plain), settings.hybrid_bases, extra_hybrid_classes,
                                        getattr(extra_hybrid_classes, "plain", frozenset()))
        result.imports = collect_imports(plain)
        result.whole_module = True
        return result
    classes, methods = confirmed
    result.scope = in_scope_classes(classes, settings.hybrid_bases, extra_hybrid_classes,
                                    getattr(extra_hybrid_classes, "plain", frozenset()))
    result.imports = collect_imports(source)
    snippets = _cut_snippets(source, classes, result.scope, methods)
    if snippets is None:
        result.whole_module = True
        return result
    if can_screen(codes):
        aliases = tuple(sorted(result.imports.aliases.items()))
        helpers = _helper_texts(source)
        result.snippets = [s for s in snippets if _screened(s.text, result.imports, aliases, helpers,
                                                            tree=_tree_of(source, s))]
    else:
        result.snippets = snippets
    return result


_CALLED_ATTRIBUTE = re.compile(r"self\.(\w+)[ \t]*\(")


def with_context(first: Triage, package: Package) -> Triage:
    """`first` with what the package index knows of the classes whose methods are left, and the
    helpers their hybrid_forwards call with F or tensors (here, without libcst: a linting run
    reads the index in the process that holds every file's text)."""
    if not first.settled:
        if first.whole_module:
            owners, called = first.scope, None
        else:  # only the children that the methods left call
            owners = {s.owner for s in first.snippets}
            called = {name for s in first.snippets for name in _CALLED_ATTRIBUTE.findall(s.text)}
        first.context = package.context(first.filename, owners, first.source, called)
        if not first.whole_module and can_screen(first.codes):
            _screen_again(first)
            if first.settled:
                return first
        for helper in helpers(package, first.filename, first.scope):
            snippet = cut_lines(first.source, helper.row, helper.end_row)
            if snippet is not None:
                first.helpers.append((helper, snippet))
    return first


# What the index may say callers pass that makes a parameter no tensor (or unknown) to the analysis.
_NOT_A_TENSOR = frozenset({Kind.PYTHON, Kind.UNKNOWN, Kind.SEQUENCE, Kind.GROUP})


def _screen_again(first: Triage) -> None:
    """Drop the methods the screen clears once it knows what the index says their callers pass (a
    list, Python values) and what their children return: `x[0]` on a parameter every caller gives
    a list is not a tensor's, nor `y[0]` on a child's result, a tensor or a tuple of them."""
    texts = aliases = None
    kept = []
    for snippet in first.snippets:
        context = first.context.get(snippet.owner)
        received = {name: kind for name, kind, _ in context.parameters} if context is not None else {}
        if any(kind in _NOT_A_TENSOR for kind in received.values()) or _CALLED_ATTRIBUTE.search(snippet.text):
            texts = texts or _helper_texts(first.source)
            children = dict(context.children) if context is not None else {}
            if aliases is None:
                aliases = tuple(sorted(first.imports.aliases.items()))
            if not _screened(snippet.text, first.imports, aliases, texts, received, children,
                             tree=_tree_of(first.source, snippet)):
                continue
        kept.append(snippet)
    first.snippets = kept


# The screen's verdict per method text and imports: the language server triages a file on every
# keystroke, and only the method being edited changes.
_VERDICTS: "Recent[tuple, tuple]" = Recent(4096)


def _tree_of(source: str, snippet: Snippet) -> Optional[Callable[[], Optional[tuple]]]:
    """How to get the tree of a snippet from the index's definitions (`index.definition`), when the
    snippet is the lines that one parses (from its def line to its block's end): the index reads
    the same methods in this process, and each is then parsed once (asked for only when the
    screen has no verdict on the text yet: an edit in the editor changes one method)."""
    if snippet.start < 0:
        return None

    def tree() -> Optional[tuple]:
        indent = len(snippet.indent.expandtabs())
        stop = end = block_end(source, snippet.start, indent)
        while end > snippet.start and source[end - 1] in " \t\r\n":
            end -= 1
        if source.count("\n", snippet.start, end) != snippet.text.rstrip().count("\n"):
            return None  # (other lines than the snippet's: the text is parsed)
        function = definition(source, snippet.start, indent, snippet.row - 1, end=stop)
        return None if function is None else (function, nodes_of(function))
    return tree


def _screened(text: str, imports: ModuleFacts, aliases: tuple, helpers: "_HelperTexts",
              received: Optional[Dict[str, Kind]] = None, children: Optional[Dict[str, Kind]] = None,
              tree: Optional[Callable[[], Optional[tuple]]] = None) -> bool:
    """Whether the method `text` may have something to report (see `analysis.screen`), in itself or
    in the helpers it calls with F or tensors (a verdict stands while their texts do), given what
    the index says of its callers and children (None: not read yet). `tree`: the method's tree
    and nodes, from the index's definitions (parsed from the text when it gives none)."""
    key = (text, aliases, tuple(sorted(received.items())) if received else (),
           None if children is None else tuple(sorted(children.items())))
    found = _VERDICTS.recall(key)
    if found is not None and all(helpers(name) == texts for name, texts in found[1]):
        return found[0]
    consulted = helpers.record()
    parsed = tree() if tree is not None else None
    verdict = may_report(text, imports, consulted, received, children, parsed=parsed)
    _VERDICTS.keep(key, (verdict, tuple(consulted.asked.items())))
    return verdict


_DEF_LINE = re.compile(r"^(?P<indent>[ \t]*)def[ \t]+(?P<name>\w+)", re.MULTILINE)


# The helper texts (and the screen's verdicts on them) of the files triaged last: the second
# screening of a file's methods, once the index is read, asks for the same helpers again.
_HELPERS: "Recent[str, _HelperTexts]" = Recent(16)


def _helper_texts(source: str) -> "_HelperTexts":
    found = _HELPERS.recall(source)
    return found if found is not None else _HELPERS.keep(source, _HelperTexts(source))


class _HelperTexts:
    """The texts of a file's functions and methods by name, dedented, for the screen of helpers."""

    def __init__(self, source: str):
        self.source = source
        self.found: Dict[str, Optional[List[str]]] = {}
        self._defs: Optional[Dict[str, List[Tuple[int, str]]]] = None
        self.verdicts: Dict[tuple, bool] = {}  # the screen's, per (helper text, F's place): one file, one imports

    def record(self) -> "_Recorded":
        """A view that remembers what was asked through it."""
        return _Recorded(self)

    def __call__(self, name: str) -> Optional[List[str]]:
        if name not in self.found:
            self.found[name] = self._texts(name)
        return self.found[name]

    def _texts(self, name: str) -> Optional[List[str]]:
        if self._defs is None:  # every def line of the file, in one pass
            self._defs = {}
            for match in line_matches(_DEF_LINE, "def", self.source):
                self._defs.setdefault(match.group("name"), []).append((match.start(), match.group("indent")))
        texts = []
        for start, indent in self._defs.get(name, ()):
            end = block_end(self.source, start, len(indent.expandtabs()))
            lines = physical_lines(self.source[start:end], keepends=True)
            if any(line.strip() and not line.startswith(indent) for line in lines):
                return None  # a continuation less indented than the definition
            texts.append("".join(line[len(indent):] if line.strip() else "\n" for line in lines))
        return texts


class _Recorded:
    def __init__(self, texts: _HelperTexts):
        self.texts = texts
        self.asked: Dict[str, Optional[List[str]]] = {}
        self.verdicts = texts.verdicts

    def __call__(self, name: str) -> Optional[List[str]]:
        found = self.asked[name] = self.texts(name)
        return found


def _cut_snippets(source: str, classes, scope, methods) -> Optional[List[Snippet]]:
    """The in-scope hybrid_forward methods (their def lines' matches, in order), cut out and
    dedented; None when one cannot be."""
    lines: List[str] = []
    snippets = []
    row, counted = 0, 0  # the 0-based line that starts at offset `counted`
    owners = _Owners(classes)
    for match in methods:
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
        snippets.append(Snippet("".join(text), first + 1, indent, owner, match.start() if first == row else -1))
    return snippets


_LONE_CR = re.compile(r"\r(?!\n)")


def _confirmed(source: str, classes, listed):
    """(the class lines, the hybrid_forward def lines) that the text scan found and Python's symbol
    table confirms, the class each method belongs to included; None when the scan missed one the
    table lists, or misplaced it. What the scan found and the table does not list (a class or
    method written in a docstring, as examples are) is left out: it is not code."""
    if "\r" in source and _LONE_CR.search(source):
        return None  # the scans count lines by \n
    expected_classes, expected_methods = listed
    listed = set(expected_classes)
    rows = _rows(source, [c.offset for c in classes])
    kept = [(row, c) for row, c in zip(rows, classes) if (row, c.name) in listed]
    if len(kept) < len(classes):
        classes = [c for _, c in kept]
    if sorted(expected_classes) != sorted((row, c.name) for row, c in kept):
        return None
    matches = list(line_matches(_DEF, "hybrid_forward", source))
    rows = _rows(source, [m.start() for m in matches])
    owners = _Owners(classes)
    found = [(row, owners.at(m.start(), len(m.group("indent").expandtabs())), m) for row, m in zip(rows, matches)]
    listed = set(expected_methods)
    found = [(row, owner, m) for row, owner, m in found if (row, owner) in listed]
    if sorted(expected_methods, key=str) != sorted(((row, owner) for row, owner, _ in found), key=str):
        return None
    return classes, [m for _, _, m in found]


def _listed(table) -> Tuple[List[Tuple[int, str]], List[Tuple[int, Optional[str]]]]:
    """(row, name) of every class the symbol table lists, and (row, class) of every hybrid_forward
    function (the class None when it is not a method)."""
    raw = getattr(table, "_table", None)
    if raw is not None and hasattr(_symtable, "TYPE_CLASS") and hasattr(raw, "children"):
        return _listed_raw(raw)
    return _listed_wrapped(table)


def _listed_wrapped(table):
    classes, methods = [], []
    stack = [(table, None)]
    while stack:
        scope, owner = stack.pop()
        for child in scope.get_children():
            if child.get_type() == "class":
                classes.append((child.get_lineno(), child.get_name()))
                stack.append((child, child.get_name()))
            else:
                if child.get_name() == "hybrid_forward" and child.get_type() == "function":
                    methods.append((child.get_lineno(), owner))
                if child.get_children():
                    stack.append((child, None))
    return classes, methods


def _listed_raw(table):
    """`_listed` over the symbol table's own entries, which the `symtable` module wraps one by one
    as it is walked (through a weak-reference cache: most of the walk's cost)."""
    classes, methods = [], []
    klass, function = _symtable.TYPE_CLASS, _symtable.TYPE_FUNCTION
    stack = [(table, None)]
    while stack:
        scope, owner = stack.pop()
        for child in scope.children:
            if child.type == klass:
                classes.append((child.lineno, child.name))
                stack.append((child, child.name))
            else:
                if child.name == "hybrid_forward" and child.type == function:
                    methods.append((child.lineno, owner))
                if child.children:
                    stack.append((child, None))
    return classes, methods


def _rows(source: str, offsets: List[int]) -> List[int]:
    """1-based rows of increasing offsets (lines end at \n here)."""
    rows, row, counted = [], 1, 0
    for offset in offsets:
        row += source.count("\n", counted, offset)
        counted = offset
        rows.append(row)
    return rows


def _exact_classes(source: str):
    """The module's classes from Python's `ast` tree, as the text scan would list them."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef):
            bases = tuple(ast.unparse(b).rsplit(".", 1)[-1] for b in node.bases)
            decorators = tuple(ast.unparse(d.func if isinstance(d, ast.Call) else d).rsplit(".", 1)[-1]
                               for d in node.decorator_list)
            found.append(ClassLine(node.name, node.col_offset, 0, bases, decorators))
    return found
def cut_lines(source: str, first: int, last: int) -> Optional[Snippet]:
    """Rows `first` to `last` (1-based, inclusive) dedented by the first row's indentation; None
    when a line is indented less (a continuation the cut would break)."""
    lines = physical_lines(source, keepends=True)[first - 1:last]
    if not lines:
        return None
    indent = lines[0][:len(lines[0]) - len(lines[0].lstrip(" \t"))]
    text = []
    for line in lines:
        if not line.strip():
            text.append(line[len(line.rstrip("\r\n")):] or "\n")
        elif line.startswith(indent):
            text.append(line[len(indent):])
        else:
            return None
    return Snippet("".join(text), first, indent)


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


# A top-level definition, where a module may be cut into parts that Python parses alone.
_TOP_DEFINITION = re.compile(r"^(?:class|def|async[ \t]+def)\b", re.MULTILINE)
# What a part parsed alone could accept although the whole module is rejected: a module-level
# `global` after the name was bound in another part. (A `__future__` import below the top is the
# bytecode compiler's to reject, as `return` outside a function: neither parses otherwise whole.)
_NEEDS_THE_WHOLE = re.compile(r"^global\b", re.MULTILINE)
# The listing of each part by its text (an edit in the editor changes one part of a module).
_PARTS: "Recent[str, tuple]" = Recent(4096)


def _parts(source: str) -> Optional[List[Tuple[int, str]]]:
    """(rows before it, text) of each part of the module, cut before top-level class and def
    lines (a decorator above stays with its definition); None when it should be parsed whole."""
    cuts = [0]
    for match in _TOP_DEFINITION.finditer(source):
        start = match.start()
        while start > 0:  # the decorators right above belong to the definition
            above = source.rfind("\n", 0, start - 1) + 1
            if not source.startswith("@", above):
                break
            start = above
        if start > cuts[-1]:
            cuts.append(start)
    if len(cuts) < 3 or _NEEDS_THE_WHOLE.search(source, cuts[1]) is not None:
        return None
    cuts.append(len(source))
    parts, rows = [], 0
    for begin, end in zip(cuts, cuts[1:]):
        text = source[begin:end]
        parts.append((rows, text))
        rows += text.count("\n")
    return parts


# The files triaged in this process, most recent last: a file seen again is being edited (the
# language server checks it on every keystroke), and is parsed part by part from then on.
_SEEN: "Recent[str, bool]" = Recent(_PARTS.size)


def _seen_before(filename: str) -> bool:
    seen = _SEEN.recall(filename, False)
    if not seen:
        _SEEN.keep(filename, True)
    return seen


def _listing(source: str, filename: str, by_parts: bool = True):
    """((the class rows and names, the hybrid_forward rows and classes) the symbol table lists,
    None), or (None, the syntax error). A module of several top-level definitions is parsed part
    by part, each part's listing kept by its text: when every part parses alone, so does the whole
    (a part that ends in an open bracket, string or block, or starts with a clause of the part
    above, fails alone); when one does not, the whole is parsed, for Python's own verdict. An edit
    in the editor then parses only the definition it changed. `by_parts` False: the module is
    parsed whole, which costs a fifth less when its parts' listings will not be asked for again
    (a check of a tree reads each file once)."""
    lone_cr = "\r" in source and _LONE_CR.search(source) is not None  # (rows are counted by \n)
    parts = None if lone_cr or not by_parts else _parts(source)
    if parts is not None:
        classes, methods = [], []
        for rows, text in parts:
            found = _PARTS.recall(text)
            if found is None:
                try:
                    found = _listed(symtable.symtable(text, filename, "exec"))
                except (SyntaxError, ValueError, MemoryError):
                    break
                _PARTS.keep(text, found)
            classes += [(row + rows, name) for row, name in found[0]]
            methods += [(row + rows, owner) for row, owner in found[1]]
        else:
            return (classes, methods), None
    table, error = _symbols(source, filename)
    return (None if table is None else _listed(table)), error


def syntax_error(source: str, filename: str) -> Optional[Diagnostic]:
    """Python's own parser's verdict (see `_symbols`)."""
    return _symbols(source, filename)[1]


def _symbols(source: str, filename: str):
    """(the module's symbol table, None) or (None, its syntax error). The symbol table is the
    cheapest way to run Python's own parser: 40% less than compiling to bytecode, and several
    times less than building an `ast` tree. (What only the bytecode compiler rejects, such as
    `return` outside a function, parses; pyflakes reports it.) Too deep a nesting raises
    RecursionError, for the caller's guard to retry with a larger stack."""
    try:
        return symtable.symtable(source, filename, "exec"), None
    except SyntaxError as exc:
        row = exc.lineno or 1
        column = max(exc.offset or 1, 1)
        return None, Diagnostic(SYNTAX_ERROR, "syntax error: %s" % exc.msg, filename, Location(row, column),
                                Location(row, column), Severity.ERROR)
    except RecursionError:
        raise
    except (ValueError, MemoryError) as exc:
        return None, cannot_parse(filename, exc)


def cannot_parse(filename: str, exc: BaseException) -> Diagnostic:
    reason = str(exc).strip() or type(exc).__name__
    return Diagnostic(SYNTAX_ERROR, "cannot parse: %s" % reason, filename, Location(1, 1), Location(1, 1),
                      Severity.ERROR)
