"""Check one source text: the second half, which parses with libcst what the first half (`triage`)
left, runs the rules, and makes diagnostics.

Only the hybrid_forward methods of in-scope classes that the screen could not clear are parsed,
each cut out of the text and dedented, because parsing whole modules with libcst costs far more
than the analysis. When a method cannot be cut out cleanly, the whole module is parsed instead.
"""
from __future__ import annotations

import bisect

from dataclasses import replace
from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple, Type

import hyblint.cst_import  # noqa: F401  (first: it imports libcst with its dataclasses' code compiled once)
import libcst as cst

from hyblint.analysis.function import analyze, analyze_helper
from hyblint.analysis.index import ClassContext, Helper, Package
from hyblint.analysis.module import ModuleFacts
from hyblint.analysis.screen import can_screen, helper_may_report
from hyblint.diagnostics import Diagnostic, Edit, Fix, Location, Related, Severity, physical_lines
from hyblint.fixes._code import block_indent, render
from hyblint.guard import guarded
from hyblint.parsing import parse_module
from hyblint.recent import Recent
from hyblint.positions import positions_of
from hyblint.rules import ALL_RULES
from hyblint.rules.base import REMOVE, Rule, Violation
from hyblint.selection import selected_codes
from hyblint.settings import Settings
from hyblint.unused_noqa import with_unused_noqa
from hyblint.triage import NOQA, SYNTAX_ERROR, Triage, cannot_parse, suppressed, syntax_error, triage, with_context

__all__ = ["NOQA", "SYNTAX_ERROR", "check_source", "finish", "run_rules", "selected_rules", "to_diagnostics",
           "with_context"]


def selected_rules(settings: Settings) -> List[Type[Rule]]:
    """Rules enabled by select / extend-select / ignore, matched by code prefix like ruff."""
    return [ALL_RULES[code] for code in selected_codes(settings)]


# Results per method text: an edit elsewhere in a file (the language server re-checks on every
# keystroke) re-analyzes only the methods that changed.
_SNIPPET_CACHE: "Recent[tuple, List[Diagnostic]]" = Recent(4096)


def check_source(source: str, filename: str, settings: Settings = Settings(), *,
                 extra_hybrid_classes: FrozenSet[str] = frozenset(), package: Optional[Package] = None
                 ) -> List[Diagnostic]:
    """The diagnostics of one file; `package`, the index of the run's files, says what its blocks'
    callers pass and what their children return."""
    first = triage(source, filename, settings, extra_hybrid_classes=extra_hybrid_classes)
    if package is not None:
        with_context(first, package)
    return with_unused_noqa(finish(first), source, filename, settings, extra_hybrid_classes, package)


def finish(first: Triage) -> List[Diagnostic]:
    """The diagnostics of a file, from what triage found and left."""
    if first.settled:
        return first.diagnostics
    return guarded(_finish, first.filename, lambda diagnostics: diagnostics, first)


def _finish(first: Triage) -> List[Diagnostic]:
    source, filename, imports = first.source, first.filename, first.imports
    rules = [ALL_RULES[code] for code in first.codes]
    settings = (tuple(sorted(imports.aliases.items())), first.codes)
    if first.whole_module:
        return _whole_module_and_helpers(first, rules, settings)
    lines: List[str] = []
    diagnostics: List[Diagnostic] = []
    for snippet in first.snippets:
        relative = _check_snippet(snippet.text, settings, rules, imports, first.context.get(snippet.owner))
        if relative is None:
            return _whole_module_and_helpers(first, rules, settings)
        for placed in _placed(relative, filename, snippet.row - 1, snippet.indent):
            lines = lines or physical_lines(source)  # for noqa comments, once there is something to report
            if not suppressed(lines, placed.location.row, placed.code):
                diagnostics.append(placed)
    diagnostics.extend(_check_helpers(first, rules, settings, lines))
    diagnostics.sort(key=Diagnostic.sort_key)
    return diagnostics


def _whole_module_and_helpers(first: Triage, rules, settings) -> List[Diagnostic]:
    found = _check_whole_module(first.source, first.filename, rules, first.imports, first.scope, first.context)
    found.extend(_check_helpers(first, rules, settings, []))
    found.sort(key=Diagnostic.sort_key)
    return found


