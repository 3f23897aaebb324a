"""The fixer's parse check reads the whole fixed text with Python's parser, and with libcst only
the methods (or top-level statements) that a fix changed: each must still be read by both."""
from hyblint import fixer
from hyblint.fixer import parses_where_changed

SOURCE = '''import mxnet as mx


class Net(mx.gluon.HybridBlock):
    scale = 2

    def hybrid_forward(self, F, x):
        """A docstring
with a line at column 0."""
        return F.relu(x)

    @staticmethod
    def other(x):
        return x


def helper(x):
    return x
'''


def where(text):
    begin = SOURCE.index(text)
    return [(begin, begin + len(text))]


def test_a_changed_method_is_read_as_it_is_indented():
    assert parses_where_changed(SOURCE, where("F.relu(x)"))
    assert parses_where_changed(SOURCE, where("return x\n\n\ndef"))


def test_what_libcst_cannot_read_is_found_in_the_method_the_class_or_the_function(monkeypatch):
    read = []

    def reads(text):
        read.append(text)
        return "BROKEN" not in text

    monkeypatch.setattr(fixer, "_libcst_reads", reads)
    fixer._READ_METHODS.clear()
    for changed, piece in [("return F.relu(x)", "def hybrid_forward"), ("scale = 2", "class Net"),
                           ("        return x", "def other"), ("def helper(x):", "def helper")]:
        broken = SOURCE.replace(changed, changed + "  # BROKEN", 1)
        begin = broken.index("BROKEN")
        read.clear()
        assert not parses_where_changed(broken, [(begin, begin + 6)]), changed
        assert len(read) == 1 and piece in read[0] and "import mxnet" not in read[0]
    assert not parses_where_changed("x = (\n", [(0, 1)])  # Python's parser reads it whole first


def test_a_method_read_once_is_not_read_again(monkeypatch):
    fixer._READ_METHODS.clear()
    assert parses_where_changed(SOURCE, where("F.relu(x)"))
    monkeypatch.setattr(fixer, "_libcst_reads", lambda text: False)
    assert parses_where_changed(SOURCE, where("F.relu(x)"))  # the same text: known to be read
    assert not parses_where_changed(SOURCE, where("scale = 2"))
