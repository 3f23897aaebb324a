"""The rule API: a rule is a class with its code, message, docs, examples and checks.

A rule visits the nodes of each hybrid_forward in scope, like a libcst visitor: define
`visit_<NodeType>(self, node)` methods. Facts about the function are in `self.facts` (the kind
of every expression: `self.facts.kind(node)`), module imports in `self.imports`. Report with

    self.report(node, message=None, fix=None)

where `fix` is a `CstFix`: replacements of original nodes by new nodes, by source text (checked
by re-parsing before anything is written), or by `REMOVE` to drop a whole statement line; its
applicability and a short message. The engine turns the replacements into
text edits, so everything outside the replaced nodes stays byte-identical.

Each rule carries VALID and INVALID examples (whole modules); the test suite checks that every
VALID one yields no diagnostic of the rule, and every INVALID one exactly the diagnostics it names
(and, where `fixed` is given, that `hyblint --fix` turns it into that text).

A rule is its module alone, `hyblint/rules/hybNNN_<name>.py`: the registry and the code table
of `selection.py` find it by its file name. Before libcst parses a method, the `ast` screen
(`analysis/screen.py`) clears those where no rule can report: a rule names what the screen must
look for in `screen_triggers` (names of the screen's SCREEN_TRIGGERS, a test keeps the two equal);
a rule without them turns the screen off while it is selected. The names a rule looks for belong
in `analysis/vocabulary.py`, which the screen reads too; the README's rule table is tested equal
to the rule classes.

One diagnostic per failure: where rules report nested code, the engine keeps the innermost (the
operand Python evaluates first: `y.size()[0]` is HYB002's, not HYB001's too), and of several rules
on one node the first in code order (`engine.one_per_failure`).
"""
from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import ClassVar, List, Optional, Sequence, Tuple, Union

import libcst as cst

from hyblint.analysis.function import FunctionFacts
from hyblint.analysis.kinds import Kind
from hyblint.analysis.module import ModuleFacts
from hyblint.diagnostics import Applicability, Severity



class _Remove:
    def __repr__(self) -> str:
        return "REMOVE"


REMOVE = _Remove()  # replacement that deletes a whole statement line


@dataclass(frozen=True)
class CstFix:
    # each original node is replaced by a new node, by source text, or removed (REMOVE)
    replacements: Tuple[Tuple[cst.CSTNode, Union[cst.CSTNode, str, _Remove]], ...]
    message: str
    applicability: Applicability = Applicability.SAFE


@dataclass
class Violation:
    rule: "Rule"
    node: cst.CSTNode
    message: str
    fix: Optional[CstFix] = None


@dataclass(frozen=True)
class Invalid:
    """A module the rule must flag: `expected` diagnostics (default 1); `fixed` after --fix."""

    code: str
    expected: int = 1
    fixed: Optional[str] = None
    unsafe: bool = False  # the fix of this example needs --unsafe-fixes


def hybrid_block(body: str, args: str = "x", imports: str = "", name: str = "Net") -> str:
    """A small module with one HybridBlock whose hybrid_forward has `body` (for examples)."""
    header = "import mxnet as mx\nfrom mxnet import nd\nfrom mxnet.gluon import nn\n" + imports
    return header + "\n\nclass %s(nn.HybridBlock):\n    def hybrid_forward(self, F, %s):\n%s\n" % (
        name, args, textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8))


class Rule:
    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity] = Severity.ERROR
    message: ClassVar[str]
    default_selected: ClassVar[bool] = True
    fix_availability: ClassVar[str] = "never"   # "always", "sometimes" or "never"
    # What the `ast` screen must look for so as never to clear a method this rule reports in (its
    # names in analysis/screen.py's SCREEN_TRIGGERS); None: the screen does not know the rule and
    # is off while it is selected.
    screen_triggers: ClassVar[Optional[Tuple[str, ...]]] = None
    fix_summary: ClassVar[str] = "none"  # what the fix rewrites to, for the README's rule table
    docs: ClassVar[str]
    VALID: ClassVar[Sequence[str]] = ()
    INVALID: ClassVar[Sequence[Invalid]] = ()

    def __init__(self, module: cst.Module, imports: ModuleFacts) -> None:
        self.module = module
        self.imports = imports
        self.facts: FunctionFacts = None  # set by the engine for each hybrid_forward
        self.function: cst.FunctionDef = None
        self.violations: List[Violation] = []

    # ---- helpers for rules
    def report(self, node: cst.CSTNode, message: Optional[str] = None, fix: Optional[CstFix] = None) -> None:
        self.violations.append(Violation(self, node, message or self.message, fix))

    def kind(self, node: cst.CSTNode) -> Kind:
        return self.facts.kind(node)

    def is_tensor(self, node: cst.CSTNode) -> bool:
        return self.facts.kind(node) is Kind.TENSOR

    @property
    def F(self) -> str:
        return self.facts.namespace

    def code_of(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    @classmethod
    def url(cls) -> str:
        """The rule's page, relative to the repository (see `hyblint.docs_links`)."""
        from hyblint.docs_links import rule_path
        return rule_path(cls.code)

    @classmethod
    def render_docs(cls) -> str:
        fix = {"always": "Fix is always available.", "sometimes": "Fix is sometimes available.",
               "never": "No automatic fix."}[cls.fix_availability]
        default = "" if cls.default_selected else " Not selected by default: enable it with `--extend-select %s`." % cls.code
        head = "# %s (%s)\n\nSeverity: %s. %s%s\n\n" % (cls.name, cls.code, cls.severity.value, fix, default)
        return head + textwrap.dedent(cls.docs).strip() + "\n"
