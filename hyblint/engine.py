"""Check one source text: parse, find hybrid_forward methods, run the rules, make diagnostics."""
from __future__ import annotations

import ast
import re
from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple, Type

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from hyblint.analysis.function import analyze
from hyblint.analysis.module import collect_imports, in_scope_classes
from hyblint.diagnostics import Diagnostic, Edit, Fix, Location, Severity
from hyblint.rules import ALL_RULES
from hyblint.rules.base import REMOVE, Rule, Violation
from hyblint.settings import Settings

NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*))?", re.IGNORECASE)
SYNTAX_ERROR = "HYB900"


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
            on = rule.default_selected or matches(code, settings.extend_select) >= 0
            level = matches(code, settings.extend_select)
        else:
            level = max(matches(code, settings.select), matches(code, settings.extend_select))
            on = level >= 0
        ignored = matches(code, settings.ignore)
        if on and (ignored < 0 or ignored < level):
            chosen.append(rule)
    return chosen


def check_source(source: str, filename: str, settings: Settings = Settings(), *,
                 extra_hybrid_classes: FrozenSet[str] = frozenset()) -> List[Diagnostic]:
    if "hybrid_forward" not in source:
        # Nothing a rule looks at; the C parser is enough to report a syntax error.
        error = _syntax_error(source, filename)
        return [error] if error else []
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        # Python's own parser names the cause and the place more precisely, when it disagrees too
        return [_syntax_error(source, filename) or _parse_failure(exc, filename)]
    except (RecursionError, ValueError) as exc:
        return [Diagnostic(SYNTAX_ERROR, "cannot parse: %s" % exc, filename, Location(1, 1), Location(1, 1),
                           Severity.ERROR)]
    rules = selected_rules(settings)
    violations = run_rules(module, rules, settings, extra_hybrid_classes)
    if not violations:
        return []
    return to_diagnostics(module, source, filename, violations)


def run_rules(module: cst.Module, rules: Sequence[Type[Rule]], settings: Settings,
              extra_hybrid_classes: FrozenSet[str]) -> List[Violation]:
    imports = collect_imports(module)
    scope = in_scope_classes(module, settings.hybrid_bases, extra_hybrid_classes)
    instances = [rule(module, imports) for rule in rules]
    dispatch: Dict[type, List] = {}
    for instance in instances:
        for attr in dir(instance):
            if attr.startswith("visit_"):
                node_type = getattr(cst, attr[len("visit_"):], None)
                if node_type is not None:
                    dispatch.setdefault(node_type, []).append(getattr(instance, attr))
    for function in _hybrid_forwards(module, scope):
        facts = analyze(function, imports)
        if facts is None:
            continue
        for instance in instances:
            instance.facts = facts
            instance.function = function
        function.body.visit(_Dispatcher(dispatch, facts.imperative_only))
    return [v for instance in instances for v in instance.violations]


class _Dispatcher(cst.CSTVisitor):
    def __init__(self, dispatch, skipped):
        super().__init__()
        self.dispatch = dispatch
        self.skipped = skipped

    def on_visit(self, node: cst.CSTNode) -> bool:
        if node in self.skipped:
            return False
        for handler in self.dispatch.get(type(node), ()):
            handler(node)
        # nested functions and classes have their own scopes: not analyzed
        return not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda))


def _hybrid_forwards(module: cst.Module, scope) -> Iterable[cst.FunctionDef]:
    stack: List[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        for child in node.children:
            if isinstance(child, cst.ClassDef):
                if child.name.value in scope:
                    for statement in child.body.body:
                        if isinstance(statement, cst.FunctionDef) and statement.name.value == "hybrid_forward":
                            yield statement
                stack.append(child.body)
            elif isinstance(child, (cst.IndentedBlock, cst.If, cst.Else, cst.Try, cst.FunctionDef)):
                stack.append(child)


def to_diagnostics(module: cst.Module, source: str, filename: str,
                   violations: List[Violation]) -> List[Diagnostic]:
    # Positions are computed only now, on the same node objects, when there is something to report.
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    lines = source.splitlines()
    diagnostics = []
    seen = set()
    for violation in violations:
        span = positions[violation.node]
        start = Location(span.start.line, span.start.column + 1)
        end = Location(span.end.line, span.end.column + 1)
        key = (violation.rule.code, start, end)
        if key in seen:
            continue
        seen.add(key)
        if _suppressed(lines, start.row, violation.rule.code):
            continue
        fix = None
        if violation.fix is not None:
            edits = tuple(_edit(module, positions, old, new, lines) for old, new in violation.fix.replacements)
            fix = Fix(violation.fix.applicability, violation.fix.message, edits)
        diagnostics.append(Diagnostic(violation.rule.code, violation.message, filename, start, end,
                                      violation.rule.severity, fix, violation.rule.url()))
    diagnostics.sort(key=Diagnostic.sort_key)
    return diagnostics


def _edit(module, positions, old, new, lines) -> Edit:
    span = positions[old]
    if new is REMOVE:
        # the whole line(s) of the statement, newline included
        return Edit("", Location(span.start.line, 1), Location(span.end.line + 1, 1))
    content = new if isinstance(new, str) else module.code_for_node(new)
    if isinstance(old, cst.SimpleStatementLine):
        content = content.rstrip("\n")
    return Edit(content, Location(span.start.line, span.start.column + 1),
                Location(span.end.line, span.end.column + 1))


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
    try:
        ast.parse(source, filename)
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
