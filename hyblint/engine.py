"""Check one source text: find hybrid_forward methods, run the rules, make diagnostics.

Only the hybrid_forward methods of in-scope classes are parsed (each cut out of the text and
dedented), because parsing whole modules with libcst costs far more than the analysis. Imports
and class lines are read from the text. When a method cannot be cut out cleanly, the whole
module is parsed instead.
"""
from __future__ import annotations

import bisect
import itertools
import re
import symtable
from collections import OrderedDict
from dataclasses import dataclass
from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Type

import libcst as cst

from hyblint.analysis.function import analyze
from hyblint.analysis.module import ModuleFacts, collect_imports, in_scope_classes, scan_classes
from hyblint.analysis.screen import can_screen, may_report
from hyblint.diagnostics import Diagnostic, Edit, Fix, Location, Severity, physical_lines
from hyblint.fixes._code import block_indent, render
from hyblint.positions import positions_of
from hyblint.rules import ALL_RULES
from hyblint.rules.base import REMOVE, Rule, Violation
from hyblint.settings import Settings

NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*))?", re.IGNORECASE)
SYNTAX_ERROR = "HYB900"
_DEF = re.compile(r"^(?P<indent>[ \t]*)def[ \t]+hybrid_forward\b", re.MULTILINE)


def selected_rules(settings: Settings) -> List[Type[Rule]]:
    """Rules enabled by select / extend-select / ignore, matched by code prefix like ruff."""
    def matches(code: str, patterns: Iterable[str]) -> int:
        # the length of the longest matching pattern: the more specific pattern wins
        best = -1
        for pattern in patterns:
            pattern = pattern.strip().upper()
            if pattern == "ALL":
                best = max(best, 0)
            elif pattern and code.startswith(pattern):
                best = max(best, len(pattern))
        return best

    chosen = []
    for code, rule in ALL_RULES.items():
        if settings.select is None:
            level = matches(code, settings.extend_select)
            on = rule.default_selected or level >= 0
        else:
            level = max(matches(code, settings.select), matches(code, settings.extend_select))
            on = level >= 0
        ignored = matches(code, settings.ignore)
        if on and (ignored < 0 or ignored < level):
            chosen.append(rule)
    return chosen


@dataclass
class _Snippet:
    """One hybrid_forward cut out of a file: its text dedented, and where it came from."""

    text: str
    row: int      # 1-based row of the snippet's first line in the file
    indent: str   # the indentation removed from every line


# Results per method text: an edit elsewhere in a file (the language server re-checks on every
# keystroke) re-analyzes only the methods that changed.
_SNIPPET_CACHE: "OrderedDict[tuple, List[Diagnostic]]" = OrderedDict()
_SNIPPET_CACHE_SIZE = 4096


def check_source(source: str, filename: str, settings: Settings = Settings(), *,
                 extra_hybrid_classes: FrozenSet[str] = frozenset()) -> List[Diagnostic]:
    if "hybrid_forward" not in source:
        return []  # nothing in scope: such files are not even parsed
    error = _syntax_error(source, filename)
    if error is not None:
        return [error]
    classes = scan_classes(source)
    scope = in_scope_classes(classes, settings.hybrid_bases, extra_hybrid_classes)
    imports = collect_imports(source)
    rules = selected_rules(settings)
    snippets = _cut_snippets(source, classes, scope)
    if snippets is None:
        return _check_whole_module(source, filename, rules, imports, scope)
    codes = tuple(r.code for r in rules)
    context = (tuple(sorted(imports.aliases.items())), codes, can_screen(codes))
    lines: List[str] = []
    diagnostics: List[Diagnostic] = []
    for snippet in snippets:
        relative = _check_snippet(snippet.text, context, rules, imports)
        if relative is None:
            return _check_whole_module(source, filename, rules, imports, scope)
        for d in relative:
            placed = _place(d, filename, snippet.row - 1, snippet.indent)
            lines = lines or physical_lines(source)  # for noqa comments, once there is something to report
            if not _suppressed(lines, placed.location.row, placed.code):
                diagnostics.append(placed)
    diagnostics.sort(key=Diagnostic.sort_key)
    return diagnostics


