"""An escalation denies exactly what the rule forbids, checked by the real clients.

The rule "Run the tests with `pnpm vitest run` before pushing, and never force push."
was applied, then ignored; its escalation is applied through `learn apply` (the CLI,
on a real store). Then:
- the REAL Claude Code (npm, from a temp HOME, the fake Messages server scripting the
  model) is asked to run each command: the force pushes are refused by the deny
  rules, an ordinary push and the prescribed test command run;
- the REAL `codex execpolicy check` (npm `@openai/codex`, .ci/install-codex) judges
  the same commands against the Codex rule learn wrote: the same answers.
Without the binaries the tests skip; CI sets LEARN_REQUIRE_CLAUDE_CODE and
LEARN_REQUIRE_CODEX so they cannot.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from fakes.anthropic_server import tool_results
from test_claude_surfaces_real import ScriptedModel, _claude, _run_claude, real_binary

from learn.records.proposal import Quote
from learn.reduce.outcomes import RuleOutcome
from learn.report.escalation import escalate

REPO = Path(__file__).resolve().parents[1]
CODEX = REPO / "build" / "codex" / "node_modules" / ".bin" / "codex"
RULE = "Run the tests with `pnpm vitest run` before pushing, and never force push."
REFUSED = ("git push --force", "git push -f", "git push --force origin main")
ALLOWED = ("git push origin feature/x", "pnpm vitest run")


def _codex() -> Path:
    return real_binary(CODEX, "LEARN_CODEX_BIN", "LEARN_REQUIRE_CODEX",
                       "Codex (.ci/install-codex)")


def _apply_escalation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                      *extra: str, rule: str = RULE) -> tuple[Path, Path]:
    """A project whose force-push rule was ignored; its escalation applied by `learn apply`."""
    from learn.commands.apply import command
    from learn.store.feedback import FeedbackStore
    from learn.store.proposals import ProposalBook

    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("LEARN_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("LEARN_DATABASE_URL", raising=False)
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    quotes = tuple(Quote(s, "you force pushed again, I said never force push",
                         f"2026-03-2{i}T00:00:00+00:00", str(project))
                   for i, s in enumerate(("a", "b")))
    ignored = RuleOutcome("directive:no-force-push", rule, str(project / "CLAUDE.md"),
                          "2026-03-10T00:00:00+00:00", "apply", 3, 2, 6, 2, quotes, (), "ignored")
    enforced = escalate(ignored)
    assert enforced is not None
    with FeedbackStore.open(tmp_path / "data" / "learn.db") as store:
        ProposalBook(store).record([enforced], run_id=None, fallback_project=str(project))
    res = CliRunner().invoke(command, ["--yes", "--project", str(project), *extra])
    assert res.exit_code == 0, res.output
    assert "+++ " in res.output and ("prefix_rule" in res.output or "Bash(" in res.output)
    return project, home


def test_claude_code_refuses_force_pushes_and_runs_the_rest(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    claude = _claude()
    project, home = _apply_escalation(tmp_path, monkeypatch)
    deny = json.loads((project / ".claude" / "settings.json").read_text())["permissions"]["deny"]
    assert deny == ["Bash(git push --force:*)", "Bash(git push -f:*)",
                    "Bash(git push --force-with-lease:*)"]
    # git and pnpm that print what they were asked: a refused command never prints.
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for tool in ("git", "pnpm"):
        script = bindir / tool
        script.write_text(f'#!/bin/sh\necho "ran-{tool}: $*"\n')
        script.chmod(0o755)
    # The person lets the agent push and test without asking: only the deny rules
    # stand in the way of a force push.
    allow = ["Bash(git push:*)", "Bash(pnpm vitest run:*)"]
    steps = [("Bash", {"command": c, "description": c}) for c in (*REFUSED, *ALLOWED)]
    fake = ScriptedModel(steps)
    with fake:
        proc = _run_claude(claude, project, home, fake, bindir, "--allowedTools", *allow)
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-2000:])
    assert len(fake.turns) == len(steps) + 1
    results = {c: tool_results(fake.turns[i + 1])[0] for i, c in enumerate(s[1]["command"]
                                                                              for s in steps)}
    for c in REFUSED:
        assert results[c].get("is_error") is True, (c, results[c])
        assert "denied" in json.dumps(results[c]) and "ran-git" not in json.dumps(results[c])
    assert "ran-git: push origin feature/x" in json.dumps(results["git push origin feature/x"])
    assert "ran-pnpm: vitest run" in json.dumps(results["pnpm vitest run"])
    assert not any(results[c].get("is_error") for c in ALLOWED)


def test_codex_execpolicy_agrees_with_the_rule_learn_wrote(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    codex = _codex()
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "home" / ".codex"))
    _, home = _apply_escalation(tmp_path, monkeypatch, "--agents")
    rules = home / ".codex" / "rules" / "learn.rules"
    text = rules.read_text()
    assert f"justification = {json.dumps(RULE)}" in text  # the person's rule, shown on refusal

    def decide(command: str) -> dict[str, object]:
        proc = subprocess.run([str(codex), "execpolicy", "check", "--rules", str(rules),
                               *command.split()], capture_output=True, text=True, timeout=60,
                              check=False, env={**os.environ, "CODEX_HOME": str(home / ".codex")})
        assert proc.returncode == 0, proc.stderr
        out: dict[str, object] = json.loads(proc.stdout)
        return out

    for c in REFUSED:
        verdict = decide(c)
        assert verdict.get("decision") == "forbidden", (c, verdict)
        assert RULE in json.dumps(verdict)
    for c in ALLOWED:
        assert decide(c).get("matchedRules") == [], c


def test_claude_code_refuses_a_command_written_as_the_person_wrote_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """"Never run `git reset --hard HEAD~1`": the deny rule holds the words as typed.
    Quoted the shell's way (`Bash(git reset --hard 'HEAD~1':*)`, as it once was) it
    named another command and Claude Code ran this one; the same agent, allowed `git`
    and without the deny, runs it (the control: it is the rule that refuses, not one
    of Claude Code's own guards, which refuse `rm -rf ~` and a path outside the project
    whatever the rules say)."""
    claude = _claude()
    project, home = _apply_escalation(tmp_path, monkeypatch,
                                      rule="Never run `git reset --hard HEAD~1`.")
    settings = project / ".claude" / "settings.json"
    deny = json.loads(settings.read_text())["permissions"]["deny"]
    assert deny == ["Bash(git reset --hard HEAD~1:*)"]
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "git").write_text('#!/bin/sh\necho "ran-git: $*"\n')
    (bindir / "git").chmod(0o755)

    def run_it() -> str:
        fake = ScriptedModel([("Bash", {"command": "git reset --hard HEAD~1",
                                        "description": "undo the last commit"})])
        with fake:
            proc = _run_claude(claude, project, home, fake, bindir, "--allowedTools",
                               "Bash(git:*)")
        assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-2000:])
        return json.dumps(tool_results(fake.turns[1])[0])

    refused = run_it()
    assert "ran-git" not in refused and '"is_error": true' in refused, refused
    settings.unlink()
    assert "ran-git: reset --hard HEAD~1" in run_it()
