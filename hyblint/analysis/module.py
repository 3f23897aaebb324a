"""Module-level facts, read from the text without parsing the whole module: which names are MXNet's
modules (from the import statements), and which classes run hybrid_forward (from class lines)."""
from __future__ import annotations

import ast
import bisect
import re
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, List, Optional, Set, Tuple

ND_MODULES = {"mxnet.ndarray", "mxnet.nd"}
SYM_MODULES = {"mxnet.symbol", "mxnet.sym"}
# Base classes that never run hybrid_forward, so a class deriving only from these is out of scope.
PLAIN_BASES = {"Block", "object", "Sequential", "Concurrent"}
RELATIVE_MODULES = {"ndarray": "mxnet.ndarray", "nd": "mxnet.ndarray", "symbol": "mxnet.symbol",
                    "sym": "mxnet.symbol", "autograd": "mxnet.autograd"}
NUMPY_DECORATORS = {"use_np", "use_np_array", "use_np_shape"}

_IMPORT = re.compile(r"^(?P<indent>[ \t]*)(?:from[ \t]+[\w.]+[ \t]+import\b|import[ \t]+\w)", re.MULTILINE)
_BLOCK_OPENER = re.compile(r"^(?:try|except|else|finally|if|elif)\b")
# Starts with the literal so the regex engine can skip ahead; the line start is checked after.
_CLASS = re.compile(r"class[ \t]+(?P<name>\w+)[ \t]*(?:\((?P<bases>[^)]*)\))?[ \t]*:")
_DECORATOR = re.compile(r"^[ \t]*@[ \t]*(?P<name>[\w.]+)", re.MULTILINE)


def dotted(expr) -> Optional[str]:
    """`a.b.c` for a chain of libcst names and attributes, else None."""
    import libcst as cst  # here, so that reading imports and classes needs no libcst

    parts: List[str] = []
    # (by identity: concrete classes, which isinstance would check through ABCMeta in Python)
    attribute, name = cst.Attribute, cst.Name
    while type(expr) is attribute:
        parts.append(expr.attr.value)
        expr = expr.value
    if type(expr) is not name:
        return None
    parts.append(expr.value)
    return ".".join(reversed(parts))


@dataclass
class ModuleFacts:
    """What the imports of one module bind: local name -> dotted module or object path."""

    aliases: Dict[str, str] = field(default_factory=dict)

    def resolve(self, expr, shadowed: FrozenSet[str] = frozenset()) -> Optional[str]:
        """The fully qualified dotted path of `expr`, through import aliases, or None."""
        name = dotted(expr)
        return None if name is None else self.resolve_dotted(name, shadowed)

    def resolve_dotted(self, name: str, shadowed: FrozenSet[str] = frozenset()) -> Optional[str]:
        head, _, rest = name.partition(".")
        if head in shadowed or head not in self.aliases:
            return None
        full = self.aliases[head]
        return full + "." + rest if rest else full

    def is_nd_module(self, expr, shadowed=frozenset()) -> bool:
        return self.resolve(expr, shadowed) in ND_MODULES

    def is_sym_module(self, expr, shadowed=frozenset()) -> bool:
        return self.resolve(expr, shadowed) in SYM_MODULES


def line_matches(pattern: "re.Pattern", word: str, source: str, start: int = 0, end: Optional[int] = None):
    """`pattern.finditer(source, start, end)` for a pattern that matches only at a line's start (`^`
    under re.MULTILINE) and within that line, which then holds `word`: tried only on the lines that
    hold the word. Python's engine tries such a pattern at every character, which costs several
    times more than finding the word (a tenth of the screening of a corpus, in five scans)."""
    end = len(source) if end is None else end
    position = source.find(word, start, end)
    while position >= 0:
        line = source.rfind("\n", 0, position) + 1
        if line >= start:
            match = pattern.match(source, line, end)
            if match is not None:
                yield match
        line_end = source.find("\n", position, end)
        if line_end < 0:
            return
        position = source.find(word, line_end, end)


def _import_lines(source: str):
    """`_IMPORT`'s matches, in order."""
    return line_matches(_IMPORT, "import", source)


def _statement_text(source: str, start: int) -> str:
    """One import statement from `start`: through parentheses and backslash continuations."""
    line_end = source.find("\n", start)
    line = source[start:line_end if line_end >= 0 else len(source)]
    if not any(char in line for char in "()\\;#"):
        return line  # one line, as the walk below would take it
    end = start
    depth = 0
    while end < len(source):
        char = source[end]
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "\\" and source.startswith("\\\n", end):
            end += 2
            continue
        elif char in "\n;#" and depth <= 0:
            break
        end += 1
    return source[start:end]


def _module_level(source: str, line_start: int, indent: str) -> bool:
    """At column 0, or directly inside a module-level try/except/if block (optional imports)."""
    if not indent:
        return True
    before = source.rfind("\n", 0, line_start - 1)
    while before >= 0:
        line_end = source.find("\n", before + 1)
        line = source[before + 1:line_end if line_end >= 0 else len(source)]
        if line.strip() and not line.lstrip().startswith("#"):
            if not line[:1].isspace():
                return bool(_BLOCK_OPENER.match(line))
        before = source.rfind("\n", 0, before)
    return False


