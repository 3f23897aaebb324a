"""The package index: what the blocks of a run are made of and what they are called with.

Built with Python's own `ast` from the files of the run, and only from those a check needs: the
file of a block whose hybrid_forward the screen could not clear, the files that define its
children, and the files whose blocks call it. For each class it records the children assigned to
`self` (`self.fc = nn.Dense(...)`, containers and their `add(...)` calls), and from that it answers:

- what calling a child gives (`child_kinds`): a known Gluon layer one tensor, a container its last
  layer's kind, a block of the package what its own hybrid_forward returns;
- what each hybrid_forward parameter receives (`parameter_kinds`): the join of what every call
  site in the package passes, with whether every call site was understood.

Everything comes from code the run can see; where nothing is known the analysis keeps its own
reading. The facts of a file are kept per content hash, so an unchanged file is parsed once.
"""
from __future__ import annotations

import ast
import bisect
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, Iterable, List, Optional, Set, Tuple

from hyblint.analysis.kinds import Kind, join
# a faster walk than ast.walk, over the nodes that matter; literal arguments as the analysis reads them
from hyblint.analysis.flavors import _dotted, _literal_argument, _walk
from hyblint.analysis.module import ClassLine, ModuleFacts, collect_imports, line_matches, scan_classes
from hyblint.analysis.vocabulary import (COUNTED_OUTPUTS, GROUP_OPS, NAMESPACE_PREFIXES, NESTED_OPS, PYTHON_BUILTINS,
                                         PYTHON_METHODS, STATE_WORDS, TENSOR_METHODS, TENSOR_PLURALS, UNKNOWN_COUNT,
                                         output_count)
from hyblint.recent import Recent

# Gluon layers whose call gives one tensor.
TENSOR_LAYERS = frozenset({
    "Dense", "Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose",
    "MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D", "AvgPool3D", "GlobalMaxPool1D",
    "GlobalMaxPool2D", "GlobalMaxPool3D", "GlobalAvgPool1D", "GlobalAvgPool2D", "GlobalAvgPool3D",
    "ReflectionPad2D", "BatchNorm", "SyncBatchNorm", "InstanceNorm", "LayerNorm", "GroupNorm", "Embedding",
    "Flatten", "Dropout", "Activation", "LeakyReLU", "PReLU", "ELU", "SELU", "Swish", "GELU", "SiLU",
    "Identity", "HybridConcurrent", "Concurrent", "BatchNormReLU", "DeformableConvolution",
    "ModulatedDeformableConvolution", "PixelShuffle1D", "PixelShuffle2D", "PixelShuffle3D"})
# Containers whose call gives what their last layer gives.
SEQUENTIAL = frozenset({"HybridSequential", "Sequential"})
# The methods whose call sites and returns the index reads.
FORWARDS = ("hybrid_forward", "forward")

_Child = tuple  # ("class", name) | ("layer",) | ("sequential", (children...)) | ("unknown",)
UNKNOWN_CHILD: _Child = ("unknown",)


class _Methods:
    """A class's methods by name, each parsed when first asked for."""

    def __init__(self, info: "FileInfo", spans: Dict[str, Tuple[int, int, int]],
                 parsed: Optional[Dict[str, Optional[ast.FunctionDef]]] = None):
        self.info, self.spans = info, spans  # name -> (offset of the def line, its indent, block end)
        # (shared by the readings of one class text at one row, in successive texts of the file)
        self._parsed: Dict[str, Optional[ast.FunctionDef]] = {} if parsed is None else parsed

    def __contains__(self, name: str) -> bool:
        return self.get(name) is not None

    def __getitem__(self, name: str) -> ast.FunctionDef:
        found = self.get(name)
        if found is None:
            raise KeyError(name)
        return found

    def get(self, name: str) -> Optional[ast.FunctionDef]:
        if name not in self._parsed:
            span = self.spans.get(name)
            self._parsed[name] = None if span is None else self.info._parsed(span[0], span[1], ast.FunctionDef, name)
        return self._parsed[name]

    def containing(self, needles: Iterable[str]) -> List[ast.FunctionDef]:
        """The methods whose text holds one of `needles`."""
        text = self.info.text
        return [method for name, (start, _, end) in self.spans.items()
                if any(text.find(needle, start, end) >= 0 for needle in needles)
                for method in [self.get(name)] if method is not None]


@dataclass
class ClassInfo:
    name: str
    path: str
    bases: Tuple[str, ...]
    methods: _Methods
    children: Dict[str, _Child] = field(default_factory=dict)
    added: List[_Child] = field(default_factory=list)      # `self.add(...)` in a Sequential subclass


# (also the tail of `aB(`: a file read for nothing; not a class's own line, where a block whose
# file holds no call of it would be looked for among its own children)
# (possessive where Python has it, 3.11 on: its engine would otherwise back off through every
# capitalized word that is not called, one character at a time; twice as fast, the same matches)
_CALLED = re.compile(r"[A-Z]\w*+(?=[ \t]*\()" if sys.version_info >= (3, 11) else r"[A-Z]\w*(?=[ \t]*\()")
_CLASS_LINE_CALL = re.compile(r"class ([A-Z]\w*)[ \t]*\(")  # the matches of _CALLED that are not calls
_DEF_LINE = re.compile(r"^([ \t]*)def[ \t]+(\w+)", re.MULTILINE)


