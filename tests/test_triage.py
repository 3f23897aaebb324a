"""Triage cuts methods out of the text where Python's own parser confirms what the text scan found."""
import textwrap

from hyblint.engine import check_source, finish
from hyblint.triage import triage

# A base class whose docstring shows how to subclass it, as MXNet's own `gluon/block.py` does: the
# class and method lines of the example are text, not code.
DOCUMENTED = textwrap.dedent('''\
    from mxnet.gluon import nn


    class Base(nn.HybridBlock):
        """Subclass me::

            class Model(Base):
                def hybrid_forward(self, F, x):
                    return x.shape[0]
        """

        def hybrid_forward(self, F, x):
            raise NotImplementedError


    class Net(Base):
        def hybrid_forward(self, F, x):
            return x[0]
    ''')


def test_an_example_in_a_docstring_leaves_the_methods_cut_out():
    first = triage(DOCUMENTED, "documented.py")
    assert not first.whole_module
    assert [(s.owner, s.row) for s in first.snippets] == [("Net", 17)]  # the screen cleared Base's
    assert [(d.code, d.location.row) for d in check_source(DOCUMENTED, "documented.py")] == [("HYB001", 18)]


def test_what_is_cut_out_reports_what_the_whole_module_does():
    exact = finish(triage(DOCUMENTED, "documented.py", exact=True))
    assert exact == check_source(DOCUMENTED, "documented.py")


def test_a_method_the_scan_cannot_place_parses_the_whole_module():
    continued = DOCUMENTED.replace("class Net(Base):", "class \\\nNet(Base):")
    assert triage(continued, "continued.py").whole_module
    assert [(d.code, d.location.row) for d in check_source(continued, "continued.py")] == [("HYB001", 19)]


HELPED = textwrap.dedent('''\
    from mxnet.gluon import nn


    class Net(nn.HybridBlock):
        def _scale(self, F, x):
            return F.relu(x) * 2

        def _first(self, F, x):
            return x[0]

        def hybrid_forward(self, F, x):
            y = self._scale(F, x)
            return self._first(F, x) + y + x.shape[0]
    ''')


def test_a_helper_the_screen_clears_is_not_parsed_with_libcst(monkeypatch):
    import hyblint.engine as engine
    parsed = []
    parse = engine.cst.parse_module
    monkeypatch.setattr(engine.cst, "parse_module", lambda text: parsed.append(text) or parse(text))
    engine._SNIPPET_CACHE.clear()
    from hyblint.analysis.index import Package
    found = check_source(HELPED, "helped.py", package=Package({"helped.py": HELPED}))
    assert [(d.code, d.location.row) for d in found] == [("HYB001", 9), ("HYB002", 13)]
    assert [text.split("(")[0] for text in parsed] == ["def hybrid_forward", "def _first"]


def test_the_symbol_tables_own_entries_list_what_its_wrappers_do():
    import symtable

    from hyblint import triage as module
    source = DOCUMENTED + "def f():\n    class Inner(Net):\n        def hybrid_forward(self, F, x):\n" \
                          "            return [y for y in x]\n    def hybrid_forward(F):\n        pass\n"
    table = symtable.symtable(source, "t.py", "exec")
    listed = module._listed(table)
    assert listed == module._listed_wrapped(table)
    assert sorted(listed[0]) == [(4, "Base"), (16, "Net"), (20, "Inner")]
    assert sorted(listed[1], key=str) == [(12, "Base"), (17, "Net"), (21, "Inner"), (23, None)]


# A module of several parts: decorated and plain classes, a function, statements between them, and
# a docstring whose example starts lines with `class` and `def` (cut points inside a string).
PARTED = DOCUMENTED + textwrap.dedent('''\

    LIMIT = 3


    @register
    @other(1)
    class Decorated(Net):
        def hybrid_forward(self, F, x):
            return x


    def helper(x):
        """Example:
    def hybrid_forward(self, F, x):
        pass
    """
        return x


    async def later():
        pass


    class Last(nn.HybridBlock):
        def hybrid_forward(self, F, x, *args):
            return x
    ''')


def _whole(source):
    import symtable

    from hyblint import triage as module
    try:
        return module._listed(symtable.symtable(source, "p.py", "exec")), None
    except SyntaxError as exc:
        return None, (exc.lineno, exc.msg)


def _parted(source):
    from hyblint import triage as module
    listed, error = module._listing(source, "p.py")
    if listed is not None:
        listed = (sorted(listed[0]), sorted(listed[1], key=str))
    return listed, None if error is None else (error.location.row, error.message)


def _sorted(result):
    listed, error = result
    return (None if listed is None else (sorted(listed[0]), sorted(listed[1], key=str))), \
        None if error is None else error[0]


