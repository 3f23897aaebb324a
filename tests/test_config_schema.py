"""The JSON schema shipped for `[tool.hyblint]` says what the loader accepts, key for key."""
import json
from importlib import resources

import jsonschema
import pytest

from hyblint import config
from hyblint.verify import setup

SCHEMA = json.loads(resources.files("hyblint.schema").joinpath("hyblint.schema.json").read_text())


def test_the_schema_names_every_key_the_loader_accepts_and_no_other():
    assert set(SCHEMA["properties"]) == config.KNOWN_KEYS
    assert set(SCHEMA["properties"]["verify"]["properties"]) == set(setup.KNOWN_KEYS)


SAMPLES = [
    {"select": ["HYB001", "HYB01"], "ignore": ["HYB012"], "extend-select": ["ALL"]},
    {"per-file-ignores": {"tests/*.py": ["HYB001"]}},
    {"exclude": ["/gen", "**/build"], "extend-exclude": ["*_pb2.py"]},
    {"hybrid-bases": ["MyBase"], "respect-gitignore": False},
    {"verify": {"shapes": {"Net": [[2, 16]], "Emb": [{"shape": [2, 5], "low": 0, "high": 9}]},
                "factories": ["models:build"], "timeout": 30}},
    {"selct": ["HYB001"]},
    {"select": "HYB001"},
    {"select": ["HBY001"]},
    {"exclude": "gen"},
    {"hybrid-bases": [1]},
    {"respect-gitignore": "yes"},
    {"per-file-ignores": ["a"]},
    {"per-file-ignores": {"a": "HYB001"}},
    {"verify": {"shapes": 3}},
    {"verify": {"shapes": {"Net": [[2, 0]]}}},
    {"verify": {"shape": {"Net": [[2, 3]]}}},
    {"verify": {"factories": ["nocolon"]}},
    {"verify": {"timeout": 0}},
    {"verify": {"timeout": "soon"}},
    {"extend": 3},
]


def toml(value) -> str:
    if isinstance(value, dict):
        return "{ %s }" % ", ".join("%s = %s" % (json.dumps(k), toml(v)) for k, v in value.items())
    if isinstance(value, list):
        return "[%s]" % ", ".join(toml(v) for v in value)
    return json.dumps(value)  # strings, numbers, true and false are written alike


def loader_accepts(tmp_path, table) -> bool:
    lines = ["[tool.hyblint]"]
    for key, value in table.items():
        lines.append("%s = %s" % (json.dumps(key), toml(value)))
    (tmp_path / "pyproject.toml").write_text("\n".join(lines) + "\n")
    try:
        config.load_settings(tmp_path / "pyproject.toml")
        setup.verify_table([str(tmp_path)])
    except config.ConfigError:
        return False
    return True


@pytest.mark.parametrize("table", SAMPLES, ids=lambda table: json.dumps(table)[:60])
def test_valid_and_invalid_samples_agree(tmp_path, table):
    valid = jsonschema.Draft7Validator(SCHEMA).is_valid(table)
    assert valid == loader_accepts(tmp_path, table)