class FileInfo:
    """One file's facts, each read when first asked for: a class or a function is cut out of the
    text and parsed alone (a whole file costs several times more, and few of its classes matter)."""

    def __init__(self, path: str, text: str, earlier: Optional[Dict[tuple, tuple]] = None):
        self.path, self.text = path, text
        self._imports: Optional[ModuleFacts] = None
        self._lines: Optional[List[ClassLine]] = None
        self._line_named: Optional[Dict[str, ClassLine]] = None
        self._offsets: Optional[List[int]] = None  # of the class lines
        # what was read of each class, by its text, from the file's text before this one: an edit
        # of one class leaves the others' facts as they were (plain data: no older text is kept)
        self.facts: Dict[tuple, tuple] = {}
        self._earlier = earlier or {}
        self._classes: Dict[str, Optional[ClassInfo]] = {}
        self._functions: Dict[str, Optional[ast.FunctionDef]] = {}
        self._function_lines: Optional[Dict[str, int]] = None
        self._tree: Optional[ast.Module] = None
        self._last_row = (0, 0)  # (an offset, how many lines end before it)
        self._called: Optional[List[str]] = None

    @property
    def imports(self) -> ModuleFacts:
        if self._imports is None:
            self._imports = collect_imports(self.text)
        return self._imports

    @property
    def called(self) -> List[str]:
        """The capitalized names called in the file (constructors, among others), each once, in no
        particular order."""
        if self._called is None:
            # (two scans in C and a count cost a third less than one scan judging each match)
            counts = Counter(_CALLED.findall(self.text))
            counts.subtract(_CLASS_LINE_CALL.findall(self.text))
            self._called = [name for name, count in counts.items() if count > 0]
        return self._called

    @property
    def class_lines(self) -> List[ClassLine]:
        if self._lines is None:
            self._lines = scan_classes(self.text, decorators=False)
        return self._lines

    def cls(self, name: str) -> Optional[ClassInfo]:
        """The class `name` of the file: its bases from its class line, its methods found by their
        def lines (parsed when asked for), its children from its `__init__`."""
        if name not in self._classes:
            if self._line_named is None:
                self._line_named = {}
                for c in self.class_lines:
                    self._line_named.setdefault(c.name, c)
            line = self._line_named.get(name)
            self._classes[name] = None if line is None else self._read_class(line)
        return self._classes[name]

    def _read_class(self, line: ClassLine) -> ClassInfo:
        end = block_end(self.text, line.offset, line.indent)
        key = (line.name, self.text[line.offset:end])
        rows = self._row(line.offset)
        known = self._earlier.get(key)
        if known is not None:  # the same class text: its facts, at its offset in this text
            relative, children, added, at_row, parsed = known
            if at_row != rows:  # its methods' trees carry rows: parsed again (from their cache)
                parsed = {}
            spans = {name: (start + line.offset, indent, stop + line.offset)
                     for name, (start, indent, stop) in relative.items()}
            self.facts[key] = (relative, children, added, rows, parsed)
            return ClassInfo(line.name, self.path, line.bases, _Methods(self, spans, parsed), dict(children),
                             list(added))
        defs = [(m.start(), len(m.group(1).expandtabs()), m.group(2))
                for m in line_matches(_DEF_LINE, "def", self.text, line.offset, end)]
        indents = [indent for _, indent, _ in defs if indent > line.indent]
        spans: Dict[str, Tuple[int, int, int]] = {}
        for start, indent, name in defs:
            if indents and indent == min(indents):
                spans[name] = (start, indent, block_end(self.text, start, indent))
        info = ClassInfo(line.name, self.path, line.bases, _Methods(self, spans))
        builder = info.methods.get("__init__")
        if builder is not None:
            _read_children(builder, info)
        relative = {name: (start - line.offset, indent, stop - line.offset) for name, (start, indent, stop) in spans.items()}
        self.facts[key] = (relative, dict(info.children), list(info.added), rows, info.methods._parsed)
        return info

    def function(self, name: str) -> Optional[ast.FunctionDef]:
        """A function defined at the module's top level."""
        if self._function_lines is None:
            self._function_lines = {}
            for match in line_matches(_DEF_LINE, "def", self.text):
                if not match.group(1):
                    self._function_lines.setdefault(match.group(2), match.start())
        if name not in self._functions:
            start = self._function_lines.get(name)
            self._functions[name] = None if start is None else self._parsed(start, 0, ast.FunctionDef, name)
        return self._functions[name]

    def classes_calling(self, called: str) -> List[str]:
        """The classes (innermost) whose text holds `called`."""
        found = []
        if self._offsets is None:
            self._offsets = [line.offset for line in self.class_lines]
        position = self.text.find(called)
        while position >= 0:
            owner = _innermost(self.class_lines, self._offsets, position)
            if owner is not None and owner not in found:
                found.append(owner)
            position = self.text.find(called, position + 1)
        return found

    def subclasses(self, name: str) -> List[ClassInfo]:
        """The file's classes deriving from `name`, directly or not."""
        names, found = {name}, []
        changed = True
        while changed:
            changed = False
            for line in self.class_lines:
                if line.name not in names and names.intersection(line.bases):
                    names.add(line.name)
                    cls = self.cls(line.name)
                    if cls is not None:
                        found.append(cls)
                    changed = True
        return found

    def _row(self, offset: int) -> int:
        """How many lines end before `offset`: counted from the offset asked last (a file's
        definitions are asked for mostly in order; counting is five times faster than listing
        every line end, and few of them are asked for)."""
        known, row = self._last_row
        if offset >= known:
            row += self.text.count("\n", known, offset)
        else:
            row -= self.text.count("\n", offset, known)
        self._last_row = (offset, row)
        return row

    def _parsed(self, offset: int, indent: int, kind: type, name: str):
        """The definition starting at `offset` (a line start), parsed alone, with the file's rows;
        the whole file is parsed instead when it cannot be cut out cleanly."""
        found = definition(self.text, offset, indent, self._row(offset), kind)
        if found is not None:
            return found
        if self._tree is None:
            try:
                self._tree = ast.parse(self.text)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                self._tree = ast.Module(body=[], type_ignores=[])
        for node in _walk(self._tree):
            if isinstance(node, kind) and node.name == name:
                return node
        return None


