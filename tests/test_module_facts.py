"""Module-level facts read from the text: import aliases and class lines."""
from hyblint.analysis.module import collect_imports

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
