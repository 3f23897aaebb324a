"""Seeded mutations of the fixtures (deep expressions, odd line endings, random byte and line
edits): checking never raises, and fixing in memory never yields code that does not parse or that
a second fix would change again."""
import pathlib
import random

import pytest

from hyblint.engine import check_source
from hyblint.fixer import fix_source, parses

ROOT = pathlib.Path(__file__).resolve().parent.parent
SEEDS = sorted(p for p in (ROOT / "fixtures" / "fix").glob("*.py") if not p.name.endswith(".fixed.py"))[:12] + \
    sorted((ROOT / "fixtures" / "demo").glob("*.py"))


def _deepen(text, rng):
    # deep where nothing is reported; few findings where each costs a fix (a chain of hundreds of
    # fixable findings in one expression is a matter of time, not of input handling)
    terms, count = rng.choice([(" + x", 520), (".T", 520), ("-", 520), (" * x[0]", 8), ("[0]", 8)])
    if terms == "-":
        return text.replace("return ", "return " + terms * count, 1)
    return text.replace("return ", "return x" + terms * count + " + ", 1)


def _line_endings(text, rng):
    return text.replace("\n", rng.choice(["\r", "\r\n", "\n\f", " \\\n"]))


def _bytes(text, rng):
    data = bytearray(text.encode())
    for _ in range(rng.randint(1, 4)):
        position = rng.randrange(len(data))
        data[position] = rng.choice(b"()[]:\\\"'#\t\r\x0c x0=.,")
    return data.decode("utf-8", "replace")


def _lines(text, rng):
    lines = text.splitlines(keepends=True)
    for _ in range(rng.randint(1, 3)):
        a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
        action = rng.choice(["swap", "drop", "copy", "dedent", "indent"])
        if action == "swap":
            lines[a], lines[b] = lines[b], lines[a]
        elif action == "drop" and len(lines) > 1:
            del lines[a]
        elif action == "copy":
            lines.insert(b, lines[a])
        elif action == "dedent":
            lines[a] = lines[a].lstrip(" ")
        else:
            lines[a] = "    " + lines[a]
    return "".join(lines)


MUTATIONS = [_deepen, _line_endings, _bytes, _lines]


def mutants(count_per_seed):
    rng = random.Random(15)
    for index, path in enumerate(SEEDS):
        text = path.read_text()
        for number in range(count_per_seed):
            mutation = MUTATIONS[number % len(MUTATIONS)]
            if mutation is _deepen and index % 4:
                mutation = _bytes  # deep code costs libcst seconds: a few seeds are enough
            yield "%s-%s-%d" % (path.stem, mutation.__name__.strip("_"), number), mutation(text, rng)


@pytest.mark.parametrize("name, source", list(mutants(4)), ids=lambda value: value if isinstance(value, str)
                         and "\n" not in value and "\r" not in value else "")
def test_mutated_fixture(name, source):
    found = check_source(source, name + ".py")
    assert all(d.code != "HYB906" or "deeply" in d.message for d in found), found
    result = fix_source(source, name + ".py", unsafe=True)
    if result.changed:
        assert parses(result.source)
        again = fix_source(result.source, name + ".py", unsafe=True)
        assert not again.changed, (name, again.applied)
