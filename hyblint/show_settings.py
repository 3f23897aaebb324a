"""--show-settings: the configuration a run resolved, one `key = value` line each, as TOML
would spell it, after the file it came from (or that no file was found)."""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Optional

from hyblint.selection import selected_codes
from hyblint.settings import DEFAULT_HYBRID_BASES, Settings


def _toml(value) -> str:
    if value is None:
        return "(unset)"
    if isinstance(value, (tuple, list, frozenset, set)):
        items = sorted(value) if isinstance(value, (frozenset, set)) else value
        return "[%s]" % ", ".join(_toml(item) for item in items)
    if isinstance(value, str):
        return '"%s"' % value.replace("\\", "\\\\").replace('"', '\\"')
    return str(value)


def render(settings: Settings, config: Optional[Path], root: Path) -> str:
    lines = ["config = %s" % (_toml(str(config)) if config else "(none: defaults)"),
             "root = %s" % _toml(str(root))]
    for field in dataclasses.fields(settings):
        value = getattr(settings, field.name)
        if field.name == "per_file_ignores":
            value = ["%s = %s" % (pattern, _toml(codes)) for pattern, codes in value]
        if field.name == "hybrid_bases":
            value = sorted(value - DEFAULT_HYBRID_BASES)
            lines.append("hybrid-bases (added to Gluon's) = %s" % _toml(value))
            continue
        lines.append("%s = %s" % (field.name.replace("_", "-"), _toml(value)))
    lines.append("selected rules = %s" % _toml(selected_codes(settings)))
    return "\n".join(lines)
