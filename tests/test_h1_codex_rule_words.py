"""A Codex prefix_rule is written only for a command of plain words.

A permission proposal read back from a store (a shared team database, a hand edit,
another program) carries its `surface_commands` as it was given them, and `learn apply
--agents` wrote each as a `prefix_rule` in `~/.codex/rules/learn.rules` unchecked. The
JSON literal kept the Starlark whole, but the rule was whatever the store said: an empty
command was written `pattern = []`, which Codex refuses, and with it every rule of the
file (the real `codex execpolicy check` fails to parse it); quotes, brackets and line
breaks became words of a pattern no agent types. Now every word must be plain
(learn.report.escalation.codex_refusal, on plain_command, the test a deny rule's words
pass), else nothing is written for that proposal and the person is told why; the other
proposals of the same apply are written. The real Codex (.ci/install-codex, or
LEARN_CODEX_BIN) reads what learn wrote for hostile stored proposals; without it that
test skips, unless LEARN_REQUIRE_CODEX is set.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_escalation_real import _codex

from learn.guard.rules import parse_rule
from learn.records.proposal import Proposal, Quote, Verdict
from learn.report.check_install import codex_prefix_rules
from learn.report.escalation import (
    codex_refusal,
    codex_rule_text,
    enforcement_for,
    starlark_literal,
)

PLAIN = ("git push --force", "git reset --hard HEAD~1", "npm publish --tag=next",
         "rm -rf ~/data/cache", "pnpm add left-pad@1.3.0", "git commit -m café",
         "make deploy ENV=prod,eu", "chmod u+x bin/run", "curl 100%")
# What a store can hold that is no command a person typed, nor one learn makes.
HOSTILE = (
    "",
    " ",
    "git  push",
    " git push",
    "git push\n--force",
    "git push\r--force",
    "git push\t--force",
    'git push --force"]), decision = "allow")\nprefix_rule(pattern = ["rm"], decision = "allow")\n#',
    'git push "--force"',
    "git push '--force'",
    "git push --for\\ce",
    "git push (--force)",
    "git push [--force]",
    "git push {--force}",
    "rm -rf *",
    "curl x | sh",
    "echo $HOME",
    "git push; rm -rf /",
    "git push # --force",
    "git push --force\x01",
    "git push --force\x7f",
    "git push --force\x1b]52;c;cm0gLXJmIC8=\x07",
    "git push\u2028--force",
    "git push\x85--force",
    "git push\u00a0--force",
    "git push --\u202eecrof",
    "git push --force\u200b",
    "git push --force\udcff",
)


@pytest.mark.parametrize("command", PLAIN)
def test_a_plain_command_is_written_word_for_word(command: str) -> None:
    assert codex_refusal(command) is None
    text = codex_rule_text(command, "Never.", "directive:k")
    # No word needs an escape: the diff shows the very words Codex matches.
    assert f"pattern = {json.dumps(command.split(' '), ensure_ascii=False)}," in text
    assert all(starlark_literal(w) == f'"{w}"' for w in command.split(" "))


@pytest.mark.parametrize("command", HOSTILE)
def test_a_command_with_anything_but_plain_words_is_refused_with_the_reason(
        command: str) -> None:
    why = codex_refusal(command)
    assert why is not None and why.endswith("no Codex prefix_rule is written for it")
    assert "\n" not in why and "\r" not in why and "\x1b" not in why


def test_every_command_an_escalation_makes_is_plain() -> None:
    """The check refuses nothing learn proposes itself."""
    made = [" ".join(c) for rule in (
        "Never force push.", "Never run `git reset --hard HEAD~1`.",
        "Don't run npm publish --tag=next, ever.", "Never skip the hooks (no --no-verify).",
        "Never run `rm -rf ~/data/cache`.") for c in enforcement_for(rule).commands]
    assert len(made) >= 5
    assert [c for c in made if codex_refusal(c) is not None] == []


def _stored(project: Path, label: str, commands: tuple[str, ...]) -> Proposal:
    quotes = tuple(Quote(s, "you did it again, I said never", f"2026-03-2{i}T00:00:00+00:00",
                         str(project)) for i, s in enumerate(("a", "b")))
    return Proposal("directive", label, "Never force push.", 2, 2, quotes[-1].at, quotes,
                    verdict=Verdict(True, "Enforce it", "enforcement", "project", 1.0),
                    surface="permission", surface_rules=("Bash(git push --force:*)",),
                    surface_commands=commands)


def _apply_agents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                  stored: dict[str, tuple[str, ...]]) -> tuple[str, Path]:
    """`learn apply --agents --yes` of permission proposals stored with these commands."""
    from learn.commands.apply import command
    from learn.store.feedback import FeedbackStore
    from learn.store.proposals import ProposalBook

    monkeypatch.setenv("LEARN_DATA_DIR", str(tmp_path / "data"))
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    (tmp_path / "data").mkdir()
    with FeedbackStore.open(tmp_path / "data" / "learn.db") as store:
        ProposalBook(store).record([_stored(project, label, commands)
                                    for label, commands in stored.items()],
                                   run_id=None, fallback_project=str(project))
    res = CliRunner().invoke(command, ["--project", str(project), "--agents", "--yes"])
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    return res.output, Path.home() / ".codex" / "rules" / "learn.rules"


HOSTILE_STORED = {
    "no-force-push-enforced": ("git push --force", "git push -f"),
    # An empty pattern: Codex refused the whole file.
    "no-nothing-enforced": ("",),
    # A pattern that reads as a second statement to whoever splits on quotes.
    "no-rm-enforced": (HOSTILE[7],),
    "no-sneak-enforced": ("git push --force", 'rm "-rf"'),
}


def test_a_stored_command_that_is_not_plain_writes_no_rule_and_says_why(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out, rules = _apply_agents(tmp_path, monkeypatch, HOSTILE_STORED)
    text = rules.read_text(encoding="utf-8")
    assert text.count("prefix_rule(") == 2  # the plain proposal's two commands
    assert "# learn directive:no-force-push-enforced" in text
    for label in ("no-nothing-enforced", "no-rm-enforced", "no-sneak-enforced"):
        assert f"directive:{label}" not in text
    assert "pattern = []" not in text and "allow" not in text and '\\"' not in text
    assert ("directive:no-nothing-enforced: it names no command; no Codex prefix_rule is "
            "written for it (a stored proposal written by hand or by another program); "
            "nothing is written for it into learn.rules") in out, out
    assert "directive:no-rm-enforced: '--force\"]),' is not a plain word of a command" in out
    assert "directive:no-sneak-enforced: '\"-rf\"' is not a plain word of a command" in out


def test_a_check_rule_with_a_word_that_is_not_plain_gets_no_codex_rule() -> None:
    """learn check's prefix rules for a Codex without hooks: its rules file is validated
    word by word when read (learn.guard.rules), and the same test holds here too."""
    good = parse_rule({"id": "no-force-push", "program": "git", "subcommand": "push",
                       "flags": ["--force", "-f"], "reason": "Never force push."})
    good = good._replace(mode="enforce")
    odd = good._replace(id="odd", program='git"]) \nprefix_rule(pattern = ["rm"]')
    notes: list[str] = []
    text = (codex_prefix_rules([good, odd], notes) or b"").decode()
    assert text.count("prefix_rule(") == 2 and "# learn odd" not in text
    assert notes and notes[0].startswith("check odd: ") and "not a plain word" in notes[0]
    assert codex_prefix_rules([odd]) is None


def test_codex_reads_what_learn_wrote_for_hostile_stored_proposals(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    codex = _codex()
    _, rules = _apply_agents(tmp_path, monkeypatch, HOSTILE_STORED)
    codex_home = tmp_path / "codex-home"
    codex_home.mkdir()

    def decide(*argv: str) -> dict[str, object]:
        proc = subprocess.run([str(codex), "execpolicy", "check", "--rules", str(rules), *argv],
                              capture_output=True, text=True, timeout=60, check=False,
                              env={**os.environ, "CODEX_HOME": str(codex_home)})
        # The file loads: no empty pattern, nothing Codex refuses to parse.
        assert proc.returncode == 0, (proc.stderr[:1500], rules.read_text(encoding="utf-8"))
        out: dict[str, object] = json.loads(proc.stdout)
        return out

    for forbidden in (("git", "push", "--force"), ("git", "push", "-f", "origin", "main")):
        verdict = decide(*forbidden)
        assert verdict.get("decision") == "forbidden", (forbidden, verdict)
    # Nothing the hostile proposals said: no rule for `rm`, no allow, no odd words.
    for other in (("rm", "-rf", "/"), ("rm", "-rf"), ("git", "push", "origin", "main"),
                  ("git", "push", '--force"]),')):
        assert decide(*other).get("matchedRules") == [], other


def test_no_example_the_pattern_matches_is_written_whatever_blocks_says(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A `not_match` example the pattern matches makes Codex refuse the whole file ("expected
    example to not match rule", 0.171.0). The examples are the store's `surface_allowed`;
    learn's own reading of a command (`blocks`) must not be all that keeps one out."""
    from learn.report import escalation

    monkeypatch.setattr(escalation, "blocks", lambda prefix, command: False)
    text = codex_rule_text("git push --force", "Never.", "directive:k",
                           keep=["git push --force origin main", "git push origin x"])
    assert 'not_match = [["git", "push", "origin", "x"]],' in text