def definition(text: str, offset: int, indent: int, rows: int, kind: type = ast.FunctionDef,
               end: Optional[int] = None) -> Optional[ast.AST]:
    """The definition starting at `offset` (a line start, `rows` lines down, indented by `indent`
    columns) to its `block_end` (`end`, when the caller has it), parsed alone with the file's rows
    and columns; None when it does not parse alone as one `kind`. The trees are kept: triage's
    screen and the index read the same methods, and the language server asks again on every
    keystroke."""
    block = text[offset:block_end(text, offset, indent) if end is None else end]
    # blank lines above keep the file's rows; an indented definition goes under an `if`,
    # which keeps its columns too
    nested = block[:1] in (" ", "\t")
    if nested and not rows:
        return None
    key = (rows, block, kind)
    found = _DEFINITIONS.recall(key)
    if found is not None:
        return found
    try:
        tree = ast.parse("\n" * (rows - nested) + ("if 1:\n" if nested else "") + block)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    body = tree.body[0].body if nested else tree.body
    if len(body) != 1 or not isinstance(body[0], kind):
        return None
    return _DEFINITIONS.keep(key, body[0])


# Definitions parsed, by their text and row (the trees are only read, never changed).
_DEFINITIONS: "Recent[tuple, ast.AST]" = Recent(4096)

_BLOCK_ENDS: Dict[int, "re.Pattern"] = {}


def block_end(text: str, offset: int, indent: int) -> int:
    """Where the indented block opened by the line at `offset` ends: at the first line after it
    that is indented no deeper (blank lines, comments and closing brackets aside), or at the end."""
    pattern = _BLOCK_ENDS.get(indent)
    if pattern is None:
        pattern = _BLOCK_ENDS[indent] = re.compile(r"\n(?=[ \t]{0,%d}[^ \t\r\n#)\]}])" % indent)
    found = pattern.search(text, text.find("\n", offset) if text.find("\n", offset) >= 0 else len(text))
    return found.end() if found is not None else len(text)


def _innermost(lines: List[ClassLine], offsets: List[int], position: int) -> Optional[str]:
    """The class nearest above `position` (the one whose block holds it, unless that block ended)."""
    at = bisect.bisect_right(offsets, position)
    return lines[at - 1].name if at else None


@dataclass(frozen=True)
class Helper:
    """A method or function that a hybrid_forward calls with F or tensors, and so is traced too:
    analyzed with the kinds its call sites pass."""

    name: str
    row: int                                    # 1-based: the first line (decorators included)
    end_row: int                                # the last line
    namespace: Optional[str]                    # the parameter that receives F
    parameters: Tuple[Tuple[str, Kind], ...]    # what the call sites pass to the others
    calls: Tuple[Tuple[int, int], ...]          # (row, column) of each call in hybrid_forward


@dataclass(frozen=True)
class ClassContext:
    """What the package says about one class, for the analysis of its hybrid_forward."""

    parameters: Tuple[Tuple[str, Kind, bool], ...] = ()   # (name, kind received, every call site known)
    children: Tuple[Tuple[str, Kind], ...] = ()           # (self attribute, kind its call gives)

    def parameter(self, name: str) -> Optional[Tuple[Kind, bool]]:
        for known, kind, complete in self.parameters:
            if known == name:
                return kind, complete
        return None

    def child(self, name: str) -> Optional[Kind]:
        for known, kind in self.children:
            if known == name:
                return kind
        return None


_FILES: Dict[str, FileInfo] = {}  # path -> the facts of its latest text


def file_info(path: str, text: str) -> FileInfo:
    """The facts of a file, kept while its text stays the same (the language server asks again on
    every keystroke, and a run asks for the class lines of every file twice)."""
    found = _FILES.get(path)
    if found is None or (found.text is not text and found.text != text):
        found = _FILES[path] = FileInfo(path, text, found.facts if found is not None else None)
    return found


def _last_name(node: ast.expr) -> Optional[str]:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def _constructed(value: ast.expr, local: Dict[str, _Child]) -> Optional[_Child]:
    """What a value assigned as a child is: a constructor call, or a local container."""
    if isinstance(value, ast.Name) and value.id in local:
        return local[value.id]
    if not isinstance(value, ast.Call):
        return None
    name = _last_name(value.func)
    if name is None:
        return UNKNOWN_CHILD
    if name in SEQUENTIAL:
        return ("sequential", ())
    if name in TENSOR_LAYERS:
        return ("layer",)
    if name[:1].isupper():
        return ("class", name)
    return UNKNOWN_CHILD  # a factory function: what it builds is not known here


def _read_children(method: ast.FunctionDef, info: ClassInfo) -> None:
    """`self.a = Dense(...)`, `self.a.add(...)`, `seq = HybridSequential(); seq.add(...); self.a = seq`,
    `self.add(...)`, in source order, so that a container's last layer is the last one added."""
    local: Dict[str, _Child] = {}
    for node in _in_order(method):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, child = node.targets[0], _constructed(node.value, local)
            if isinstance(target, ast.Name):
                if child is not None and child[0] == "sequential":
                    local[target.id] = child
                else:
                    local.pop(target.id, None)
            elif _is_self_attribute(target) and child is not None:
                previous = info.children.get(target.attr)
                info.children[target.attr] = child if previous in (None, child) else UNKNOWN_CHILD
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add":
            owner = node.func.value
            layers = tuple(_constructed(arg, local) or UNKNOWN_CHILD for arg in node.args)
            if any(isinstance(arg, ast.Starred) for arg in node.args):
                layers = (UNKNOWN_CHILD,)
            if _is_name(owner, "self"):
                info.added.extend(layers)
            elif _is_self_attribute(owner) and info.children.get(owner.attr, ("",))[0] == "sequential":
                info.children[owner.attr] = ("sequential", info.children[owner.attr][1] + layers)
            elif isinstance(owner, ast.Name) and owner.id in local:
                local[owner.id] = ("sequential", local[owner.id][1] + layers)
        elif isinstance(node, (ast.For, ast.While)):
            # a container filled in a loop: its last layer depends on the iterations
            for inner in _walk(node):
                if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) \
                        and inner.func.attr == "add" and _is_self_attribute(inner.func.value):
                    info.children[inner.func.value.attr] = UNKNOWN_CHILD


