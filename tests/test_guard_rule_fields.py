"""A check rule's words are whole values: a trailing newline is not part of a plain word.

The audit: the fields were tested with re.match and a `$` anchor, which also matches before
a final "\\n", so `{"id": "no-force\\n", "program": "git\\n", "flags": ["--force\\n"]}`
loaded. Each such value is refused with the error any other invalid value gets.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from learn.guard.rules import BadRules, parse_rule, parse_rules

RULE: dict[str, Any] = {"id": "no-force", "program": "git", "subcommand": "push",
                        "flags": ["--force"], "arguments": ["main"], "targets": ["origin"],
                        "reason": "Never force push.", "mode": "enforce"}


def _refusal(change: dict[str, Any]) -> str:
    with pytest.raises(BadRules) as err:
        parse_rule({**RULE, **change})
    return str(err.value)


@pytest.mark.parametrize(("change", "said"), [
    ({"id": "no-force\n"}, "rule id 'no-force\\n' must be lower-case letters, digits and dashes"),
    ({"program": "git\n"}, "rule no-force: program 'git\\n' is not a plain word"),
    ({"subcommand": "push\n"}, "rule no-force: subcommand 'push\\n' is not a plain word"),
    ({"flags": ["--force\n"]}, "rule no-force: flag '--force\\n' is not a plain word"),
    ({"arguments": ["main\n"]}, "rule no-force: argument 'main\\n' is not a plain word"),
    ({"targets": ["origin\n"]}, "rule no-force: target 'origin\\n' is not a plain word"),
], ids=["id", "program", "subcommand", "flag", "argument", "target"])
def test_a_value_with_a_trailing_newline_is_refused(change: dict[str, Any], said: str) -> None:
    assert _refusal(change) == said


@pytest.mark.parametrize(("field", "bad"), [
    ("id", "No Force"), ("program", "git;"), ("subcommand", "$(x)"), ("flags", "--force;"),
    ("arguments", "main;"), ("targets", "a b")])
def test_the_trailing_newline_error_is_the_one_any_invalid_value_gets(field: str,
                                                                       bad: str) -> None:
    def value(v: str) -> object:
        return [v] if field in ("flags", "arguments", "targets") else v

    good = RULE[field][0] if isinstance(RULE[field], list) else RULE[field]
    newline = _refusal({field: value(good + "\n")})
    other = _refusal({field: value(bad)})
    assert newline == other.replace(repr(bad), repr(good + "\n"))


def test_the_whole_file_with_the_audits_rule_is_refused_and_the_plain_one_loads() -> None:
    audit = {**RULE, "id": "no-force\n", "program": "git\n", "flags": ["--force\n"]}
    with pytest.raises(BadRules, match="rule id"):
        parse_rules(json.dumps({"format": 1, "project": None, "rules": [audit]}))
    [rule] = parse_rules(json.dumps({"format": 1, "project": None, "rules": [RULE]})).rules
    assert (rule.id, rule.program, rule.flags) == ("no-force", "git", ("--force",))