def _check_helpers(first: Triage, rules, settings, lines) -> List[Diagnostic]:
    """Diagnostics in the helpers, each with the calls in hybrid_forward that trace it."""
    found = []
    screened = can_screen(first.codes)
    for helper, snippet in first.helpers:
        key = (snippet.text, settings, helper)
        relative = _SNIPPET_CACHE.get(key)
        if relative is None and screened and not helper_may_report(snippet.text, first.imports, helper.namespace):
            relative = _SNIPPET_CACHE[key] = []  # the screen clears it as it would for its caller
        if relative is None:
            try:
                module = parse_module(snippet.text)
            except (cst.ParserSyntaxError, ValueError):
                continue
            functions = [s for s in module.body if isinstance(s, cst.FunctionDef)]
            violations = run_rules(module, [(f, None) for f in functions], rules, first.imports, helper)
            relative = to_diagnostics(module, snippet.text, "", violations, 0, "", apply_noqa=False) \
                if violations else []
            _SNIPPET_CACHE[key] = relative
        related = tuple(Related(first.filename, Location(row, column), "called from hybrid_forward")
                        for row, column in helper.calls)
        for d in relative:
            # reported, not fixed: a helper may have no F to rewrite with, and other callers
            placed = replace(_place(d, first.filename, snippet.row - 1, snippet.indent), related=related, fix=None)
            lines = lines or physical_lines(first.source)
            if not suppressed(lines, placed.location.row, placed.code):
                found.append(placed)
    return found


def _check_snippet(text: str, settings, rules, imports, context: Optional[ClassContext]) -> Optional[List[Diagnostic]]:
    """Diagnostics of one dedented method, positioned within it (None: it does not parse alone)."""
    key = (text, settings, context)
    found = _SNIPPET_CACHE.recall(key)
    if found is not None:
        return found
    try:
        module = parse_module(text)
    except (cst.ParserSyntaxError, ValueError):
        return None
    functions = [s for s in module.body if isinstance(s, cst.FunctionDef) and s.name.value == "hybrid_forward"]
    violations = run_rules(module, [(f, context) for f in functions], rules, imports)
    found = to_diagnostics(module, text, "", violations, 0, "", apply_noqa=False) if violations else []
    return _SNIPPET_CACHE.keep(key, found)


# A method's diagnostics as placed in its file, by where it is: on a keystroke, the methods the
# edit did not move are placed as before.
_PLACED: "Recent[tuple, Tuple[List[Diagnostic], List[Diagnostic]]]" = Recent(_SNIPPET_CACHE.size)


def _placed(relative: List[Diagnostic], filename: str, row_offset: int, indent: str) -> List[Diagnostic]:
    if not relative:
        return relative
    key = (id(relative), filename, row_offset, indent)
    found = _PLACED.recall(key)
    if found is not None and found[0] is relative:
        return found[1]
    placed = [_place(d, filename, row_offset, indent) for d in relative]
    _PLACED.keep(key, (relative, placed))  # the list is kept: its id is not reused meanwhile
    return placed


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


def _check_whole_module(source, filename, rules, imports, scope, contexts=None) -> List[Diagnostic]:
    try:
        module = parse_module(source)
    except cst.ParserSyntaxError as exc:
        # Python's own parser names the cause and the place more precisely, when it disagrees too
        return [syntax_error(source, filename) or _parse_failure(exc, filename)]
    except ValueError as exc:
        return [cannot_parse(filename, exc)]
    contexts = contexts or {}
    functions = [(f, contexts.get(owner)) for owner, f in _hybrid_forwards(module, scope)]
    violations = run_rules(module, functions, rules, imports)
    if not violations:
        return []
    diagnostics = to_diagnostics(module, source, filename, violations, 0, "")
    if module.code != source:
        diagnostics = _without_misplaced_fixes(diagnostics, source, module.code)
    return diagnostics


def _without_misplaced_fixes(diagnostics: List[Diagnostic], source: str, code: str) -> List[Diagnostic]:
    """libcst drops some characters it does not keep in its tree (a form feed in indentation): on
    lines where its text differs from the file's, a fix's columns would not be the file's."""
    ours, theirs = physical_lines(source), physical_lines(code)
    if len(ours) != len(theirs):
        return [replace(d, fix=None) for d in diagnostics]
    differ = {row for row, (a, b) in enumerate(zip(ours, theirs), 1) if a != b}
    return [replace(d, fix=None) if d.fix is not None and any(
        row in differ for e in d.fix.edits for row in range(e.location.row, e.end_location.row + 1)) else d
        for d in diagnostics]