def _in_order(root: ast.AST) -> Iterable[ast.AST]:
    """Statements and the calls in expression statements, depth first in source order."""
    stack = list(reversed(getattr(root, "body", [])))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.For, ast.While)):
            continue  # handled whole by the caller
        if isinstance(node, ast.Expr):
            yield node.value
        for name in ("body", "orelse", "finalbody", "handlers"):
            stack.extend(reversed(getattr(node, name, []) or []))


def _is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _is_self_attribute(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and _is_name(node.value, "self")


class Package:
    """The index over the files of one run, read lazily."""

    def __init__(self, texts: Dict[str, str]):
        self.texts = texts
        self._definitions: Optional[Dict[str, List[str]]] = None
        self._returns: Dict[Tuple[str, str], Kind] = {}
        self._called: Optional[Dict[str, List[str]]] = None
        self._parameters: Dict[Tuple[str, str], Tuple[Tuple[str, Kind, bool], ...]] = {}
        self.used: Set[str] = set()  # the files whose facts were read: what results depend on
        self._asked: Set[str] = set()  # the files whose classes' contexts were asked for
        # questions being answered, and for each answer under way the open ones it leaned on
        self._open: Set[tuple] = set()
        self._leaning: List[Set[tuple]] = []
        self._provisional: Dict[tuple, Tuple[object, FrozenSet[tuple]]] = {}

    def used_by(self, path: str) -> bool:
        """Whether the check of `path` asked the index anything (its result depends on `used`)."""
        return path in self._asked

    def prepare(self) -> None:
        """Read now what any question reads (where classes are defined, which files call what):
        worker processes forked after this share it instead of each reading it again."""
        self._class_files()
        self._callers("")

    def noted(self) -> Tuple[FrozenSet[str], FrozenSet[str]]:
        """(the files read, the files asked about): what a worker's copy learned, for `note`."""
        return frozenset(self.used), frozenset(self._asked)

    def note(self, noted: Tuple[FrozenSet[str], FrozenSet[str]]) -> None:
        """Record what a worker's copy of the index read, as if this one had."""
        self.used.update(noted[0])
        self._asked.update(noted[1])

    # ---- where things are
    def _info(self, path: str) -> Optional[FileInfo]:
        """The facts of a file of the run, noted as read."""
        text = self.texts.get(path)
        if text is None:
            return None
        self.used.add(path)
        return file_info(path, text)

    def _class_files(self) -> Dict[str, List[str]]:
        if self._definitions is None:
            found: Dict[str, List[str]] = {}
            for path, text in self.texts.items():
                if "class" in text:
                    for name in {c.name for c in file_info(path, text).class_lines}:
                        found.setdefault(name, []).append(path)
            self._definitions = found
        return self._definitions

    def resolve(self, name: str, near: str) -> Optional[ClassInfo]:
        """The class `name` as seen from the file `near`: its own, else the only one in the run."""
        paths = self._class_files().get(name, [])
        if near in paths:
            paths = [near]
        if len(paths) != 1:
            return None
        info = self._info(paths[0])
        return info.cls(name) if info is not None else None

    def _method(self, cls: ClassInfo, name: str, seen: FrozenSet[str] = frozenset()) -> Optional[Tuple[ClassInfo, ast.FunctionDef]]:
        """`name` as the class's instances find it: its own, else a base's in the run."""
        if name in cls.methods:
            return cls, cls.methods[name]
        for base in cls.bases:
            if base in seen:
                continue
            parent = self.resolve(base, cls.path)
            if parent is not None:
                found = self._method(parent, name, seen | {cls.name})
                if found is not None:
                    return found
        return None

    # ---- what calling a child gives
    def call_kind(self, child: _Child, near: str, depth: int = 0) -> Kind:
        if child[0] == "layer":
            return Kind.TENSOR
        if child[0] == "sequential":
            return self.call_kind(child[1][-1], near, depth + 1) if child[1] else Kind.UNKNOWN
        if child[0] == "class" and depth < 8:
            cls = self.resolve(child[1], near)
            if cls is None:
                return Kind.UNKNOWN
            return self.return_kind(cls, depth + 1)
        return Kind.UNKNOWN

    def _memo(self, table: dict, question: str, key: tuple, stand_in, compute):
        """`compute()`, kept in `table` under `key`. A question met again while it is being answered
        (a block that, through others, reaches itself) gets `stand_in`; an answer computed from a
        stand-in is kept only for as long as the question it stood for is open, so that what is
        kept does not depend on which of the blocks of a cycle was asked about first (the order
        in which sets and worker processes ask)."""
        if key in table:
            return table[key]
        tag = (question, key)
        if tag in self._open:
            self._leaning[-1].add(tag)
            return stand_in
        provisional = self._provisional.get(tag) if self._leaning else None
        if provisional is not None:
            self._leaning[-1].update(provisional[1])
            return provisional[0]
        self._open.add(tag)
        self._leaning.append(set())
        try:
            value = compute()
        finally:
            self._open.discard(tag)
            leaned = self._leaning.pop()
        leaned.discard(tag)
        if leaned:
            self._provisional[tag] = (value, frozenset(leaned))
            self._leaning[-1].update(leaned)
        else:
            table[key] = value
        # answers that leaned on this question are answered again when next asked
        for other in [t for t, (_, on) in self._provisional.items() if tag in on]:
            del self._provisional[other]
        return value

    def return_kind(self, cls: ClassInfo, depth: int = 0) -> Kind:
        return self._memo(self._returns, "returns", (cls.path, cls.name), Kind.UNKNOWN,
                          lambda: self._return_kind(cls, depth))

    def _return_kind(self, cls: ClassInfo, depth: int) -> Kind:
        kind = Kind.UNKNOWN
        for name in FORWARDS:
            found = self._method(cls, name)
            if found is not None:
                owner, method = found
                kind = _Scope(self, owner, method).returned(depth)
                break
        else:
            if cls.added or any(base in SEQUENTIAL for base in cls.bases):
                kind = self.call_kind(("sequential", tuple(cls.added)), cls.path, depth)
        return kind

    def child_kinds(self, cls: ClassInfo, called: Optional[Set[str]] = None) -> Tuple[Tuple[str, Kind], ...]:
        """What calling each child gives (those named in `called`, when given)."""
        found = []
        for attr, child in sorted(cls.children.items()):
            if called is not None and attr not in called:
                continue
            kind = self.call_kind(child, cls.path)
            if kind is not Kind.UNKNOWN:
                found.append((attr, kind))
        return tuple(found)

    # ---- what a block is called with
    def _callers(self, name: str) -> List[str]:
        """Files that may construct `name`: those whose text holds `name(`."""
        if self._called is None:
            # the names called in each file that defines a forward method (a block's children are
            # built and called there), read in one pass per file
            self._called = {}
            for path, text in self.texts.items():
                if "hybrid_forward" in text or "def forward" in text:
                    for called in file_info(path, text).called:
                        self._called.setdefault(called, []).append(path)
        return self._called.get(name, [])

    def parameter_kinds(self, cls: ClassInfo) -> Tuple[Tuple[str, Kind, bool], ...]:
        # a block that (through others) calls itself: nothing known, meanwhile
        return self._memo(self._parameters, "parameters", (cls.path, cls.name), (),
                          lambda: self._parameter_kinds(cls))

    def _parameter_kinds(self, cls: ClassInfo) -> Tuple[Tuple[str, Kind, bool], ...]:
        method = cls.methods.get("hybrid_forward")
        if method is None:
            return ()
        params = [a.arg for a in method.args.args[2:]]
        defaults = dict(zip(reversed(params), reversed(method.args.defaults)))
        seen: Dict[str, List[Kind]] = {name: [] for name in params}
        listed: Set[str] = set()  # parameters some call may pass a list, though its kind is unknown
        sites = 0
        for path in self._callers(cls.name):
            info = self._info(path)
            if info is None:
                continue
            for parent in filter(None, map(info.cls, info.classes_calling(cls.name + "("))):
                if self.resolve(cls.name, parent.path) is not cls:
                    continue
                attrs = [a for a, c in parent.children.items() if c == ("class", cls.name)]
                if len(params) > 1 and self._added_to_container(parent, cls):
                    # a container calls it with the outputs of the block before it: unread here
                    sites += 1
                    for name in params:
                        seen[name].append(Kind.UNKNOWN)
                        listed.add(name)
                for caller in parent.methods.containing(["self.%s(" % attr for attr in attrs]):
                    scope = None
                    for call in _calls_of(caller, attrs):
                        scope = scope or _Scope(self, parent, caller)
                        sites += 1
                        self._note_call(call, params, defaults, seen, listed, scope)
        if not sites:
            return ()  # no block calls it: nothing is known
        found = []
        for name in params:
            kinds = seen[name]
            known = [k for k in kinds if k is not Kind.UNKNOWN]
            if name in listed and Kind.TENSOR not in known:
                # a caller passes a list on one path and something unknown on another: what the
                # callers show outweighs a reading of the parameter's name, so nothing is known
                found.append((name, Kind.UNKNOWN, False))
                continue
            if not known:
                continue
            joined = known[0]
            for kind in known[1:]:
                joined = join(joined, kind)
            if joined is not Kind.UNKNOWN:
                found.append((name, joined, len(known) == len(kinds)))
        return tuple(found)

    @staticmethod
    def _added_to_container(parent: ClassInfo, cls: ClassInfo) -> bool:
        """Whether `parent` builds `cls` into a container of its own writing (`seq.add(Cls(...))`,
        `seq` a user class): that container, not a call by name, gives it its inputs. A stock
        `HybridSequential` passes one input, so a multi-input block in one is called by whoever
        iterates it, with arguments read nowhere here."""
        for method in parent.methods.containing([cls.name + "("]):
            nodes = nodes_of(method)
            made = {_dotted(target): node.value for node in nodes if isinstance(node, ast.Assign)
                    for target in node.targets if isinstance(node.value, ast.Call)}
            for node in nodes:
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add"
                        and any(isinstance(arg, ast.Call) and _last_name(arg.func) == cls.name for arg in node.args)):
                    continue
                owner = node.func.value
                if _is_name(owner, "self"):
                    if "hybrid_forward" in parent.methods or "forward" in parent.methods:
                        return True
                    continue
                built = made.get(_dotted(owner))
                if built is None and _is_self_attribute(owner):
                    child = parent.children.get(owner.attr)
                    if child is not None and child[0] == "class":
                        return True
                    continue
                name = _last_name(built.func) if built is not None else None
                if name is not None and name[:1].isupper() and name not in SEQUENTIAL:
                    return True
        return False

    def _note_call(self, call: ast.Call, params, defaults, seen, listed: Set[str], scope: "_Scope") -> None:
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            for name in params:
                seen[name].append(Kind.UNKNOWN)
            return
        passed: Dict[str, ast.expr] = dict(zip(params, call.args))
        passed.update((k.arg, k.value) for k in call.keywords if k.arg in seen)
        for name in params:
            value = passed.get(name, defaults.get(name))
            kind = Kind.UNKNOWN if value is None else scope.kind_at(value, call) if name in passed else \
                scope.kind(value)
            seen[name].append(kind)
            if kind is Kind.UNKNOWN and value is not None and scope.may_be_list(value):
                listed.add(name)

    def context(self, path: str, names: Iterable[str], text: Optional[str] = None,
                called: Optional[Set[str]] = None) -> Dict[str, ClassContext]:
        """The contexts of the classes `names` defined in `path` (whose text is `text`, when it
        differs from the run's: a file being fixed), with the children named in `called`."""
        if text is not None and self.texts.get(path) != text:
            self.texts = dict(self.texts)
            self.texts[path] = text
            self._returns.clear()
            self._parameters.clear()
            self._provisional.clear()
        self._asked.add(path)
        info = self._info(path)
        if info is None:
            return {}
        found = {}
        for name in sorted(names):
            cls = info.cls(name)
            if cls is None:
                continue
            context = ClassContext(self.parameter_kinds(cls), self.child_kinds(cls, called))
            if context.parameters or context.children:
                found[name] = context
        return found


