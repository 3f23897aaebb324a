"""Fix safety from freshness: HYB005/HYB006 rewrites are safe exactly where the written name holds
an array no one else can see (an operator's result, not a parameter, not aliased before the write)."""
import pytest

from hyblint.diagnostics import Applicability
from hyblint.engine import check_source
from hyblint.rules.base import hybrid_block
from hyblint.settings import Settings

SAFE, UNSAFE = Applicability.SAFE, Applicability.UNSAFE


def applicabilities(source, code):
    found = check_source(source, "example.py", Settings(select=(code,)))
    return [d.fix.applicability for d in found if d.code == code and d.fix is not None]


CASES = [
    # HYB006: an in-place operator
    ("HYB006", "h = F.dot(a, b)\nh += c\nreturn h", "a, b, c", SAFE),
    ("HYB006", "h = F.dot(a, b)\nh += c\nouts = [h]\nreturn outs[0]", "a, b, c", SAFE),
    ("HYB006", "h = F.dot(a, b)\nh += c\nh *= 2\nreturn h", "a, b, c", [SAFE, SAFE]),
    ("HYB006", "y = F.relu(x)\nz = y\ny += 1\nreturn z", "x", UNSAFE),            # alias before
    ("HYB006", "z = x\nx += 1\nreturn z", "x", UNSAFE),                            # a parameter
    ("HYB006", "y = F.relu(x)\nouts = [y]\ny += 1\nreturn outs[0]", "x", UNSAFE),  # in a container
    ("HYB006", "y = F.relu(x)\nself.cache = y\ny += 1\nreturn self.cache", "x", UNSAFE),
    ("HYB006", "y = F.relu(x)\nself.keep(y)\ny += 1\nz = y\nreturn z", "x", UNSAFE),  # passed to a call
    ("HYB006", "y = F.relu(x)\ny += self.keep(y)\nz = y\nreturn z", "x", UNSAFE),
    ("HYB006", "y = F.relu(x)\nz = F.relu(y, out=y)\ny += 1\nw = y\nreturn z, w", "x", UNSAFE),
    ("HYB006", "y = F.relu(x)\nfor i in range(2):\n    y += 1\n    z = y\nreturn z", "x", UNSAFE),  # loop
    ("HYB006", "outs = []\nfor i in range(2):\n    y = F.relu(x)\n    y += 1\n    outs.append(y)\n"
               "return outs[0]", "x", SAFE),
    ("HYB006", "if self.flip:\n    y = F.relu(x)\nelse:\n    y = x\nz = y\ny += 1\nreturn z", "x", UNSAFE),
    ("HYB006", "y = x\nz = y\ny += 1\nreturn z", "x", UNSAFE),                     # another name
    ("HYB006", "if self.flip:\n    y = F.relu(x)\nelse:\n    y = F.tanh(x)\nz = y\ny += 1\nreturn z", "x", UNSAFE),
    ("HYB006", "if self.flip:\n    y = F.relu(x)\nelif self.clip:\n    y = F.clip(x, 0, 1)\nelse:\n"
               "    y = F.tanh(x)\n    y *= 2\ny += 1\nouts = [y]\nreturn outs[0]", "x", [SAFE, SAFE]),
    ("HYB006", "y = F.relu(x)\nif self.flip:\n    y = x\ny += 1\nouts = [y]\nreturn outs[0]", "x", UNSAFE),
    ("HYB006", "if self.flip:\n    y = F.relu(x)\nelse:\n    y = F.tanh(x)\n    self.keep(y)\ny += 1\n"
               "outs = [y]\nreturn outs[0]", "x", UNSAFE),
    # HYB005: item assignment
    ("HYB005", "y = x * 1\ny[:] = F.relu(y)\nreturn y", "x", SAFE),
    ("HYB005", "y = x * 1\nz = y\ny[:] = F.relu(y)\nreturn z", "x", UNSAFE),
    ("HYB005", "x[:] = F.relu(x)\nreturn x", "x", UNSAFE),                          # a parameter
    ("HYB005", "y = x\ny[:] = F.relu(y)\nreturn y", "x", UNSAFE),                   # the parameter again
    ("HYB005", "y = F.relu(x)\ny[:] = F.sum(x)\nreturn y", "x", UNSAFE),            # may broadcast
    ("HYB005", "y = F.relu(x)\ny[0] = 1\nouts = [y]\nreturn outs[0]", "x", SAFE),
    ("HYB005", "y = F.relu(x)\nouts = [y]\ny[0] = 1\nreturn outs[0]", "x", UNSAFE),
    ("HYB005", "if self.flip:\n    y = F.relu(x)\nelse:\n    y = x\ny[:] = F.relu(y)\nreturn y", "x", UNSAFE),
    ("HYB005", "y = F.relu(x)\nfor i in range(2):\n    y[0] = 1\nz = y\nreturn z", "x", UNSAFE),
]


@pytest.mark.parametrize("code,body,args,expected", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_fix_is_safe_exactly_when_the_target_is_fresh(code, body, args, expected):
    expected = expected if isinstance(expected, list) else [expected]
    assert applicabilities(hybrid_block(body, args=args), code) == expected


def test_a_global_name_is_never_fresh():
    source = hybrid_block("global y\ny = F.relu(x)\nz = y\ny += 1\nreturn z")
    assert applicabilities(source, "HYB006") == [UNSAFE]


def test_a_method_of_many_writes_is_read_once_not_once_per_write(monkeypatch):
    """Each write asks whether its name is fresh; the answers share one reading of the method, so
    that the work grows with the method's length, not with its square (2,000 writes took minutes)."""
    from hyblint.analysis import freshness
    reads = []
    counted = freshness._only_read_safely
    monkeypatch.setattr(freshness, "_only_read_safely", lambda *args, **kwargs: reads.append(1) or counted(*args, **kwargs))
    writes = 300
    body = "y = F.relu(x)\n" + "".join("a%d = F.tanh(x)\ny += a%d\n" % (i, i) for i in range(writes)) + "return y"
    assert applicabilities(hybrid_block(body, "x"), "HYB006") == [SAFE] * writes
    assert len(reads) <= 4 * writes
