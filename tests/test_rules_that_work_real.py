"""Rules that work, against the REAL Claude Code from npm (a temp HOME, the fake Messages
server playing a scripted model; see tests/test_claude_surfaces_real.py):

- learn's plugin (loaded with --plugin-dir, `learn` on PATH) records InstructionsLoaded
  for CLAUDE.md and for a `paths:` rule when its file is read; a `learn run` then
  reports the rule whose files were never read as "never loaded", with its fix, and
  the CLAUDE.md rule as loaded by record;
- learn's check (`learn check add`): record-only lets `git push origin main --force`
  run and notes it; enforced, it stops `git push --force`, `git push origin main
  --force`, `git -C app push -f` and `cd app && git push -f` with the rule's words,
  and lets `git push origin feature/x` run; removing it restores the settings byte
  for byte;
- a rule narrowed to main ("Never force push to main") gets no deny and a check that
  names main; with the check beside the exact deny of "never force push", the spelling
  the deny cannot say (`git push origin main --force`) runs record-only and is stopped
  enforced.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fakes.anthropic_server import FakeAnthropicServer, tool_results
from test_claude_surfaces_real import ScriptedModel, _claude, _run_claude
from test_claude_surfaces_real import _project as claude_project
from test_integration_plugin_e2e import learn_on_path

from learn.cli import cli
from learn.transcripts.instructions import hook_records

REPO = Path(__file__).resolve().parents[1]
PLUGIN = REPO / "integrations" / "claude-code"
RULE_WORDS = "Never force push: rewriting shared history lost a day of work."


def _project(tmp_path: Path) -> tuple[Path, Path]:
    """test_claude_surfaces_real's project (src/api/handler.py, docs/guide.md) with a
    CLAUDE.md rule and two `paths:` rules (src/api/, src/db/)."""
    project, _ = claude_project(tmp_path)
    (project / "CLAUDE.md").write_text("# shop\n\n- Use bun, not npm.\n")
    rules = project / ".claude" / "rules"
    rules.mkdir(parents=True)
    (rules / "api.md").write_text('---\npaths:\n  - "src/api/**"\n---\n\n'
                                  "- Return errors as values in API handlers.\n")
    (rules / "db.md").write_text('---\npaths:\n  - "src/db/**"\n---\n\n'
                                 "- Never write raw SQL in the db layer.\n")
    return project, Path(os.environ["HOME"])


def _sessions(home: Path) -> list[Path]:
    return sorted((home / ".claude" / "projects").glob("*/*.jsonl"))


def _recorded_session(where: Path, claude: Path, bindir: Path) -> tuple[Path, Any]:
    """One scripted session in a project of its own under `where` (CLAUDE.md and the two
    path rules): the project and the loads the plugin recorded for the session."""
    project, home = _project(where)
    # A person's session goes on after a file is read; here the model's last step waits
    # (up to 60 s) for the records of this project's files, or Claude Code ends the
    # session and its hooks mid-write (seen: the path rule's record lost when "Done."
    # followed the Read).
    records = home / ".local" / "share" / "learn" / "instructions"
    api, claude_md = project / ".claude" / "rules" / "api.md", project / "CLAUDE.md"
    wait = (f"for i in $(seq 120); do grep -qsF '{api}' {records}/*.jsonl && "
            f"grep -qsF '{claude_md}' {records}/*.jsonl && break; sleep 0.5; done")
    fake = ScriptedModel([("Read", {"file_path": str(project / "docs" / "guide.md")}),
                          ("Read", {"file_path": str(project / "src" / "api" / "handler.py")}),
                          ("Bash", {"command": wait, "description": "wait"})])
    before = set(_sessions(home))
    with fake:
        proc = _run_claude(claude, project, home, fake, bindir, "--plugin-dir", str(PLUGIN),
                           "--allowedTools", "Bash")
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-2000:])
    [transcript] = [s for s in _sessions(home) if s not in before]
    return project, hook_records([transcript.stem])[transcript.stem]


def test_the_plugin_records_loads_and_a_never_read_path_rule_is_never_loaded(
        tmp_path: Path) -> None:
    claude = _claude()
    bindir = tmp_path / "bin"
    learn_on_path(bindir)
    project, records = _recorded_session(tmp_path, claude, bindir)
    if not any(Path(x.file).name == "CLAUDE.md" for x in records):
        # Seen under load only (4 of 12 sessions with four at once beside two busy loops
        # on the 2-core machine, and twice in CI runs of the whole suite): no CLAUDE.md
        # record at all, the path rule's there and nothing in the hook log, as if Claude
        # Code fired no session-start InstructionsLoaded the plugin's hook could take (not
        # seen in 18 runs with a wrapper logging each hook call, nor in any run alone).
        # One session again, in a project of its own, holds to every assertion below.
        project, records = _recorded_session(tmp_path / "again", claude, bindir)
    loaded = {(Path(x.file).name, x.reason) for x in records}
    assert ("CLAUDE.md", "session_start") in loaded
    assert ("api.md", "path_glob_match") in loaded
    assert not any(Path(x.file).name == "db.md" for x in records)
    [api] = [x for x in records if Path(x.file).name == "api.md"]
    assert api.trigger == str(project / "src" / "api" / "handler.py")

    # The three rules were in place before the session (as `learn apply` records them);
    # a run over it measures each against the sessions that loaded it.
    from learn.records.proposal import Proposal, Quote, Verdict
    from learn.store import open_store
    from learn.store.runs import default_store_path

    def applied(label: str, text: str, file: Path) -> None:
        q = (Quote("old-1", text, "2026-01-01T00:00:00+00:00", str(project)),)
        p = Proposal("directive", label, text, 2, 2, None, q,
                     verdict=Verdict(True, text, "style", "project", 0.9))
        store.proposals.record_applied(project=str(project), proposal=p, decision="accepted",
                                       form="rule", rule_text=text, target_file=str(file),
                                       backup_file=None, at="2026-01-02T00:00:00+00:00")

    with open_store(default_store_path()) as store:
        applied("use-bun", "Use bun, not npm.", project / "CLAUDE.md")
        applied("api-errors", "Return errors as values in API handlers.",
                project / ".claude" / "rules" / "api.md")
        applied("no-raw-sql", "Never write raw SQL in the db layer.",
                project / ".claude" / "rules" / "db.md")
    with FakeAnthropicServer() as model:
        os.environ.update(ANTHROPIC_API_KEY="sk-test", ANTHROPIC_BASE_URL=model.base_url)
        try:
            run = CliRunner().invoke(cli, ["run", "--yes", "--quiet", "--backend", "anthropic",
                                           "--project", str(project)])
        finally:
            for k in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
                os.environ.pop(k, None)
    assert run.exit_code == 0, run.output
    out = CliRunner().invoke(cli, ["outcomes", "--json", "--project", str(project)])
    assert out.exit_code == 0, out.output
    by_label = {o["label"]: o for o in json.loads(out.output)}
    sql = by_label["no-raw-sql"]
    assert sql["verdict"] == "never-loaded" and sql["sessions_unloaded"] == 1
    assert sql["not_loaded"]["why"] == "paths"
    assert "widen `paths:`" in sql["not_loaded"]["fix"]
    assert "`src/db/**`" in sql["not_loaded"]["reason"]
    for label in ("use-bun", "api-errors"):
        assert by_label[label]["verdict"] == "too-early", by_label[label]
        assert by_label[label]["loaded_how"] == {"recorded": 1}
    text = CliRunner().invoke(cli, ["outcomes", "--project", str(project)]).output
    assert "**no-raw-sql** — never loaded" in text and "fix: widen `paths:`" in text


def _witness_git(bindir: Path, witness: Path) -> None:
    bindir.mkdir(parents=True, exist_ok=True)
    (bindir / "git").write_text(f'#!/bin/sh\nfor a in "$@"; do if [ "$a" = push ]; then '
                                f'echo "$@" >> {witness}; echo pushed; fi; done\n')
    (bindir / "git").chmod(0o755)


def _pushes(witness: Path) -> list[str]:
    return witness.read_text().splitlines() if witness.exists() else []


def _learn(*args: str) -> Any:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result


def test_the_check_records_then_enforces_every_spelling_and_removes_cleanly(
        tmp_path: Path) -> None:
    claude = _claude()
    project, home = _project(tmp_path)
    settings = project / ".claude" / "settings.local.json"
    original = b'{ "permissions": {"allow": ["Bash(ls:*)"]},\n  "model": "haiku" }\n'
    settings.write_bytes(original)
    bindir, witness = tmp_path / "bin", tmp_path / "pushed"
    _witness_git(bindir, witness)
    project_arg = ["--project", str(project)]
    _learn("check", "add", "git", "push", "--flag", "--force", "--flag", "-f",
           "--argument", "+*", "--reason", RULE_WORDS, "--id", "no-force-push", "--yes",
           *project_arg)
    hook = json.loads(settings.read_text())["hooks"]["PreToolUse"][0]
    assert hook["matcher"] == "Bash" and "-m learn.guard --rules" in hook["hooks"][0]["command"]

    def run(*commands: str) -> list[dict[str, Any]]:
        steps = [("Bash", {"command": c, "description": "git"}) for c in commands]
        fake = ScriptedModel(steps)
        with fake:
            proc = _run_claude(claude, project, home, fake, bindir, "--allowedTools", "Bash")
        assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-2000:])
        assert len(fake.turns) == len(commands) + 1
        return [tool_results(t)[0] for t in fake.turns[1:]]

    # Record-only: the command runs, the check notes it.
    [ran] = run("git push origin main --force")
    assert not ran.get("is_error") and "pushed" in json.dumps(ran)
    assert _pushes(witness) == ["push origin main --force"]
    listed = json.loads(_learn("check", "list", "--json", *project_arg).output)
    rule = listed["rules"][0]
    assert (rule["would_have_stopped"], rule["would_sessions"], rule["stopped"]) == (1, 1, 0)
    # The next run's digest says it, before the person decides to enforce.
    with FakeAnthropicServer() as model:
        os.environ.update(ANTHROPIC_API_KEY="sk-test", ANTHROPIC_BASE_URL=model.base_url)
        try:
            ran = CliRunner().invoke(cli, ["run", "--yes", "--quiet", "--backend", "anthropic",
                                           *project_arg])
        finally:
            for k in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
                os.environ.pop(k, None)
    assert ran.exit_code == 0, ran.output
    assert "would have stopped the agent 1 time in 1 session" in ran.output

    _learn("check", "enforce", "no-force-push", "--yes", *project_arg)
    spellings = ["git push --force", "git push origin main --force", "git -C app push -f",
                 "cd app && git push -f"]
    results = run(*spellings, "git push origin feature/x")
    for spelled, result in zip(spellings, results, strict=False):
        assert result.get("is_error") is True, (spelled, result)
        said = json.dumps(result)
        assert RULE_WORDS in said and "no-force-push" in said, (spelled, said)
    assert not results[-1].get("is_error"), results[-1]
    assert _pushes(witness) == ["push origin main --force", "push origin feature/x"]
    listed = json.loads(_learn("check", "list", "--json", *project_arg).output)
    rule = listed["rules"][0]
    assert (rule["would_have_stopped"], rule["stopped"], rule["stopped_sessions"]) == (1, 4, 1)

    _learn("check", "remove", "no-force-push", "--yes", *project_arg)
    assert settings.read_bytes() == original
    again = run("git push --force")
    assert not again[0].get("is_error")  # nothing checks it any more


def test_the_check_holds_what_the_deny_beside_it_cannot_say(tmp_path: Path) -> None:
    """One ignored rule, "never force push", gets two offers: the exact deny (a prefix)
    and learn's check. Both applied through `learn apply`: the deny refuses `git push
    --force`, but `git push origin main --force` starts with `git push origin` and
    gets past it (the real Claude Code runs it); the check, record-only, notes it, and
    enforced, stops it and the other spellings with the rule's words; an ordinary push
    still runs."""
    from learn.records.proposal import Quote
    from learn.reduce.outcomes import RuleOutcome
    from learn.report.check_offer import offer_check
    from learn.report.escalation import escalate
    from learn.store import open_store
    from learn.store.runs import default_store_path

    claude = _claude()
    project, home = _project(tmp_path)
    bindir, witness = tmp_path / "bin", tmp_path / "pushed"
    _witness_git(bindir, witness)
    quotes = tuple(Quote(s, "you force pushed again, I said never force push",
                         f"2026-03-2{i}T00:00:00+00:00", str(project))
                   for i, s in enumerate(("a", "b")))
    ignored = RuleOutcome("directive:no-force-push", RULE_WORDS, str(project / "CLAUDE.md"),
                          "2026-03-10T00:00:00+00:00", "apply", 3, 2, 6, 2, quotes, (),
                          "ignored")
    deny, check = escalate(ignored), offer_check(ignored)
    assert deny is not None and check is not None
    assert "`git push origin main --force`" in (check.verdict.summary if check.verdict else "")
    with open_store(default_store_path()) as store:
        store.proposals.record([deny, check], run_id=None, fallback_project=str(project))
    _learn("apply", "--yes", "--project", str(project))
    denied = json.loads((project / ".claude" / "settings.json").read_text())
    assert "Bash(git push --force:*)" in denied["permissions"]["deny"]
    [rule] = json.loads(_learn("check", "list", "--json", "--project", str(project)).output)[
        "rules"]
    assert rule["mode"] == "record"

    def run(*commands: str) -> list[dict[str, Any]]:
        fake = ScriptedModel([("Bash", {"command": c, "description": "git"}) for c in commands])
        with fake:
            # The person lets the agent push without asking: only the deny and the check
            # stand in the way.
            proc = _run_claude(claude, project, home, fake, bindir,
                               "--allowedTools", "Bash(git push:*)", "Bash(cd:*)")
        assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-2000:])
        assert len(fake.turns) == len(commands) + 1
        return [tool_results(t)[0] for t in fake.turns[1:]]

    refused, past_the_deny = run("git push --force", "git push origin main --force")
    assert refused.get("is_error") is True
    assert not past_the_deny.get("is_error"), past_the_deny
    assert _pushes(witness) == ["push origin main --force"]
    listed = json.loads(_learn("check", "list", "--json", "--project", str(project)).output)
    assert listed["rules"][0]["would_have_stopped"] >= 1

    _learn("check", "enforce", rule["id"], "--yes", "--project", str(project))
    spellings = ["git push origin main --force", "git -C app push -f", "git push origin +main"]
    results = run(*spellings, "git push origin feature/x")
    for spelled, result in zip(spellings, results, strict=False):
        assert result.get("is_error") is True, (spelled, result)
        assert RULE_WORDS in json.dumps(result), (spelled, result)
    assert not results[-1].get("is_error"), results[-1]
    assert _pushes(witness) == ["push origin main --force", "push origin feature/x"]


def test_a_rule_narrowed_to_main_gets_no_deny_and_a_check_that_names_main(
        tmp_path: Path) -> None:
    """"Never force push to main" has no prefix (a deny would refuse every force push),
    so the escalation offers nothing and learn's check holds it: applied and enforced,
    the real Claude Code is stopped pushing main by force in two spellings, with the
    rule's words, and force-pushes its own branch."""
    from learn.records.proposal import Quote
    from learn.reduce.outcomes import RuleOutcome
    from learn.report.check_offer import offer_check
    from learn.report.escalation import escalate
    from learn.store import open_store
    from learn.store.runs import default_store_path

    claude = _claude()
    project, home = _project(tmp_path)
    bindir, witness = tmp_path / "bin", tmp_path / "pushed"
    _witness_git(bindir, witness)
    words = "Never force push to main."
    quotes = (Quote("a", "you force pushed main again", "2026-03-20T00:00:00+00:00",
                    str(project)),)
    ignored = RuleOutcome("directive:no-force-main", words, str(project / "CLAUDE.md"),
                          "2026-03-10T00:00:00+00:00", "apply", 3, 2, 6, 1, quotes, (),
                          "ignored")
    check = offer_check(ignored)
    assert escalate(ignored) is None and check is not None
    with open_store(default_store_path()) as store:
        store.proposals.record([check], run_id=None, fallback_project=str(project))
    _learn("apply", "--yes", "--project", str(project))
    [rule] = json.loads(_learn("check", "list", "--json", "--project", str(project)).output)[
        "rules"]
    _learn("check", "enforce", rule["id"], "--yes", "--project", str(project))
    commands = ("git push -f origin HEAD:main", "git push origin main --force",
                "git push -f origin feature/x")
    fake = ScriptedModel([("Bash", {"command": c, "description": "git"}) for c in commands])
    with fake:
        proc = _run_claude(claude, project, home, fake, bindir, "--allowedTools",
                           "Bash(git push:*)")
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-2000:])
    results = [tool_results(t)[0] for t in fake.turns[1:]]
    assert [bool(r.get("is_error")) for r in results] == [True, True, False], results
    assert all(words in json.dumps(r) for r in results[:2])
    assert _pushes(witness) == ["push -f origin feature/x"]


def test_the_check_program_imports_nothing_heavy(tmp_path: Path) -> None:
    """Not a timing test (benchmarks/check.py measures it): the check imports no part of
    learn beyond learn.guard, the hook input reader and learn.visible (a rule's reason is
    what it shows: re and unicodedata, 0.6 ms), and no heavy module."""
    code = ("import sys, learn.guard.hook; "
            "print(sorted(m for m in sys.modules if m.startswith('learn')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == str(['learn', 'learn.guard', 'learn.guard.flags', 'learn.guard.hook',
                               'learn.guard.lines',
                               'learn.guard.rules', 'learn.guard.runners', 'learn.guard.shell',
                               'learn.hook_input', 'learn.no_telemetry', 'learn.visible'])
    heavy = ("import sys, learn.guard.hook; "
             "print([m for m in ('dataclasses', 'pathlib', 'numpy', 'click') if m in sys.modules])")
    assert subprocess.run([sys.executable, "-S", "-c", heavy], capture_output=True, text=True,
                          check=True, cwd=REPO).stdout.strip() == "[]"


@pytest.fixture(autouse=True)
def _quiet_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LEARN_HOOK_WORKER", raising=False)
