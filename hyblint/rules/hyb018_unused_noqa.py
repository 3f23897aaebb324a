from hyblint.diagnostics import Severity
from hyblint.rules.base import Invalid, Rule, hybrid_block


class UnusedNoqa(Rule):
    """Reported by `hyblint/unused_noqa.py` once the other rules have run: a comment is judged by
    what they report on its line, which no visit of a method can know."""

    code = "HYB018"
    name = "unused-noqa"
    severity = Severity.WARNING
    message = "unused `noqa` code: {codes}"
    default_selected = False
    fix_availability = "always"
    screen_triggers = ()
    fix_summary = "the unused codes removed from the comment"
    docs = """
    ## What it does
    Flags `# noqa: HYBnnn` comments naming a hyblint rule that reports nothing on that line (or a
    code no hyblint rule has). Bare `# noqa` comments and other tools' codes (`E501`, `F401`) are
    left alone: hyblint cannot know what they silence.

    A code is judged by whether its rule would report on the line without the comment, whether
    or not the run selects that rule.

    ## Why is this bad?
    A comment that silences nothing hides the next real problem on its line: once the code is
    rewritten, a new failure there is silenced without anyone having looked at it. Comments added
    with `--add-noqa` when adopting hyblint go stale this way as the code is fixed.

    ## Example
    ```python
    def hybrid_forward(self, F, x):
        return F.relu(x)  # noqa: HYB001
    ```

    Use instead:
    ```python
    def hybrid_forward(self, F, x):
        return F.relu(x)
    ```

    ## Fix safety
    Safe: the fix removes the unused codes from the comment (the whole comment when none is
    left), and keeps the other codes and any text after them.
    """
    VALID = [
        hybrid_block("return F.relu(x)  # noqa: E501"),
        hybrid_block("return F.relu(x)  # noqa"),
        hybrid_block("return F.relu(x[0])  # noqa: HYB001"),
        hybrid_block("return F.relu(x)  # noqa: HYB018, HYB001"),
    ]
    INVALID = [
        Invalid(hybrid_block("return F.relu(x)  # noqa: HYB001"),
                fixed=hybrid_block("return F.relu(x)")),
        Invalid(hybrid_block("return F.relu(x[0])  # noqa: E501, HYB001, HYB006"),
                fixed=hybrid_block("return F.relu(x[0])  # noqa: E501, HYB001")),
        Invalid(hybrid_block("y = x  # noqa: HYB999\nreturn y"),
                fixed=hybrid_block("y = x\nreturn y")),
    ]
