"""learn's check in the REAL Codex CLI from npm (0.171: hooks are a stable feature),
driven by a scripted model on a fake Responses server: installed with `learn check
add --codex` into `~/.codex/hooks.json`, it notes a force push while record-only and
stops every spelling once enforced, with the rule's words in what Codex sends the
model; and a Codex rollout's AGENTS.md record is read as a load.

Codex runs a hook only once the person trusts it (`/hooks`); learn never trusts a
hook for them, so the test passes `--dangerously-bypass-hook-trust`, which Codex
documents for automation that vets its hooks itself. The binary comes from
LEARN_CODEX_BIN or build/codex (`.ci/install-codex`); without it the tests skip.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from click.testing import CliRunner
from fakes.responses_server import ScriptedResponses
from test_claude_surfaces_real import real_binary

from learn.cli import cli
from learn.transcripts.instructions import transcript_records

REPO = Path(__file__).resolve().parents[1]
INSTALLED = REPO / "build" / "codex" / "node_modules" / ".bin" / "codex"
WORDS = "Never force push: the shared branch is the team's."


def _codex() -> Path:
    return real_binary(INSTALLED, "LEARN_CODEX_BIN", "LEARN_REQUIRE_CODEX",
                       "Codex (.ci/install-codex)")


def _run(codex: Path, project: Path, home: Path, bindir: Path,
         *commands: str) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    fake = ScriptedResponses(commands)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "CODEX"))}
    env.update(HOME=str(home), OPENAI_API_KEY="sk-fake-for-the-fake",
               PATH=f"{bindir}{os.pathsep}{env.get('PATH', '')}")
    with fake:
        proc = subprocess.run([str(codex), "exec", *fake.provider_args(), "--skip-git-repo-check",
                               "--dangerously-bypass-hook-trust", "-s", "danger-full-access",
                               "do the steps"], cwd=project, env=env, capture_output=True,
                              text=True, timeout=240, stdin=subprocess.DEVNULL)
    return proc, fake.outputs()


def test_the_check_stops_codex_too_and_codex_records_agents_md(tmp_path: Path) -> None:
    codex = _codex()
    home = Path(os.environ["HOME"])
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    (project / "AGENTS.md").write_text("- Run make lint before committing.\n")
    bindir, witness = tmp_path / "bin", tmp_path / "pushed"
    bindir.mkdir()
    (bindir / "git").write_text(f'#!/bin/sh\nfor a in "$@"; do if [ "$a" = push ]; then '
                                f'echo "$@" >> {witness}; echo pushed; fi; done\n')
    (bindir / "git").chmod(0o755)
    where = ["--project", str(project)]
    added = CliRunner().invoke(cli, ["check", "add", "git", "push", "--flag", "--force",
                                     "--flag", "-f", "--reason", WORDS, "--id", "no-force-push",
                                     "--codex", "--yes", *where])
    assert added.exit_code == 0, added.output
    assert "/hooks" in added.output  # the person is told Codex wants the hook trusted

    proc, [ran] = _run(codex, project, home, bindir, "git push origin main --force")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "pushed" in ran and witness.read_text().splitlines() == ["push origin main --force"]

    assert CliRunner().invoke(cli, ["check", "enforce", "no-force-push", "--yes",
                                    *where]).exit_code == 0
    proc, outs = _run(codex, project, home, bindir, "git -C app push -f",
                      "cd app && git push --force", "git push origin feature/x")
    assert proc.returncode == 0, proc.stderr[-2000:]
    for out in outs[:2]:
        assert WORDS in out and "pushed" not in out, out
    assert "pushed" in outs[2]
    assert witness.read_text().splitlines() == ["push origin main --force",
                                                "push origin feature/x"]
    listed = json.loads(CliRunner().invoke(cli, ["check", "list", "--json", *where]).output)
    assert listed["agents"] == ["claude", "codex"]
    assert (listed["rules"][0]["would_have_stopped"], listed["rules"][0]["stopped"]) == (1, 2)

    [rollout, *_] = sorted((home / ".codex" / "sessions").rglob("rollout-*.jsonl"))
    loads = transcript_records(rollout, "codex") or ()
    assert [(x.file, x.reason) for x in loads][:1] == [(str(project / "AGENTS.md"),
                                                        "session_start")]
    assert "Run make lint" in (loads[0].text or "")

    hooks = home / ".codex" / "hooks.json"
    assert CliRunner().invoke(cli, ["check", "remove", "--all", "--yes", *where]).exit_code == 0
    assert not hooks.exists()


def _policy(codex: Path, rules: Path, *command: str) -> dict[str, object]:
    proc = subprocess.run([str(codex), "execpolicy", "check", "--rules", str(rules), *command],
                          capture_output=True, text=True, timeout=60, check=True,
                          env={**os.environ, "HOME": os.environ["HOME"]})
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def test_a_codex_without_hooks_gets_exact_prefix_rules_and_loses_them_again(
        tmp_path: Path) -> None:
    """`codex --version` older than 0.124: learn writes the exact prefix_rules execpolicy
    can say (judged here by the real `codex execpolicy check`), says what they miss,
    and removes its file again."""
    codex = _codex()
    home = Path(os.environ["HOME"])
    old = tmp_path / "old-codex" / "codex"
    old.parent.mkdir()
    old.write_text("#!/bin/sh\necho 'codex-cli 0.120.0'\n")
    old.chmod(0o755)
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    env_path = os.environ["PATH"]
    os.environ["PATH"] = f"{old.parent}{os.pathsep}{env_path}"
    try:
        added = CliRunner().invoke(cli, ["check", "add", "git", "push", "--flag", "--force",
                                         "--flag", "-f", "--reason", WORDS, "--id",
                                         "no-force-push", "--enforce", "--codex", "--yes",
                                         "--project", str(project)])
    finally:
        os.environ["PATH"] = env_path
    assert added.exit_code == 0, added.output
    assert "runs no hooks" in added.output and "not `git push origin main --force`" in added.output
    rules = home / ".codex" / "rules" / "learn-check.rules"
    assert _policy(codex, rules, "git", "push", "--force")["decision"] == "forbidden"
    assert _policy(codex, rules, "git", "push", "-f", "origin")["decision"] == "forbidden"
    assert "decision" not in _policy(codex, rules, "git", "push", "origin", "feature/x")
    assert not (home / ".codex" / "hooks.json").exists()
    assert CliRunner().invoke(cli, ["check", "remove", "--all", "--yes", "--project",
                                    str(project)]).exit_code == 0
    assert not rules.exists()