def helpers(package: Package, path: str, owners: Iterable[str]) -> List[Helper]:
    """The methods and module functions of `path` that the hybrid_forwards of `owners` call with F
    or with tensors: the class's own methods and its subclasses' overrides in the file, and the
    file's functions (a callee defined in another file is left alone). Each is analyzed with the
    join of what the hybrid_forward calls pass it: other callers do not trace it."""
    info = package._info(path)
    if info is None:
        return []
    sites: Dict[int, Tuple[ast.FunctionDef, List[Tuple[ast.Call, "_Scope", bool]]]] = {}
    for owner in owners:
        cls = info.cls(owner)
        method = cls.methods.get("hybrid_forward") if cls is not None else None
        if method is None:
            continue
        scope = None
        for call in _reading(method)[1]:
            if not isinstance(call, ast.Call):
                continue
            targets, bound = [], True
            if _is_self_attribute(call.func) and call.func.attr not in cls.children:
                name = call.func.attr
                targets = [c.methods[name] for c in [cls] + info.subclasses(owner) if name in c.methods]
            elif isinstance(call.func, ast.Name) and info.function(call.func.id) is not None:
                targets, bound = [info.function(call.func.id)], False
            if not targets or any(isinstance(a, ast.Starred) for a in call.args) or \
                    any(k.arg is None for k in call.keywords):
                continue
            scope = scope or _Scope(package, cls, method)
            passes_f = any(_is_name(a, scope.namespace) for a in call.args)
            if not passes_f and not any(scope.kind(a) is Kind.TENSOR for a in call.args):
                continue
            for target in targets:
                sites.setdefault(id(target), (target, []))[1].append((call, scope, bound))
    found = []
    for target, calls in sites.values():
        helper = _helper(target, calls)
        if helper is not None:
            found.append(helper)
    return sorted(found, key=lambda h: h.row)