def _check_snippet(text: str, context, rules, imports) -> Optional[List[Diagnostic]]:
    """Diagnostics of one dedented method, positioned within it (None: it does not parse alone)."""
    key = (text, context)
    found = _SNIPPET_CACHE.get(key)
    if found is not None:
        _SNIPPET_CACHE.move_to_end(key)
        return found
    if context[2] and not may_report(text, imports):
        found = []  # the screen proves it clean: no libcst parse
    else:
        try:
            module = cst.parse_module(text)
        except (cst.ParserSyntaxError, RecursionError, ValueError):
            return None
        found = _check_parsed(module, text, rules, imports)
    _SNIPPET_CACHE[key] = found
    if len(_SNIPPET_CACHE) > _SNIPPET_CACHE_SIZE:
        _SNIPPET_CACHE.popitem(last=False)
    return found


def _check_parsed(module: cst.Module, text: str, rules, imports) -> List[Diagnostic]:
    functions = [s for s in module.body if isinstance(s, cst.FunctionDef) and s.name.value == "hybrid_forward"]
    violations = run_rules(module, functions, rules, imports)
    return to_diagnostics(module, text, "", violations, 0, "", apply_noqa=False) if violations else []


def _place(d: Diagnostic, filename: str, row_offset: int, indent: str) -> Diagnostic:
    """A method's diagnostic moved to where the method is in the file."""
    shift = len(indent)

    def move(location: Location) -> Location:
        return Location(location.row + row_offset, location.column + shift)

    fix = d.fix
    if fix is not None:
        edits = []
        for e in fix.edits:
            content = e.content
            if indent and "\n" in content:
                # the method was dedented: lines after the first get its indentation back
                first, *rest = content.split("\n")
                content = "\n".join([first] + [indent + line if line.strip() else line for line in rest])
            if e.location.column == 1 and e.end_location.column == 1 and not e.content:
                edits.append(Edit(content, Location(e.location.row + row_offset, 1),
                                  Location(e.end_location.row + row_offset, 1)))  # a removed line
            else:
                edits.append(Edit(content, move(e.location), move(e.end_location)))
        fix = Fix(fix.applicability, fix.message, tuple(edits))
    return Diagnostic(d.code, d.message, filename, move(d.location), move(d.end_location), d.severity, fix, d.url)


def _cut_snippets(source: str, classes, scope) -> Optional[List[_Snippet]]:
    """The in-scope hybrid_forward methods, cut out and dedented; None when one cannot be."""
    lines = physical_lines(source, keepends=True)
    starts = list(itertools.accumulate((len(line) for line in lines), initial=0))
    snippets = []
    for match in _DEF.finditer(source):
        indent = match.group("indent")
        owner = _owner_class(classes, match.start(), len(indent.expandtabs()))
        if owner is None or owner not in scope:
            continue
        first = bisect.bisect_right(starts, match.start()) - 1  # 0-based line of the def
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
        snippets.append(_Snippet("".join(text), first + 1, indent))
    return snippets


def _owner_class(classes, offset: int, indent: int) -> Optional[str]:
    """The innermost class enclosing a method: the last class line above it that is less indented."""
    candidates = [c for c in classes if c.offset < offset and c.indent < indent]
    return candidates[-1].name if candidates else None


def _check_whole_module(source, filename, rules, imports, scope) -> List[Diagnostic]:
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        # Python's own parser names the cause and the place more precisely, when it disagrees too
        return [_syntax_error(source, filename) or _parse_failure(exc, filename)]
    except (RecursionError, ValueError) as exc:
        return [Diagnostic(SYNTAX_ERROR, "cannot parse: %s" % exc, filename, Location(1, 1), Location(1, 1),
                           Severity.ERROR)]
    functions = list(_hybrid_forwards(module, scope))
    violations = run_rules(module, functions, rules, imports)
    return to_diagnostics(module, source, filename, violations, 0, "") if violations else []


def run_rules(module: cst.Module, functions: Sequence[cst.FunctionDef], rules: Sequence[Type[Rule]],
              imports: ModuleFacts) -> List[Violation]:
    instances = [rule(module, imports) for rule in rules]
    dispatch: Dict[type, List] = {}
    for instance in instances:
        for node_type, attr in _visitors(type(instance)):
            dispatch.setdefault(node_type, []).append(getattr(instance, attr))
    for function in functions:
        facts = analyze(function, imports)
        if facts is None:
            continue
        for instance in instances:
            instance.facts = facts
            instance.function = function
        _dispatch(facts, dispatch)
    return [v for instance in instances for v in instance.violations]


_VISITORS: Dict[type, list] = {}