def _import_statements(texts: List[str]) -> List[ast.stmt]:
    """The parsed import statements: all in one parse, or one by one when some text does not parse."""
    try:
        return ast.parse("\n".join(texts)).body
    except (SyntaxError, ValueError):
        pass
    statements = []
    for text in texts:
        try:
            statements.extend(ast.parse(text).body[:1])
        except (SyntaxError, ValueError):
            continue
    return statements


# The start of a line that is not indented, blank or a comment (the first line aside, which
# `_module_level` never looks at).
_UNINDENTED = re.compile(r"\n(?=[^\s#])")


class _UnindentedLines:
    """`_module_level`'s answer for every line of one source, from one pass over it: the nearest
    line above that is not indented, blank or a comment, found by bisection (a module with many
    imports inside functions would otherwise be scanned back line by line for each)."""

    def __init__(self, source: str):
        self.source = source
        self.starts = [match.end() for match in _UNINDENTED.finditer(source)]

    def __call__(self, line_start: int, indent: str) -> bool:
        if not indent:
            return True
        if line_start == 0:
            return _module_level(self.source, line_start, indent)
        at = bisect.bisect_left(self.starts, line_start) - 1
        if at < 0:
            return False
        start = self.starts[at]
        end = self.source.find("\n", start)
        return bool(_BLOCK_OPENER.match(self.source[start:end if end >= 0 else len(self.source)]))


def collect_imports(source: str) -> ModuleFacts:
    facts = ModuleFacts()
    module_level = None
    texts = []
    for match in _import_lines(source):
        indent = match.group("indent")
        if indent and module_level is None:
            module_level = _UnindentedLines(source)
        if not indent or module_level(match.start(), indent):
            texts.append(_statement_text(source, match.start() + len(indent)))
    for statement in _import_statements(texts):
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                if alias.asname:
                    facts.aliases[alias.asname] = alias.name
                else:
                    head = alias.name.split(".")[0]
                    facts.aliases[head] = head
        elif isinstance(statement, ast.ImportFrom):
            for alias in statement.names:
                if alias.name == "*":
                    continue
                local = alias.asname or alias.name
                if statement.level:
                    # inside MXNet itself: `from ... import ndarray, symbol`
                    if alias.name in RELATIVE_MODULES:
                        facts.aliases[local] = RELATIVE_MODULES[alias.name]
                elif statement.module:
                    facts.aliases[local] = statement.module + "." + alias.name
    return facts


@dataclass(frozen=True)
class ClassLine:
    name: str
    indent: int
    offset: int                      # where the `class` line starts in the source
    bases: Tuple[str, ...]           # the last component of each base: `nn.HybridBlock` -> `HybridBlock`
    decorators: Tuple[str, ...]


def scan_classes(source: str, decorators: bool = True) -> List[ClassLine]:
    found = []
    for match in _CLASS.finditer(source):
        line_start = source.rfind("\n", 0, match.start()) + 1
        indent = source[line_start:match.start()]
        if indent.strip(" \t"):
            continue  # `class` inside a line: a word in a string or comment
        bases = []
        for part in (match.group("bases") or "").split(","):
            part = part.strip()
            if part and "=" not in part:          # metaclass=..., keyword arguments
                bases.append(part.rsplit(".", 1)[-1].strip())
        names = []
        while decorators and line_start > 0:  # the decorator lines right above the class line
            previous = source.rfind("\n", 0, line_start - 1) + 1
            decorator = _DECORATOR.match(source, previous, line_start - 1)
            if decorator is None:
                break
            names.append(decorator.group("name").rsplit(".", 1)[-1])
            line_start = previous
        found.append(ClassLine(match.group("name"), len(indent.expandtabs()), match.start() - len(indent),
                               tuple(bases), tuple(names)))
    return found


def in_scope_classes(classes: List[ClassLine], hybrid_bases: FrozenSet[str],
                     extra_hybrid: FrozenSet[str], extra_plain: FrozenSet[str] = frozenset()) -> Set[str]:
    """Names of the module's classes whose hybrid_forward is traced by hybridize().

    A class is in scope when it derives from a known hybrid class, or when none of its bases is
    known at all (a base from an unlisted package: a hybrid_forward there is still Gluon's).
    A class deriving only from plain `Block`-like bases (or from classes of the run that do,
    `extra_plain`), or using numpy semantics, is not.
    """
    hybrid: Set[str] = set(hybrid_bases) | set(extra_hybrid)
    numpy_style = {c.name for c in classes if NUMPY_DECORATORS.intersection(c.decorators)}
    changed = True
    while changed:  # the module's own hierarchy, in any order of definition
        changed = False
        for c in classes:
            if c.name not in hybrid and any(b in hybrid for b in c.bases):
                hybrid.add(c.name)
                changed = True
            if c.name not in numpy_style and any(b in numpy_style for b in c.bases):
                numpy_style.add(c.name)
                changed = True
    scope = set()
    for c in classes:
        if c.name in numpy_style:
            continue
        known_plain = c.bases and all(b in PLAIN_BASES or b in extra_plain for b in c.bases)
        if c.name in hybrid or not known_plain:
            scope.add(c.name)
    return scope
