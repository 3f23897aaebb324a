"""The rule pages under docs/ are the rule modules' own text, and every link in the README and in
the diagnostics points at a file of this repository."""
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

from hyblint.docs_links import BASE_URL_VARIABLE, link
from hyblint.rules import ALL_RULES

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("gen_docs", ROOT / "tools" / "gen_docs.py")
gen_docs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen_docs)

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")


def _anchors(markdown: str) -> set:
    """The ids mkdocs and hosting services give the headings: lower case, punctuation dropped,
    spaces as hyphens."""
    return {re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
            for line in markdown.splitlines() if line.startswith("#")}


def _broken_links(page: Path) -> list:
    text = page.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # code examples hold no links
    broken = []
    for target in LINK.findall(text):
        if "://" in target or target.startswith("mailto:"):
            broken.append((target, "points outside the repository"))
            continue
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        if not resolved.exists():
            broken.append((target, "no such file"))
        elif anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved.read_text(encoding="utf-8")):
            broken.append((target, "no such heading"))
    return broken


def test_committed_rule_pages_equal_the_generated_ones():
    assert gen_docs.stale() == [], "run python3 tools/gen_docs.py"


def test_the_check_mode_names_a_stale_page(tmp_path):
    for path, text in gen_docs.pages().items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    assert gen_docs.stale(tmp_path) == []
    (tmp_path / "docs" / "rules" / "HYB001.md").write_text("edited by hand\n")
    (tmp_path / "docs" / "rules" / "HYB099.md").write_text("a rule that is gone\n")
    assert gen_docs.stale(tmp_path) == ["docs/rules/HYB001.md", "docs/rules/HYB099.md"]


def test_every_readme_and_docs_link_resolves():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    broken = {str(page.relative_to(ROOT)): _broken_links(page) for page in pages}
    assert {page: found for page, found in broken.items() if found} == {}
    assert len(LINK.findall((ROOT / "README.md").read_text())) >= 3


def test_the_link_checker_catches_what_it_should(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Title\n\n[a](missing.md) [b](#nope) [c](#title) [d](https://example.com/) [e](page.md)\n")
    assert _broken_links(page) == [("missing.md", "no such file"), ("#nope", "no such heading"),
                                   ("https://example.com/", "points outside the repository")]


def test_every_rule_links_its_page_in_the_repository():
    for code, rule in ALL_RULES.items():
        assert (ROOT / rule.url()).is_file(), code
    assert (ROOT / "mkdocs.yml").is_file()
    nav = re.findall(r":\s*(\S+\.md)", (ROOT / "mkdocs.yml").read_text())
    assert nav and all((ROOT / "docs" / page).is_file() for page in nav)


def test_diagnostics_link_the_page_under_the_base_url(tmp_path, monkeypatch):
    net = tmp_path / "net.py"
    net.write_text("from mxnet.gluon import nn\n\n\nclass Net(nn.HybridBlock):\n"
                   "    def hybrid_forward(self, F, a, b):\n        a += b\n        return a\n")

    def run(*argv, env=None):
        import os
        environ = {k: v for k, v in os.environ.items() if k != BASE_URL_VARIABLE}
        environ.update(env or {})
        done = subprocess.run([sys.executable, "-m", "hyblint", "check", "-n", *argv, str(net)],
                              capture_output=True, text=True, env=environ, cwd=tmp_path)
        return json.loads(done.stdout)

    [plain] = run("--format", "json")
    assert plain["url"] == "docs/rules/HYB006.md" and (ROOT / plain["url"]).is_file()
    [based] = run("--format", "json", env={BASE_URL_VARIABLE: "https://docs.example/hyblint/"})
    assert based["url"] == "https://docs.example/hyblint/docs/rules/HYB006.md"
    sarif = run("--format", "sarif", env={BASE_URL_VARIABLE: "https://docs.example/hyblint"})
    rules = {rule["id"]: rule for rule in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["HYB006"]["helpUri"] == "https://docs.example/hyblint/docs/rules/HYB006.md"
    unbased = run("--format", "sarif")["runs"][0]["tool"]["driver"]
    assert "helpUri" not in unbased["rules"][0] and "docs/rules/HYB001.md" in unbased["rules"][0]["help"]["text"]
    assert "informationUri" not in unbased
    # the editor, without a base URL, opens the page of the checkout it runs from
    monkeypatch.delenv(BASE_URL_VARIABLE, raising=False)
    local = link("docs/rules/HYB006.md", local=True)
    assert local == (ROOT / "docs" / "rules" / "HYB006.md").as_uri()


def test_the_editor_gets_no_link_where_no_page_can_be_opened(monkeypatch, tmp_path):
    import hyblint.docs_links as docs_links
    from hyblint.diagnostics import Diagnostic, Location, Severity
    from hyblint.lsp_actions import to_lsp, to_lsp_json
    d = Diagnostic("HYB006", "m", "f.py", Location(1, 1), Location(1, 2), Severity.ERROR,
                   url=ALL_RULES["HYB006"].url())
    monkeypatch.delenv(BASE_URL_VARIABLE, raising=False)
    assert to_lsp(d, ["x"]).code_description.href.startswith("file://")
    monkeypatch.setattr(docs_links, "_CHECKOUT", tmp_path)  # an installed copy: no docs/ beside it
    assert to_lsp(d, ["x"]).code_description is None and "codeDescription" not in to_lsp_json(d, ["x"])
    monkeypatch.setenv(BASE_URL_VARIABLE, "https://docs.example/h")
    assert to_lsp_json(d, ["x"])["codeDescription"]["href"] == "https://docs.example/h/docs/rules/HYB006.md"
