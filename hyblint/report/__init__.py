"""Output formats for diagnostics. Each formatter takes the diagnostics and the sources read."""
from __future__ import annotations

from typing import Callable, Dict

from hyblint.report import github, json_format, sarif, text

FORMATS: Dict[str, Callable] = {
    "text": text.full,
    "full": text.full,
    "concise": text.concise,
    "json": json_format.render,
    "sarif": sarif.render,
    "github": github.render,
}