def _visitors(rule: type) -> list:
    """(node type, method name) for each `visit_<NodeType>` method of a rule class."""
    found = _VISITORS.get(rule)
    if found is None:
        found = _VISITORS[rule] = [(getattr(cst, attr[6:]), attr) for attr in dir(rule)
                                   if attr.startswith("visit_") and hasattr(cst, attr[6:])]
    return found


_NESTED_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def _dispatch(facts, dispatch) -> None:
    """Each rule handler on the nodes of its type, in source order, over the analysis's list of
    the body's nodes; code that runs only imperatively (`if F is nd:`) is skipped, and nested
    functions and classes, which have their own scopes, are visited but not entered."""
    nodes, ends, skipped = facts.nodes, facts.ends, facts.imperative_only
    index, count = 0, len(nodes)
    while index < count:
        node = nodes[index]
        if node in skipped:
            index = ends[index]
            continue
        for handler in dispatch.get(type(node), ()):
            handler(node)
        index = ends[index] if isinstance(node, _NESTED_SCOPES) else index + 1


def _hybrid_forwards(module: cst.Module, scope) -> Iterable[cst.FunctionDef]:
    stack: List[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        body = getattr(node, "body", ())
        body = body.body if isinstance(body, cst.BaseSuite) and hasattr(body, "body") else body
        for child in body if isinstance(body, (list, tuple)) else ():
            if isinstance(child, cst.ClassDef):
                if child.name.value in scope:
                    for statement in child.body.body:
                        if isinstance(statement, cst.FunctionDef) and statement.name.value == "hybrid_forward":
                            yield statement
                stack.append(child)
            elif isinstance(child, (cst.If, cst.Try, cst.FunctionDef)):
                stack.append(child)


def to_diagnostics(module: cst.Module, source: str, filename: str, violations: List[Violation],
                   row_offset: int, indent: str, apply_noqa: bool = True) -> List[Diagnostic]:
    """Diagnostics with positions in the file, for violations found in `module` (a whole module,
    or a method cut out `row_offset` rows down and dedented by `indent`)."""
    positions = positions_of(module)  # only when there is something to report
    lines = physical_lines(source)
    shift = len(indent)

    def place(position) -> Location:
        return Location(position.line + row_offset, position.column + 1 + shift)

    diagnostics = []
    seen = set()
    for violation in violations:
        span = positions[violation.node]
        start, end = place(span.start), place(span.end)
        key = (violation.rule.code, start, end)
        if key in seen:
            continue
        seen.add(key)
        if apply_noqa and _suppressed(lines, start.row, violation.rule.code):
            continue
        fix = None
        if violation.fix is not None:
            edits = tuple(_edit(module, positions, old, new, place) for old, new in violation.fix.replacements)
            fix = Fix(violation.fix.applicability, violation.fix.message, edits)
        diagnostics.append(Diagnostic(violation.rule.code, violation.message, filename, start, end,
                                      violation.rule.severity, fix, violation.rule.url()))
    diagnostics.sort(key=Diagnostic.sort_key)
    return diagnostics


def _edit(module, positions, old, new, place) -> Edit:
    span = positions[old]
    start, end = place(span.start), place(span.end)
    if new is REMOVE:
        # the whole line(s) of the statement, newline included
        return Edit("", Location(start.row, 1), Location(end.row + 1, 1))
    # rendered inside its block, so that lines continued in brackets keep their indentation
    content = new if isinstance(new, str) else render(new, block_indent(module, old), module)
    if isinstance(old, cst.SimpleStatementLine):
        content = content.rstrip("\n")
    return Edit(content, start, end)


def _suppressed(lines: List[str], row: int, code: str) -> bool:
    if row - 1 >= len(lines):
        return False
    match = NOQA.search(lines[row - 1])
    if match is None:
        return False
    codes = match.group("codes")
    if codes is None:
        return True
    return code in {c.strip().upper() for c in codes.split(",")}


def _syntax_error(source: str, filename: str) -> Optional[Diagnostic]:
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


def _parse_failure(exc: cst.ParserSyntaxError, filename: str) -> Diagnostic:
    row, column = exc.raw_line, exc.raw_column + 1
    reason = exc.message.splitlines()[0] if exc.message else "invalid syntax"
    return Diagnostic(SYNTAX_ERROR, "syntax error: %s" % reason, filename, Location(row, column),
                      Location(row, column), Severity.ERROR)
