"""The strings learn writes into a Codex `.rules` file are read back by the real Codex.

JSON's ASCII escapes write a character past U+FFFF as two surrogate escapes, which
Starlark refuses: one such command token (an emoji in a commit message a rule forbids)
made `codex execpolicy check` fail to parse the whole file, every other rule in it
with it. Each case here is written by `merged_codex_rules` and judged by the real
Codex (.ci/install-codex; CI sets LEARN_REQUIRE_CODEX so it cannot skip).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest
from test_escalation_real import _codex

from learn.report.escalation import merged_codex_rules, starlark_literal

# Tokens as a transcript may hold them: past U+FFFF, accents, a control character, DEL,
# the line breaks JSON leaves raw, quotes and a backslash.
ODD_TOKENS = ("fix-\U0001f600", "café", "tab\tin", "del\x7f", "line\u2028sep", "nel\x85x",
              'say"hi"', "back\\slash")


def test_the_literal_is_json_less_its_surrogate_and_raw_break_spellings() -> None:
    assert starlark_literal(["a\U0001f600"]) == '["a\U0001f600"]'
    assert starlark_literal("x\u2028y\x85z\u2029") == '"x\\u2028y\\u0085z\\u2029"'
    assert starlark_literal('q"\\\n\x01') == json.dumps('q"\\\n\x01')
    for token in ODD_TOKENS:
        assert json.loads(starlark_literal(token)) == token


def test_a_lone_surrogate_is_no_rule_and_spoils_no_file() -> None:
    text = merged_codex_rules(None, ["git commit -m bad\udcff", "git push --force"],
                              "never force push", "directive:no-force")
    assert "\udcff" not in text
    assert text.count("prefix_rule(") == 1
    text.encode("utf-8")  # the file can be written


def test_a_rule_written_before_as_ascii_escapes_is_not_written_again() -> None:
    old = ('prefix_rule(\n    pattern = ["git", "commit", "-m", "caf\\u00e9"],\n'
           '    decision = "forbidden",\n)\n')
    assert merged_codex_rules(old, ["git commit -m café"], "no", "k") == old


def test_codex_reads_every_odd_token_learn_writes(tmp_path: Path) -> None:
    codex = _codex()
    commands = [f"git commit -m {shlex.quote(token)}" for token in ODD_TOKENS]
    rules = tmp_path / "learn.rules"
    text = merged_codex_rules(None, commands, "never commit these \U0001f600", "k")
    rules.write_text(text, encoding="utf-8")

    def decide(*argv: str) -> dict[str, object]:
        proc = subprocess.run([str(codex), "execpolicy", "check", "--rules", str(rules), *argv],
                              capture_output=True, text=True, timeout=60, check=False,
                              env={**os.environ, "CODEX_HOME": str(tmp_path / ".codex")})
        assert proc.returncode == 0, (proc.stderr, text)
        out: dict[str, object] = json.loads(proc.stdout)
        return out

    for token in ODD_TOKENS:
        verdict = decide("git", "commit", "-m", token)
        assert verdict.get("decision") == "forbidden", (token, verdict)
    assert decide("git", "commit", "-m", "plain").get("matchedRules") == []


@pytest.mark.parametrize("token", ["fix-\U0001f600"])
def test_json_ascii_escapes_are_what_codex_refused(tmp_path: Path, token: str) -> None:
    """The control: the old spelling of the same rule is refused by the same Codex."""
    codex = _codex()
    rules = tmp_path / "old.rules"
    rules.write_text(f'prefix_rule(pattern = {json.dumps(["rm", token])}, '
                     'decision = "forbidden")\n', encoding="utf-8")
    proc = subprocess.run([str(codex), "execpolicy", "check", "--rules", str(rules), "rm", token],
                          capture_output=True, text=True, timeout=60, check=False,
                          env={**os.environ, "CODEX_HOME": str(tmp_path / ".codex")})
    assert proc.returncode != 0 and "escape" in proc.stderr
