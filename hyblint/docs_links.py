"""Where a rule's documentation is: its page in the repository, `docs/rules/HYBnnn.md`, generated
from the rule's module by `tools/gen_docs.py`.

Diagnostics carry that repository path; reports and the language server turn it into a link when
they are shown: `HYBLINT_DOCS_URL` (where the repository's files or the site built from docs/ are
served, such as a hosting service's view of a branch) is put in front of it, and without it the
language server links the page in the checkout hyblint runs from, when there is one."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

BASE_URL_VARIABLE = "HYBLINT_DOCS_URL"
_CHECKOUT = Path(__file__).resolve().parent.parent  # the repository, for a checkout or an editable install


def rule_path(code: str) -> str:
    """A rule's page, relative to the repository root."""
    return "docs/rules/%s.md" % code


def link(path: Optional[str], local: bool = False) -> Optional[str]:
    """`path` (a page's repository path) as the link to show: under the base URL when one is set;
    with `local`, the page's file URI when the checkout has it; else the path as it is."""
    if not path or "://" in path:
        return path
    base = os.environ.get(BASE_URL_VARIABLE, "").strip()
    if base:
        return base.rstrip("/") + "/" + path
    if local:
        page = _CHECKOUT / path
        if page.is_file():
            return page.as_uri()
    return path
