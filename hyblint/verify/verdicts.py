"""Each static diagnostic of a module, judged by what the module's blocks did when they ran.

A diagnostic is `confirmed` when a block that ran its line hybridized failed there, or gave a
different result with the line on its path (a value frozen at trace time confirms only the rules
about that kind of value); `refuted` when every block that ran the line hybridized agreed on every
input and mode tried (a lead for a false positive); `not reached` when no block ran it hybridized;
`inconclusive` when the blocks that ran it went wrong for another reason (failed at another line),
or when they agreed but the flagged expression runs only under a condition within its line (`x.shape`
in `n if n is not None else x.shape[0]`: lines are what the tracer sees).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

CONFIRMED = "confirmed"
REFUTED = "refuted"
NOT_REACHED = "not reached"
INCONCLUSIVE = "inconclusive"
ORDER = (CONFIRMED, REFUTED, INCONCLUSIVE, NOT_REACHED)

# A value frozen at trace time confirms the rules that describe that value, not every line it ran.
KIND_CODES = {
    "frozen-state": ("HYB017",),
    "frozen-random": ("HYB016",),
    "frozen-branch": ("HYB013",),
}
# The calls that show a rule's value frozen: a block that cannot take them eagerly refutes nothing
# about that rule (a detector's train-mode branch that wants its targets never ran).
KIND_CALLS = {
    "HYB013": ("train mode", "train mode again"),
    "HYB016": ("other Python seed",),
    "HYB017": ("second call",),
}
# Diagnostics that are no claim about a line of hybrid_forward.
UNJUDGED = ("HYB018",)


@dataclass
class Verdict:
    verdict: str
    reason: str
    blocks: List[str] = field(default_factory=list)  # the blocks that ran the line hybridized

    def to_json(self) -> dict:
        return {"verdict": self.verdict, "reason": self.reason, "blocks": self.blocks}


def judged_codes(code: str) -> bool:
    return not code.startswith("HYB9") and code not in UNJUDGED


def statement_spans(source: str) -> Dict[int, Tuple[int, int]]:
    """For each line, the lines of the statement that holds it, as the tracer reports them: a simple
    statement's lines, or a compound statement's header (an `if` test, not its body)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    spans: Dict[int, Tuple[int, int]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        end = node.end_lineno or node.lineno
        bodies = [getattr(node, name) for name in ("body", "orelse", "finalbody", "handlers")
                  if isinstance(getattr(node, name, None), list) and getattr(node, name)]
        if bodies:  # the header ends where its first block begins
            end = min(block[0].lineno for block in bodies) - 1
            end = max(end, node.lineno)
        for line in range(node.lineno, end + 1):
            current = spans.get(line)
            # the innermost statement wins: the one that starts last
            if current is None or node.lineno >= current[0]:
                spans[line] = (node.lineno, end)
    return spans


def conditional_parts(source: str) -> List[Tuple[Tuple[int, int], Tuple[int, int]]]:
    """(start, end) positions, (row, 1-based column in characters), of the expressions that run only
    under a condition: both arms of `a if c else b`, the operands of `and`/`or` after the first, a
    comprehension's element and conditions. That such a line ran says nothing about them."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    lines = source.splitlines()

    def column(row: int, offset: int) -> int:  # ast's offsets count UTF-8 bytes
        text = lines[row - 1] if 0 < row <= len(lines) else ""
        return len(text.encode("utf-8")[:offset].decode("utf-8", "ignore")) + 1

    def span(node) -> Tuple[Tuple[int, int], Tuple[int, int]]:
        return ((node.lineno, column(node.lineno, node.col_offset)),
                (node.end_lineno, column(node.end_lineno, node.end_col_offset)))
    parts = []
    for node in ast.walk(tree):
        if isinstance(node, ast.IfExp):
            parts += [span(node.body), span(node.orelse)]
        elif isinstance(node, ast.BoolOp):
            parts += [span(value) for value in node.values[1:]]
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            elements = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            parts += [span(e) for e in elements] + [span(c) for g in node.generators for c in g.ifs]
    return parts


def judge(diagnostics: Sequence, source: str, blocks: Sequence) -> List[Optional[Verdict]]:
    """A verdict per diagnostic (None for codes not judged), from the module's block results (their
    `lines` run hybridized, `first_call`, `findings`, `status`, `line`)."""
    spans = statement_spans(source)
    conditional = conditional_parts(source)
    verdicts: List[Optional[Verdict]] = []
    for d in diagnostics:
        if not judged_codes(d.code):
            verdicts.append(None)
            continue
        span = spans.get(d.location.row, (d.location.row, d.end_location.row))
        lines = set(range(span[0], span[1] + 1))
        start = (d.location.row, d.location.column)
        guarded = any(begin <= start < end for begin, end in conditional)
        verdicts.append(_judge_one(d.code, lines, blocks, guarded))
    return verdicts


def _judge_one(code: str, lines: Set[int], blocks: Sequence, guarded: bool = False) -> Verdict:
    """`guarded`: the diagnostic's expression runs only under a condition within its line, so a
    line that ran and agreed does not show the expression did."""
    ran = [b for b in blocks if lines & set(b.lines)]
    if not ran:
        eager = [b.name for b in blocks if lines & set(getattr(b, "eager_lines", ()))]
        return Verdict(NOT_REACHED, "no block ran this line hybridized" +
                       (" (it ran eagerly in %s)" % ", ".join(eager) if eager else ""))
    names = [b.name for b in ran]
    for b in ran:
        why = _confirmation(code, lines, b)
        if why:
            return Verdict(CONFIRMED, "%s: %s" % (b.name, why), names)
    clean = [b for b in ran if getattr(b, "first_call", b.status) == "agrees" and not b.findings]
    untried = [b for b in clean if set(KIND_CALLS.get(code, ())) & set(getattr(b, "eager_failed", ()))]
    if untried and len(clean) == len(ran):
        calls = sorted(set(KIND_CALLS[code]) & set(untried[0].eager_failed))
        return Verdict(INCONCLUSIVE, "%s ran this line hybridized and agreed, but %s raise%s eagerly: what this "
                       "rule is about was not compared" % (", ".join(b.name for b in untried), " and ".join(calls),
                                                            "" if len(calls) > 1 else "s"), names)
    if len(clean) == len(ran) and guarded:
        return Verdict(INCONCLUSIVE, "%s ran this line hybridized and agreed, but the flagged expression runs only "
                       "under a condition (an if-else expression, and/or, a comprehension)" % ", ".join(names), names)
    if len(clean) == len(ran):
        tried = max((len(getattr(b, "inputs", ())) for b in ran), default=1)
        return Verdict(REFUTED, "%s ran this line hybridized and agreed on %d input signature%s, in predict "
                       "and train mode" % (", ".join(names), tried, "" if tried == 1 else "s"), names)
    other = next(b for b in ran if b not in clean)
    return Verdict(INCONCLUSIVE, "%s ran this line, but went wrong elsewhere: %s" % (other.name, other.detail), names)


def _confirmation(code: str, lines: Set[int], block) -> str:
    """Why this block's run confirms the diagnostic, or ''."""
    first = getattr(block, "first_call", block.status)
    if first == "fails" and (block.line is None or block.line in lines):
        where = "fails hybridized at this line" if block.line in lines else "fails hybridized when its graph runs"
        return "%s: %s" % (where, block.first_detail or block.detail)
    if first == "disagrees":
        return "hybridized, gives a different result with this line on its path: %s" % (block.first_detail or
                                                                                          block.detail)
    for f in block.findings:
        if f["kind"] in KIND_CODES:
            if code in KIND_CODES[f["kind"]]:
                return f["detail"]
        elif f.get("line") is None or f["line"] in lines:
            return f["detail"]
    return ""


def count(verdicts: Iterable[Optional[Verdict]]) -> Dict[str, int]:
    counts = {name: 0 for name in ORDER}
    for v in verdicts:
        if v is not None:
            counts[v.verdict] += 1
    return counts
