"""Claude Code loads what learn writes: the REAL `claude` from npm, from a temp HOME, against
the fake Messages server, in a project where learn wrote (through `learn apply`'s own
planning) a path-scoped rule and a permissions.deny rule.

The fake plays the model: it asks Claude Code to Read a file outside the rule's paths,
then one inside them, and to run `git push` and `echo`; what Claude Code sends back
says what it loaded and what it refused. The binary comes from LEARN_CLAUDE_CODE_BIN
or build/claude-code (.ci/install-claude-code); without it the tests skip.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from fakes.anthropic_server import FakeAnthropicServer, RecordedRequest, Reply, tool_results

from learn.records.proposal import Proposal, Quote, Verdict
from learn.reduce.outcomes import RuleOutcome
from learn.reduce.pathscope import scope_to_paths
from learn.report.apply import edit_for, plan_all, write_plan
from learn.report.escalation import escalate
from learn.report.targets import TargetChoice

REPO = Path(__file__).resolve().parents[1]
INSTALLED = REPO / "build" / "claude-code" / "node_modules" / ".bin" / "claude"
QUIET = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1", "DISABLE_BUG_COMMAND": "1",
    "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY": "1",
}
MARKER = "api-rule-marker-5d2b"
ALLOW = ["Bash(git push:*)", "Bash(echo:*)"]
PROMPT = "surface-test: do the steps"


def real_binary(installed: Path, override: str, require: str, what: str) -> Path:
    """A real client from the registry: `$override`, else where .ci/install-* put it.
    Missing, the test skips, unless `$require` is set (CI) and it fails."""
    path = Path(os.environ[override]) if os.environ.get(override) else installed
    if not path.exists():
        if os.environ.get(require):
            pytest.fail(f"{require} is set but {path} is missing")
        pytest.skip(f"the real {what} is not installed")
    return path


def _claude() -> Path:
    return real_binary(INSTALLED, "LEARN_CLAUDE_CODE_BIN", "LEARN_REQUIRE_CLAUDE_CODE",
                       "Claude Code (.ci/install-claude-code)")


class ScriptedModel(FakeAnthropicServer):
    """The main conversation follows `steps` (one tool call per turn, then "Done."); any
    other request Claude Code makes (titles, summaries) gets a short text answer."""

    def __init__(self, steps: list[tuple[str, dict[str, Any]]]) -> None:
        super().__init__()
        self.steps = steps
        self.turns: list[RecordedRequest] = []

    def default_reply(self, request: RecordedRequest) -> Reply:
        path = request.path.split("?")[0].rstrip("/")
        if path.endswith("/count_tokens"):
            return Reply(200, {"input_tokens": 10})
        text = request.raw.decode("utf-8", "replace")
        tools = {str(t.get("name")) for t in request.json.get("tools") or [] if isinstance(t, dict)}
        if PROMPT not in text or "Read" not in tools:
            return self._text(request, "ok")
        self.turns.append(request)
        done = sum(1 for m in request.json.get("messages") or []
                   if isinstance(m, dict) and m.get("role") == "assistant")
        if done >= len(self.steps):
            return self._text(request, "Done.")
        name, args = self.steps[done]

        def body(r: RecordedRequest) -> Mapping[str, Any]:
            block = {"type": "tool_use", "id": f"toolu_step_{done}", "name": name, "input": args}
            return self.message_body(r, [block])

        reply = Reply(200, body)
        return self.streamed(request, reply) if request.json.get("stream") else reply

    def _text(self, request: RecordedRequest, text: str) -> Reply:
        reply = Reply(200, lambda r: self.message_body(r, [{"type": "text", "text": text}],
                                                       stop_reason="end_turn"))
        return self.streamed(request, reply) if request.json.get("stream") else reply


def _run_claude(claude: Path, project: Path, home: Path, fake: FakeAnthropicServer,
                bindir: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE"))}
    env.update(QUIET, HOME=str(home), ANTHROPIC_API_KEY="sk-ant-dummy-for-the-fake",
               ANTHROPIC_BASE_URL=fake.base_url,
               PATH=f"{bindir}{os.pathsep}{env.get('PATH', '')}")
    return subprocess.run([str(claude), "-p", PROMPT, "--output-format", "json",
                           "--model", "claude-haiku-4-5", *extra],
                          cwd=project, env=env, capture_output=True, text=True, timeout=240,
                          check=False)


def _project(tmp_path: Path) -> tuple[Path, Path]:
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    (project / "src" / "api").mkdir(parents=True)
    (project / "docs").mkdir()
    (project / "src" / "api" / "handler.py").write_text("def handle():\n    return 1\n")
    (project / "docs" / "guide.md").write_text("# Guide\n")
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    return project, home


def _quotes(project: Path, text: str) -> tuple[Quote, ...]:
    return tuple(Quote(s, text, f"2026-03-0{i + 1}T00:00:00+00:00", str(project))
                 for i, s in enumerate(("a", "b")))


def test_a_paths_scoped_rule_is_loaded_only_when_a_matching_file_is_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    claude = _claude()
    project, home = _project(tmp_path)
    monkeypatch.setenv("HOME", str(home))
    rule = Proposal("directive", "api-errors", "return errors as values", 2, 2, None,
                    _quotes(project, "in the api return errors as values"),
                    verdict=Verdict(True, f"In API handlers, return errors as values ({MARKER}).",
                                    "api", "project", 0.9))
    [scoped] = scope_to_paths([rule], {"a": [str(project / "src/api/handler.py")],
                                       "b": [str(project / "src/api/other.py")]})
    for plan in plan_all([edit_for(scoped, TargetChoice(project_dir=project, follow_quotes=True))]):
        write_plan(plan)
    written = project / ".claude" / "rules" / "api-errors.md"
    assert written.read_text().startswith('---\npaths:\n  - "src/api/**"\n---')

    fake = ScriptedModel([("Read", {"file_path": str(project / "docs" / "guide.md")}),
                          ("Read", {"file_path": str(project / "src" / "api" / "handler.py")})])
    with fake:
        proc = _run_claude(claude, project, home, fake, tmp_path / "bin")
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-2000:])
    assert len(fake.turns) == 3, [t.raw[:200] for t in fake.turns]
    before_any, after_docs, after_api = (t.raw.decode("utf-8", "replace") for t in fake.turns)
    assert "return 1" in after_api  # the api file really was read
    assert MARKER not in before_any and MARKER not in after_docs
    assert MARKER in after_api


def test_a_permissions_deny_rule_learn_wrote_refuses_the_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    claude = _claude()
    project, home = _project(tmp_path)
    monkeypatch.setenv("HOME", str(home))
    # The person lets the agent push without asking (in the settings and on the command
    # line): only the deny rule stands in the way. Without it, `git push` runs (checked
    # when this test was written by removing the deny rule: the witness appeared).
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"permissions": {"allow": ALLOW}}))
    qs = _quotes(project, "I said do not push")
    ignored = RuleOutcome("directive:no-push", "Never run git push.", str(project / "CLAUDE.md"),
                          "2026-02-01T00:00:00+00:00", "apply", 3, 2, 6, 2, qs, (), "ignored")
    escalation = escalate(ignored)
    assert escalation is not None
    for plan in plan_all([edit_for(escalation, TargetChoice(project_dir=project,
                                                             follow_quotes=True))]):
        write_plan(plan)
    assert json.loads(settings.read_text())["permissions"] == {"allow": ALLOW,
                                                                "deny": ["Bash(git push:*)"]}
    # A `git` that leaves a witness if it is ever asked to push (Claude Code runs git
    # itself at start, for the repository's status: that must not count).
    bindir, witness = tmp_path / "bin", tmp_path / "git-pushed"
    bindir.mkdir()
    (bindir / "git").write_text(f'#!/bin/sh\nif [ "$1" = push ]; then touch {witness}; '
                                'echo pushed; fi\n')
    (bindir / "git").chmod(0o755)

    fake = ScriptedModel([("Bash", {"command": "echo allowed-7c1", "description": "echo"}),
                          ("Bash", {"command": "git push origin main", "description": "push"})])
    with fake:
        proc = _run_claude(claude, project, home, fake, bindir, "--allowedTools", *ALLOW)
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-2000:])
    assert len(fake.turns) == 3
    [echoed] = tool_results(fake.turns[1])
    assert "allowed-7c1" in json.dumps(echoed) and not echoed.get("is_error")
    [pushed] = tool_results(fake.turns[2])
    assert pushed.get("is_error") is True, pushed
    # Refused by a rule, not waiting for an approval no one can give in -p mode.
    assert "has been denied" in json.dumps(pushed), pushed
    assert "pushed" not in json.dumps(pushed)
    assert not witness.exists()


def test_an_edit_deny_rule_learn_wrote_keeps_the_agent_out_of_a_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    claude = _claude()
    project, home = _project(tmp_path)
    monkeypatch.setenv("HOME", str(home))
    qs = _quotes(project, "I said don't touch src/generated/")
    ignored = RuleOutcome("directive:hands-off-generated", "Don't touch src/generated/ — "
                          "regenerate it.", str(project / "CLAUDE.md"),
                          "2026-02-01T00:00:00+00:00", "apply", 3, 2, 6, 2, qs, (), "ignored")
    escalation = escalate(ignored)
    assert escalation is not None and escalation.surface_rules == ("Edit(src/generated/**)",)
    for plan in plan_all([edit_for(escalation, TargetChoice(project_dir=project,
                                                             follow_quotes=True))]):
        write_plan(plan)
    (project / "src" / "generated").mkdir()
    inside, outside = project / "src" / "generated" / "api.ts", project / "src" / "util.ts"
    fake = ScriptedModel([("Write", {"file_path": str(outside), "content": "export {}\n"}),
                          ("Write", {"file_path": str(inside), "content": "export {}\n"})])
    with fake:
        # Edits accepted without asking: only the deny rule stands in the way.
        proc = _run_claude(claude, project, home, fake, tmp_path / "bin",
                           "--permission-mode", "acceptEdits")
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-2000:])
    assert len(fake.turns) == 3
    assert outside.exists()
    [refused] = tool_results(fake.turns[2])
    assert refused.get("is_error") is True and "denied" in json.dumps(refused), refused
    assert not inside.exists()


# ------------------------------------------------------------ /learn when part of the run fails

REQUEST = "apply the bun rule"


class FailingJudge(FakeAnthropicServer):
    """Claude Code's conversation gets "ok"; learn's own calls (a forced tool) get HTTP
    400, so `learn run` reads the session, fails to mine it and exits 1 without
    --exit-zero. `conversation` keeps the requests carrying the person's request."""

    def __init__(self) -> None:
        super().__init__()
        self.conversation: list[str] = []

    def default_reply(self, request: RecordedRequest) -> Reply:
        path = request.path.split("?")[0].rstrip("/")
        if path.endswith("/count_tokens"):
            return Reply(200, {"input_tokens": 10})
        if request.json.get("tool_choice"):
            return self.error_reply(400, message="this fake refuses learn's calls")
        text = request.raw.decode("utf-8", "replace")
        if REQUEST in text:
            self.conversation.append(text)
        reply = Reply(200, lambda r: self.message_body(r, [{"type": "text", "text": "ok"}],
                                                       stop_reason="end_turn"))
        return self.streamed(request, reply) if request.json.get("stream") else reply


