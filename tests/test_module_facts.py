"""Module-level facts read from the text: import aliases and class lines."""
from hyblint.analysis.module import collect_imports
from hypothesis import given, strategies as st

SOURCE = '''"""A module.

import this line is prose in a docstring, not an import
"""
import mxnet as mx
from mxnet import nd, sym as S
from mxnet.gluon import (nn,
                         rnn as R)
from ... import ndarray as F_nd
try:
    import numpy as np
except ImportError:  # optional
    np = None


def helper():
    import math as m  # inside a function: not the module's
    return m
'''


def test_imports_are_read_from_the_text_even_next_to_prose_that_looks_like_one():
    assert collect_imports(SOURCE).aliases == {
        "mx": "mxnet", "nd": "mxnet.nd", "S": "mxnet.sym", "nn": "mxnet.gluon.nn", "R": "mxnet.gluon.rnn",
        "F_nd": "mxnet.ndarray", "np": "numpy"}


def test_imports_alone_parse_in_one_go():
    facts = collect_imports("import mxnet as mx\nfrom mxnet import autograd\n")
    assert facts.aliases == {"mx": "mxnet", "autograd": "mxnet.autograd"}
    assert facts.resolve_dotted("autograd.is_training") == "mxnet.autograd.is_training"
    assert facts.resolve_dotted("mx.nd.relu", shadowed=frozenset({"mx"})) is None


def test_imports_after_indented_code_and_on_continued_lines():
    source = ("import os  # the word import again: import sys\n"
              "if os.name:\n"
              "    import numpy as np; import math\n"
              "\n"
              "    # a comment at the left\n"
              "    from mxnet import \\\n"
              "        nd\n"
              "class A:\n"
              "    import re as r\n"
              "x = 'import foo'\n"
              "from mxnet import sym  # import at the end")
    assert collect_imports(source).aliases == {
        "os": "os", "np": "numpy", "nd": "mxnet.nd", "sym": "mxnet.sym"}


# A line-start pattern found through a word it holds: the same matches as the engine's own scan.
_LINE_TEXTS = st.lists(st.sampled_from([
    "def f(x):", "    def hybrid_forward(self, F, x):", "\tdef g():", "import os", "from a.b import c",
    "x = 1  # def not", "undefined = 2", "  import  numpy as np", "s = 'import x'", "", "   ", "default()",
    "defx = 3", "\r", "class A:", "def\th(y): return import_it"]), max_size=12).map("\n".join)


@given(_LINE_TEXTS, st.integers(0, 40), st.integers(0, 200))
def test_line_matches_are_the_engines(text, start, length):
    import re
    from hyblint.analysis.module import _IMPORT, line_matches
    from hyblint.triage import _DEF, _DEF_LINE
    start = text.rfind("\n", 0, min(start, len(text))) + 1  # (callers start at a line's start)
    end = min(len(text), start + length)
    for pattern, word in ((_DEF, "hybrid_forward"), (_DEF_LINE, "def"), (_IMPORT, "import")):
        assert pattern.flags & re.MULTILINE
        ours = [(m.start(), m.end(), m.groups()) for m in line_matches(pattern, word, text, start, end)]
        assert ours == [(m.start(), m.end(), m.groups()) for m in pattern.finditer(text, start, end)]
