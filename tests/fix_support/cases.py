"""The fix snapshot fixtures: `fixtures/fix/NAME.py` and its expected `NAME.fixed.py`.

Each fixture opens with two comment lines: `# inputs: JSON` (a list of shapes, or of
`{"shape", "low", "high"}` for integer index inputs) and `# options: JSON` (`unsafe`,
`select`, and `equivalent: false` with `why` where the fix deliberately changes a result).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import List

import numpy as np

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "fix"


@dataclass
class Case:
    name: str
    before: Path
    after: Path
    inputs: list
    options: dict

    def make_inputs(self, seed: int = 0) -> List[np.ndarray]:
        rng = np.random.default_rng(seed)
        arrays = []
        for spec in self.inputs:
            if isinstance(spec, dict):
                arrays.append(rng.integers(spec["low"], spec["high"], size=spec["shape"]).astype(np.float32))
            else:
                arrays.append(rng.standard_normal(spec).astype(np.float32))
        return arrays


def cases() -> List[Case]:
    found = []
    for before in sorted(FIXTURES.glob("*.py")):
        if before.name.endswith(".fixed.py"):
            continue
        lines = before.read_text().splitlines()
        inputs = json.loads(lines[0].split(":", 1)[1])
        options = json.loads(lines[1].split(":", 1)[1])
        found.append(Case(before.stem, before, before.with_name(before.stem + ".fixed.py"), inputs, options))
    return found
