"""The rule registry: one module per rule, `hybNNN_<name>.py`, in code order. A rule is registered by
its module alone: the modules are found by their file names (as `selection.RULE_CODES` finds the
codes, without importing them), and each defines the one Rule class with its module's code."""
from __future__ import annotations

import importlib
from typing import Dict, Type

from hyblint.rules.base import Rule
from hyblint.selection import RULE_MODULES


def _load() -> Dict[str, Type[Rule]]:
    rules: Dict[str, Type[Rule]] = {}
    for code, module_name in RULE_MODULES:
        module = importlib.import_module("hyblint.rules." + module_name)
        found = [value for value in vars(module).values()
                 if isinstance(value, type) and issubclass(value, Rule) and value.__module__ == module.__name__]
        if len(found) != 1 or found[0].code != code:
            raise ImportError("hyblint/rules/%s.py must define one Rule class with code %s, found %s"
                              % (module_name, code, [rule.__name__ for rule in found]))
        rules[code] = found[0]
    return rules


ALL_RULES: Dict[str, Type[Rule]] = _load()


def get_rule(code: str) -> Type[Rule]:
    """The rule with this code (case-insensitive) or by its name; KeyError if there is none."""
    wanted = code.strip()
    for rule in ALL_RULES.values():
        if rule.code == wanted.upper() or rule.name == wanted.lower():
            return rule
    raise KeyError(code)


def rule_table() -> str:
    """The README's table of rules, in Markdown, from the rule classes (a test keeps them equal)."""
    rows = ["| code | name | severity | fix |", "|---|---|---|---|"]
    for code, rule in ALL_RULES.items():
        severity = rule.severity.value + ("" if rule.default_selected else ", off by default")
        rows.append("| %s | %s | %s | %s |" % (code, rule.name, severity, rule.fix_summary))
    return "\n".join(rows) + "\n"
