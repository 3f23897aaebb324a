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