def _helper(target: ast.FunctionDef, calls) -> Optional[Helper]:
    if target.name in FORWARDS or target.args.vararg is not None or target.args.posonlyargs:
        return None
    params = [a.arg for a in target.args.args]
    kinds: Dict[str, List[Kind]] = {name: [] for name in params}
    namespace = None
    for call, scope, bound in calls:
        names = params[1:] if bound else params
        if len(call.args) > len(names):
            return None
        passed = dict(zip(names, call.args))
        passed.update((k.arg, k.value) for k in call.keywords)
        for name in names:
            value = passed.get(name)
            if value is not None and _is_name(value, scope.namespace):
                if namespace not in (None, name):
                    return None
                namespace = name
            else:
                kinds[name].append(scope.kind(value) if value is not None else Kind.UNKNOWN)
    parameters = []
    for name in params[1:] if calls[0][2] else params:
        if name == namespace or not kinds[name]:
            continue
        joined = kinds[name][0]
        for kind in kinds[name][1:]:
            joined = join(joined, kind)
        parameters.append((name, joined))
    first = min([target.lineno] + [d.lineno for d in target.decorator_list])
    return Helper(target.name, first, target.end_lineno or target.lineno, namespace, tuple(parameters),
                  tuple((call.lineno, call.col_offset + 1) for call, _, _ in calls))


def _calls_of(method: ast.FunctionDef, attrs: List[str]) -> Iterable[ast.Call]:
    for node in nodes_of(method):
        if isinstance(node, ast.Call) and _is_self_attribute(node.func) and node.func.attr in attrs:
            yield node


def _reading(method: ast.FunctionDef) -> Tuple[Optional[str], List[ast.AST], Dict[str, List[object]]]:
    """(the parameter that receives F, the method's nodes, what each name is bound to): read once
    per method, which is read as a caller, as a child and as a helper's caller, and by the language
    server again on every keystroke (the trees of unchanged methods are kept)."""
    return _kept(_READINGS, method, _read_method)


def _read_method(method: ast.FunctionDef) -> Tuple[Optional[str], List[ast.AST], Dict[str, List[object]]]:
    args = method.args
    positional = [a.arg for a in args.args]
    namespace = positional[1] if method.name == "hybrid_forward" and len(positional) > 1 else None
    bindings: Dict[str, List[object]] = {}
    for name in positional[1:] + [a.arg for a in args.kwonlyargs]:
        bindings[name] = [Kind.UNKNOWN]
    if method.name == "hybrid_forward":
        defaults = len(args.args) - len(args.defaults)
        for index, name in enumerate(positional[2:], start=2):
            if index < defaults:
                bindings[name] = [("parameter", name)]
    if args.vararg is not None:
        bindings[args.vararg.arg] = [Kind.SEQUENCE]
    if args.kwarg is not None:
        bindings[args.kwarg.arg] = [Kind.PYTHON]
    nodes = nodes_of(method)
    for node in nodes:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                _bind(bindings, target, node.value)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            _bind(bindings, node.target, node if isinstance(node, ast.AugAssign) else node.value)
        elif isinstance(node, (ast.For, ast.comprehension)):
            _bind(bindings, node.target, ("item", node.iter))
        elif isinstance(node, (ast.withitem,)) and node.optional_vars is not None:
            _bind(bindings, node.optional_vars, Kind.UNKNOWN)
        elif isinstance(node, ast.NamedExpr):
            _bind(bindings, node.target, node.value)
    return namespace, nodes, bindings