def test_a_module_parsed_part_by_part_lists_what_the_whole_module_does():
    from hyblint import triage as module
    assert len(module._parts(PARTED)) >= 5
    module._PARTS.clear()
    assert _parted(PARTED)[0] == _sorted(_whole(PARTED))[0]
    assert _parted(PARTED)[0] == _sorted(_whole(PARTED))[0]  # again, from the parts' listings kept


def test_what_a_part_accepts_alone_but_the_module_does_not_is_parsed_whole():
    from hyblint import triage as module
    global_after = "x = 1\n\n\nclass A:\n    pass\n\n\nclass B:\n    pass\nglobal x\n"
    module._PARTS.clear()
    assert module._parts(global_after) is None
    listed, error = _parted(global_after)
    assert listed is None and error == (10, "syntax error: name 'x' is assigned to before global declaration")
    late_future = PARTED + "\nfrom __future__ import annotations\n"  # the compiler's to reject, as whole
    assert _parted(late_future)[0] == _sorted(_whole(late_future))[0]


def test_part_by_part_parsing_agrees_with_the_whole_module_under_mutations():
    """Any edit (a deleted, doubled or inserted character, as typing makes them): the parts are
    accepted exactly when the whole module is, with the same listing, and an error is Python's own."""
    import random
    import warnings

    from hyblint import triage as module
    warnings.simplefilter("ignore")  # (the parser's warnings on the mutants' escapes; reset after the test)
    rng = random.Random(7)
    inserts = ['"""', "'", "(", ")", ":", "\n", "    ", "\\", "@x\n", "class C:\n", "else:\n", "#"]
    checked = rejected = 0
    for _ in range(600):
        source, at = PARTED, rng.randrange(len(PARTED))
        kind = rng.randrange(3)
        if kind == 0:
            source = source[:at] + source[at + 1:]
        elif kind == 1:
            source = source[:at] + source[at] + source[at:]
        else:
            source = source[:at] + rng.choice(inserts) + source[at:]
        whole = _sorted(_whole(source))
        listed, error = _parted(source)
        assert listed == whole[0], source
        assert (error is None) == (whole[1] is None), source
        if error is not None:
            assert error[0] == whole[1]
            rejected += 1
        checked += 1
    assert rejected > 50  # the mutations reached the parser's errors too


def test_a_file_is_parsed_whole_when_first_seen_and_part_by_part_when_seen_again():
    """A check of a tree reads each file once: the whole module is parsed, which costs less than
    its parts. A file triaged again is being edited: from then on its parts' listings are kept."""
    from hyblint import triage as module
    source = "from mxnet.gluon import nn\n" + "".join(
        "\n\nclass Net%d(nn.HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x[%d]\n" % (n, n)
        for n in range(3))
    module._PARTS.clear()
    name = "edited_%d.py" % len(module._SEEN)
    first = module.triage(source, name)
    assert not module._PARTS
    again = module.triage(source, name)
    assert set(module._PARTS) == {text for _, text in module._parts(source)} and len(module._PARTS) == 4
    assert (first.scope, first.snippets) == (again.scope, again.snippets) and len(first.snippets) == 3


SHARED = textwrap.dedent('''\
    from mxnet.gluon import nn


    class Net(nn.HybridBlock):
        def hybrid_forward(self, F, x):
            return x[0]  # a tensor's row: kept


    class Decorated(nn.HybridBlock):
        @staticmethod
        def helper(x):
            return x

        @some_decorator
        def hybrid_forward(self, F, x):
            y = x
            return y.shape
    ''')


def test_the_screen_and_the_index_parse_a_method_once(monkeypatch):
    """The screen takes a hybrid_forward's tree from the index's definitions, where the snippet is
    the lines the index parses (no decorators above it): one parse for both in one process."""
    import ast
    from hyblint.analysis import index
    from hyblint.analysis.index import Package
    from hyblint.triage import with_context
    monkeypatch.setattr(index, "_DEFINITIONS", type(index._DEFINITIONS)(index._DEFINITIONS.size))
    parsed = []
    real_parse = ast.parse
    monkeypatch.setattr(ast, "parse", lambda text, *a, **k: parsed.append(text) or real_parse(text, *a, **k))
    first = triage(SHARED, "shared.py")
    assert [(s.owner, s.start >= 0) for s in first.snippets] == [("Net", True), ("Decorated", False)]
    screened = len(parsed)
    with_context(first, Package({"shared.py": SHARED}))
    # the index reads Net's hybrid_forward (what its callers pass, its children) without parsing it again
    again = [text for text in parsed[screened:] if "return x[0]" in text]
    assert again == [], again
    assert [(d.code, d.location.row) for d in finish(first)] == [("HYB001", 6), ("HYB002", 17)]