def _session_on_disk(home: Path, project: Path) -> None:
    """One interactive session of the person's in `project`, as Claude Code writes it."""
    folder = home / ".claude" / "projects" / str(project).replace("/", "-")
    folder.mkdir(parents=True)
    sid = "0c5d4b1e-6a1f-4c3e-9a55-3f2b1d7e9a01"
    rows = [{"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": sid,
             "timestamp": "2026-12-01T10:00:00.000Z", "cwd": str(project), "entrypoint": "cli",
             "userType": "external", "version": "2.1.332",
             "message": {"role": "user", "content": "remember we use bun now, not npm"}},
            {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": sid,
             "timestamp": "2026-12-01T10:00:05.000Z", "cwd": str(project),
             "message": {"role": "assistant", "model": "claude-haiku-4-5",
                         "content": [{"type": "text", "text": "Noted: bun."}]}}]
    (folder / f"{sid}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def _learn_on_path(tmp_path: Path) -> Path:
    """A bin folder holding this checkout's `learn` (the venv's, whatever runs the tests)."""
    import shutil
    import sys

    found = Path(sys.executable).parent / "learn"
    if not found.exists():
        found = Path(shutil.which("learn") or "")
    if not found.is_file():
        pytest.skip("no `learn` executable beside the test interpreter")
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    (bindir / "learn").symlink_to(found)
    return bindir


def test_learn_reaches_the_model_with_what_failed_when_the_run_partly_fails(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Claude Code 2.1.332 drops a slash command whose `!` line exits non-zero (the
    model is never called, the words after /learn are lost): /learn's line says what
    failed in the digest and exits 0 instead (learn run --exit-zero)."""
    from learn.commands.install_claude_command import command_text

    claude = _claude()
    project, home = _project(tmp_path)
    monkeypatch.setenv("HOME", str(home))
    _session_on_disk(home, project)
    (home / ".claude" / "commands").mkdir(parents=True)
    (home / ".claude" / "commands" / "learn.md").write_text(command_text())
    bindir = _learn_on_path(tmp_path)
    fake = FailingJudge()
    with fake:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE"))}
        env.update(QUIET, HOME=str(home), ANTHROPIC_API_KEY="sk-ant-dummy-for-the-fake",
                   ANTHROPIC_BASE_URL=fake.base_url,
                   PATH=f"{bindir}{os.pathsep}{env.get('PATH', '')}")
        plain = subprocess.run([str(bindir / "learn"), "run", "--yes", "--quiet", "--backend",
                                "auto"], cwd=project, env=env, capture_output=True, text=True,
                               timeout=240, check=False)
        proc = subprocess.run([str(claude), "-p", f"/learn {REQUEST}", "--output-format",
                               "json", "--model", "claude-haiku-4-5"], cwd=project, env=env,
                              capture_output=True, text=True, timeout=240, check=False)
    # The run the command makes does fail: without the flag it is exit 1.
    assert plain.returncode == 1, (plain.stdout[-1500:], plain.stderr[-1500:])
    assert "## What failed" in plain.stdout
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-2000:])
    assert "Shell command failed" not in proc.stdout
    assert fake.conversation, proc.stdout[-2000:]  # the model was called, with the request
    sent = fake.conversation[0]
    assert "[learn-digest]" in sent and "What failed" in sent
