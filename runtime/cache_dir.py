"""Where the runtime keeps what it generates or measures for the next processes: XDG's cache
folder (~/.cache unless XDG_CACHE_HOME says otherwise), under hyblint/."""
from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "hyblint"