def run_rules(module: cst.Module, functions: Sequence[Tuple[cst.FunctionDef, Optional[ClassContext]]],
              rules: Sequence[Type[Rule]], imports: ModuleFacts, helper: Optional[Helper] = None) -> List[Violation]:
    """The rules' violations in each hybrid_forward, analyzed with its class's context (or in a
    helper, analyzed with what its calls pass)."""
    instances = [rule(module, imports) for rule in rules]
    dispatch: Dict[type, List] = {}
    for instance in instances:
        for node_type, attr in _visitors(type(instance)):
            dispatch.setdefault(node_type, []).append(getattr(instance, attr))
    for function, context in functions:
        facts = analyze(function, imports, context) if helper is None else analyze_helper(function, imports, helper)
        if facts is None:
            continue
        for instance in instances:
            instance.facts = facts
            instance.function = function
        before = [len(instance.violations) for instance in instances]
        _dispatch(facts, dispatch)
        found = [v for instance, start in zip(instances, before) for v in instance.violations[start:]]
        if len(found) > 1:
            kept = set(map(id, one_per_failure(found, facts)))
            for instance, start in zip(instances, before):
                instance.violations[start:] = [v for v in instance.violations[start:] if id(v) in kept]
    return [v for instance in instances for v in instance.violations]


def one_per_failure(violations: List[Violation], facts) -> List[Violation]:
    """One diagnostic per failure. Where rules report on nested code, the innermost diagnostic
    explains it: Python evaluates an operation's operand first, so an operation whose operand
    (`v` of `v[i]`, `v.attr`, `v(...)`) holds a reported node acts on a value that already fails
    or is already wrong (`y.size()[0]`: `y.size` is what fails, HYB002; the subscript is not a
    second problem, HYB001). Of several rules on one node, the first in code order speaks. An
    operation's other parts (`x += y[0]`: the target and the value) are separate failures."""
    index = {id(node): i for i, node in enumerate(facts.nodes)}
    reported = sorted({index[id(v.node)] for v in violations if id(v.node) in index})
    kept, seen = [], set()
    for v in violations:
        if id(v.node) in seen:
            continue
        seen.add(id(v.node))
        operand = _operand(v.node)
        start = index.get(id(operand)) if operand is not None else None
        if start is not None:
            first = bisect.bisect_left(reported, start)  # the first reported node from the operand on
            if first < len(reported) and reported[first] < facts.ends[start]:
                continue
        kept.append(v)
    return kept


def _operand(node: cst.CSTNode) -> Optional[cst.CSTNode]:
    if isinstance(node, (cst.Subscript, cst.Attribute)):
        return node.value
    if isinstance(node, cst.Call):
        return node.func.value if isinstance(node.func, cst.Attribute) else None
    return None


_VISITORS: Dict[type, list] = {}


def _visitors(rule: type) -> list:
    """(node type, method name) for each `visit_<NodeType>` method of a rule class."""
    found = _VISITORS.get(rule)
    if found is None:
        found = _VISITORS[rule] = [(getattr(cst, attr[6:]), attr) for attr in dir(rule)
                                   if attr.startswith("visit_") and hasattr(cst, attr[6:])]
    return found


_NESTED_SCOPES = frozenset({cst.FunctionDef, cst.ClassDef, cst.Lambda})


def _dispatch(facts, dispatch) -> None:
    """Each rule handler on the nodes of its type, in source order, over the analysis's list of
    the body's nodes; code that runs only imperatively (`if F is nd:`) is skipped, and nested
    functions and classes, which have their own scopes, are visited but not entered."""
    nodes, ends, skipped = facts.nodes, facts.ends, facts.imperative_only
    index, count = 0, len(nodes)
    while index < count:
        node = nodes[index]
        if skipped and node in skipped:  # (libcst nodes hash in Python: not asked for nothing)
            index = ends[index]
            continue
        for handler in dispatch.get(type(node), ()):
            handler(node)
        index = ends[index] if type(node) in _NESTED_SCOPES else index + 1  # (concrete classes)


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
                            yield child.name.value, statement
                stack.append(child)
            elif isinstance(child, (cst.If, cst.Try, cst.FunctionDef)):
                stack.append(child)


def to_diagnostics(module: cst.Module, source: str, filename: str, violations: List[Violation],
                   row_offset: int, indent: str, apply_noqa: bool = True) -> List[Diagnostic]:
    """Diagnostics with positions in the file, for violations found in `module` (a whole module,
    or a method cut out `row_offset` rows down and dedented by `indent`)."""
    # only when there is something to report, and only up to the last node reported or replaced
    positions = positions_of(module, [v.node for v in violations] + [
        old for v in violations if v.fix is not None for old, _ in v.fix.replacements])
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
        if apply_noqa and suppressed(lines, start.row, violation.rule.code):
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


def _parse_failure(exc: cst.ParserSyntaxError, filename: str) -> Diagnostic:
    row, column = exc.raw_line, exc.raw_column + 1
    reason = exc.message.splitlines()[0] if exc.message else "invalid syntax"
    return Diagnostic(SYNTAX_ERROR, "syntax error: %s" % reason, filename, Location(row, column),
                      Location(row, column), Severity.ERROR)