def nodes_of(method: ast.FunctionDef) -> List[ast.AST]:
    """Every node of a method (`_walk`), listed once: a method is read as a container's builder, a
    caller and a child (the list is only read, never changed)."""
    return _kept(_NODES, method, _walk)


def _kept(table: "Recent[int, tuple]", method: ast.FunctionDef, compute):
    """`compute(method)`, kept in `table` by the method's id (a method's readings are asked for
    in bursts, while its class is read: a hit need not refresh the order)."""
    found = table.get(id(method))
    if found is not None and found[0] is method:
        return found[1]
    value = compute(method)
    table.keep(id(method), (method, value))  # the method is kept: its id is not reused meanwhile
    return value


def _bind(bindings: Dict[str, List[object]], target, value) -> None:
    if isinstance(target, ast.Name):
        bindings.setdefault(target.id, []).append(value)
    elif isinstance(target, (ast.Tuple, ast.List)):
        if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts):
            for inner, item in zip(target.elts, value.elts):
                _bind(bindings, inner, item)
        else:
            for inner in target.elts:
                _bind(bindings, inner, ("item", value) if isinstance(value, ast.expr) else Kind.UNKNOWN)
    elif isinstance(target, ast.Starred):
        _bind(bindings, target.value, Kind.UNKNOWN)


_READINGS: "Recent[int, tuple]" = Recent(_DEFINITIONS.size)
_NODES: "Recent[int, tuple]" = Recent(_DEFINITIONS.size)


class _Scope:
    """Kinds of expressions in one method, flow-insensitively: a name has the join of every value
    bound to it anywhere in the method."""

    def __init__(self, package: Package, cls: ClassInfo, method: ast.FunctionDef):
        self.package, self.cls, self.method = package, cls, method
        info = package._info(cls.path)
        self.imports = info.imports if info is not None else ModuleFacts()
        self.namespace, self.nodes, self.bindings = _reading(method)
        self._busy: Set[str] = set()
        self._stores: Optional[Counter] = None  # how often each name is bound, anywhere in the method

    def returned(self, depth: int) -> Kind:
        kinds = [self.kind(node.value) if node.value is not None else Kind.NONE
                 for node in self.nodes if isinstance(node, ast.Return)]
        if not kinds:
            return Kind.NONE
        joined = kinds[0]
        for kind in kinds[1:]:
            joined = join(joined, kind)
        return joined

    def _value(self, value) -> Kind:
        if isinstance(value, Kind):
            return value
        if isinstance(value, tuple) and value[0] == "parameter":
            # what the caller's own parameter holds: what its callers pass, else what the analysis
            # reads from its name (the same reading, so that the two agree); asked only when needed
            for name, kind, complete in self.package.parameter_kinds(self.cls):
                if name == value[1] and (complete or kind is Kind.UNKNOWN):
                    return kind
            return name_kind(value[1])
        if isinstance(value, tuple):  # ("item", iterable): an element of it
            return _element(self.kind(value[1]))
        if isinstance(value, ast.AugAssign):
            target, other = self.kind(value.target), self.kind(value.value)
            if Kind.TENSOR in (target, other):
                return Kind.TENSOR
            return target if target is other else Kind.UNKNOWN
        return self.kind(value)

    def may_be_list(self, node: ast.expr) -> bool:
        """Whether a name some path binds to a list of values holds one: the flow-insensitive join
        forgets that where another path binds it to something unknown."""
        if not isinstance(node, ast.Name) or node.id in self._busy:
            return False
        self._busy.add(node.id)
        try:
            return any(self._value(value) is Kind.SEQUENCE for value in self.bindings.get(node.id, ()))
        finally:
            self._busy.discard(node.id)

    def kind_at(self, node: ast.expr, call: ast.AST) -> Kind:
        """The kind of `node` where `call` passes it: a name bound only by plain statements of the
        method's own body (`z = self.normalize(z)`, then `z = self.sample(z)`) holds what the last
        of them before the call's statement bound; any other name, the join of all its bindings."""
        reaching = self._reaching(node.id, call) if isinstance(node, ast.Name) else None
        return self.kind(node) if reaching is None else self._value(reaching)

    def _reaching(self, name: str, call: ast.AST):
        body = self.method.body
        at = next((i for i, statement in enumerate(body)
                   if statement.lineno <= call.lineno <= (statement.end_lineno or statement.lineno)), None)
        if at is None or name in self._busy:
            return None
        plain = [(i, statement.value) for i, statement in enumerate(body)
                 if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None
                 and [_is_name(t, name) for t in (statement.targets if isinstance(statement, ast.Assign)
                                                   else [statement.target])] == [True]]
        if self._stores is None:  # (asked per name and call: counted once per method)
            self._stores = Counter(node.id for node in self.nodes
                                   if type(node) is ast.Name and type(node.ctx) is not ast.Load)
        if self._stores[name] != len(plain):
            return None  # bound in a branch, a loop, an unpacking: no single binding reaches
        before = [value for i, value in plain if i < at]
        if before:
            return before[-1]
        parameters = [a.arg for a in self.method.args.args + self.method.args.kwonlyargs]
        return self.bindings[name][0] if name in parameters and self.bindings.get(name) else None

    def kind(self, node: ast.expr) -> Kind:
        if isinstance(node, ast.Name):
            if node.id in self._busy or node.id not in self.bindings:
                return Kind.UNKNOWN
            self._busy.add(node.id)
            try:
                values = self.bindings[node.id]
                joined = self._value(values[0])
                for value in values[1:]:
                    joined = join(joined, self._value(value))
                    if joined is Kind.UNKNOWN:
                        break
                return joined
            finally:
                self._busy.discard(node.id)
        if isinstance(node, ast.Constant):
            return Kind.NONE if node.value is None else Kind.PYTHON
        if isinstance(node, ast.JoinedStr):
            return Kind.PYTHON
        if isinstance(node, (ast.List, ast.Tuple)):
            items = [self.kind(e) for e in node.elts]
            if items and all(k is Kind.PYTHON for k in items):
                return Kind.PYTHON  # `(224, 224)`: a tuple of numbers
            if items and isinstance(node, ast.Tuple) and all(k is Kind.TENSOR for k in items):
                return Kind.GROUP   # `return out, state`: integer indexing gives a tensor
            return Kind.SEQUENCE
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)):
            return Kind.SEQUENCE
        if isinstance(node, (ast.Dict, ast.DictComp, ast.Set, ast.SetComp)):
            return Kind.PYTHON
        if isinstance(node, ast.BinOp):
            left, right = self.kind(node.left), self.kind(node.right)
            if Kind.TENSOR in (left, right):
                return Kind.TENSOR
            if {left, right} & {Kind.SEQUENCE, Kind.GROUP} and isinstance(node.op, (ast.Add, ast.Mult)):
                return Kind.SEQUENCE
            return Kind.PYTHON if left is right is Kind.PYTHON else Kind.UNKNOWN
        if isinstance(node, ast.UnaryOp):
            operand = self.kind(node.operand)
            return Kind.PYTHON if isinstance(node.op, ast.Not) and operand is Kind.PYTHON else \
                operand if operand in (Kind.TENSOR, Kind.PYTHON) else Kind.UNKNOWN
        if isinstance(node, ast.IfExp):
            return join(self.kind(node.body), self.kind(node.orelse))
        if isinstance(node, ast.Attribute):
            if _is_name(node.value, "self"):
                return Kind.UNKNOWN if node.attr in self.cls.children else Kind.PYTHON
            if node.attr in ("shape", "ndim"):
                return Kind.PYTHON  # sizes, whatever holds them (a name bound on several paths too)
            base = self.kind(node.value)
            if base in (Kind.TENSOR, Kind.MAYBE) and node.attr in ("size", "dtype", "context"):
                return Kind.PYTHON
            return Kind.TENSOR if base is Kind.TENSOR and node.attr == "T" else Kind.UNKNOWN
        if isinstance(node, ast.Subscript):
            base = self.kind(node.value)
            single = not isinstance(node.slice, (ast.Slice, ast.Tuple))
            if base is Kind.TENSOR:
                return Kind.TENSOR
            if base is Kind.GROUP:
                return Kind.TENSOR if single else Kind.GROUP
            if base is Kind.SEQUENCE:
                return Kind.MAYBE if single else Kind.SEQUENCE
            if base is Kind.PYTHON and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
                return Kind.PYTHON  # `x.shape[2:]`: sizes, on every path
            return Kind.UNKNOWN
        if isinstance(node, ast.Call):
            return self._call(node)
        return Kind.UNKNOWN

    def _call(self, node: ast.Call) -> Kind:
        func = node.func
        name = _dotted(func)
        if name is not None:
            head, _, rest = name.partition(".")
            if head == self.namespace and rest:
                return namespace_kind(rest, node)
            if head == "self" and rest and "." not in rest:
                # (as the analysis reads it: a child called with nothing is not known)
                child = self.cls.children.get(rest) if node.args else None
                return self.package.call_kind(child, self.cls.path) if child is not None else Kind.UNKNOWN
            if "." not in name and name in PYTHON_BUILTINS and name not in self.bindings:
                return Kind.PYTHON
            if head not in self.bindings:
                resolved = self.imports.resolve_dotted(name)
                if resolved is not None and resolved.startswith(NAMESPACE_PREFIXES):
                    return namespace_kind(resolved.split(".", 2)[2], node)
                return Kind.UNKNOWN
        if isinstance(func, ast.Attribute):
            receiver = self.kind(func.value)
            if receiver is Kind.TENSOR:
                if func.attr not in TENSOR_METHODS:
                    return Kind.UNKNOWN  # no tensor has it: the receiver is something else
                if func.attr in GROUP_OPS:  # `x.split(num_outputs=2)`, `x.topk(ret_typ='both')`
                    return outputs_kind(func.attr, node, 1)
                return Kind.PYTHON if func.attr in PYTHON_METHODS else Kind.TENSOR
        return Kind.UNKNOWN


def name_kind(name: str) -> Kind:
    """The analysis's reading of a parameter from its name alone, where nothing else is known."""
    lowered = name.lower()
    if any(word in lowered for word in STATE_WORDS) or lowered.endswith("list"):
        return Kind.SEQUENCE
    if lowered.endswith("s") and not lowered.endswith("ss") and lowered not in TENSOR_PLURALS \
            and lowered.split("_")[-1] not in TENSOR_PLURALS:
        return Kind.MAYBE
    return Kind.TENSOR


def _element(container: Kind) -> Kind:
    return {Kind.GROUP: Kind.TENSOR, Kind.SEQUENCE: Kind.MAYBE, Kind.PYTHON: Kind.PYTHON}.get(container, Kind.UNKNOWN)


def namespace_kind(op: str, call: ast.Call) -> Kind:
    """What `F.<op>(...)` gives, as the analysis reads it."""
    short = op.rsplit(".", 1)[-1]
    if short in NESTED_OPS:
        return Kind.SEQUENCE
    if op.startswith(("np.", "npx.")):
        return Kind.UNKNOWN
    return outputs_kind(short, call, 0)


def outputs_kind(op: str, call: ast.Call, shift: int) -> Kind:
    """As the analysis's `_outputs_kind`: one output a tensor, several a group; an unknown count a
    group for the split family and a tensor or group otherwise (`shift`: 1 for a method)."""
    count = output_count(op, lambda name: _literal_argument(call, name),
                         lambda index: _literal_argument(call, index - shift))
    if count == UNKNOWN_COUNT:
        return Kind.GROUP if op in COUNTED_OUTPUTS else Kind.MAYBE
    return Kind.TENSOR if count == 1 else Kind.GROUP
