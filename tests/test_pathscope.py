"""A correction said only while the agent worked under one folder becomes a path-scoped rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from learn.records.proposal import Funnel, Proposal, Quote, RunResult, RunUsage, Verdict
from learn.reduce.pathscope import common_folder, files_of_calls, scope_to_paths
from learn.reduce.surfaces import paths_of
from learn.report.apply import edit_for, plan_all, write_plan
from learn.report.digest import render_digest_markdown
from learn.report.targets import TargetChoice


def proposal(project: str, sessions: tuple[str, ...] = ("a", "b"), kind: str = "directive",
             status: str = "new") -> Proposal:
    quotes = tuple(Quote(s, f"handlers return errors as values ({s})", "2026-03-01T00:00:00+00:00",
                         project) for s in sessions)
    return Proposal(kind, "errors-as-values", quotes[0].text, len(sessions), len(sessions),  # type: ignore[arg-type]
                    None, quotes, status=status,  # type: ignore[arg-type]
                    verdict=Verdict(True, "In API handlers, return errors as values.", "api",
                                    "project", 0.9))


def test_files_of_calls_reads_claude_tools_and_codex_patches() -> None:
    calls = [("Read", {"file_path": "/p/src/api/a.py"}, "/p/src/api/a.py"),
             ("Bash", {"command": "ls"}, "ls"),
             ("Edit", {}, "/p/src/api/b.py"),  # from the session index: the summary only
             ("apply_patch", {"input": "*** Begin Patch\n*** Update File: src/api/c.py\n@@\n"},
              "")]
    assert files_of_calls(calls) == ["/p/src/api/a.py", "/p/src/api/b.py", "src/api/c.py"]


def test_common_folder() -> None:
    assert common_folder(["/p/src/api/a.py", "/p/src/api/v2/b.py"], "/p") == "src/api"
    assert common_folder(["/p/src/a.py", "/p/docs/b.md"], "/p") is None  # the root
    assert common_folder(["/elsewhere/x.py"], "/p") is None
    assert common_folder([], "/p") is None


def test_only_a_directive_said_only_under_one_folder_is_scoped() -> None:
    files = {"a": ["/p/src/api/handlers/x.py"], "b": ["/p/src/api/models/y.py", "src/api/z.py"],
             "c": ["/p/src/api/x.py", "/p/README.md"], "d": []}
    [scoped] = scope_to_paths([proposal("/p")], files)
    assert scoped.surface == "path-rule" and scoped.surface_rules == ("src/api/**",)
    for p in (proposal("/p", ("a", "c")), proposal("/p", ("a", "d")), proposal("/p", ("a",)),
              proposal("/p", kind="request"), proposal("/p", status="restated")):
        assert scope_to_paths([p], files)[0].surface is None


def test_apply_writes_a_rules_file_with_quoted_paths_or_a_folder_agents_md(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    [p] = scope_to_paths([proposal(str(project))],
                         {"a": [str(project / "src/api/a.py")], "b": [str(project / "src/api/b.py")]})
    edit = edit_for(p, TargetChoice(project_dir=project, follow_quotes=True))
    assert edit.form == "path-rule"
    assert edit.target == project / ".claude" / "rules" / "errors-as-values.md"
    [plan] = plan_all([edit])
    write_plan(plan)
    text = edit.target.read_text()
    assert text.startswith('---\npaths:\n  - "src/api/**"\n---\n')
    assert paths_of(text) == ["src/api/**"]
    assert "In API handlers, return errors as values." in text
    [again] = plan_all([edit])
    assert not again.changed

    agents = edit_for(p, TargetChoice(project_dir=project, kind="agents", follow_quotes=True))
    assert agents.target == project / "src" / "api" / "AGENTS.md" and agents.form == "rule"

    md = render_digest_markdown(RunResult(proposals=(p,), funnel=Funnel(), usage=RunUsage()))
    assert "only said while working under `src/api/**`" in md


def test_the_other_agents_file_tools_say_where_the_agent_worked() -> None:
    from learn.reduce.pathscope import files_of_calls
    from learn.transcripts.view.calls import summarize_call

    calls = [("read_file", {"absolute_path": "/p/src/a.ts"}),  # Gemini CLI (older builds)
             ("replace", {"file_path": "/p/src/b.ts", "old_string": "x"}),  # Gemini CLI
             ("edit", {"filePath": "/p/src/c.ts"}),  # OpenCode
             ("str_replace_editor", {"command": "view", "path": "/p/src/d.ts"}),  # Copilot CLI
             ("view", {"path": "/p/src/e.ts"})]  # Copilot CLI
    assert files_of_calls((n, i, "") for n, i in calls) == [
        "/p/src/a.ts", "/p/src/b.ts", "/p/src/c.ts", "/p/src/d.ts", "/p/src/e.ts"]
    # A stored view keeps only the summary of a call: it is the path for these too.
    assert files_of_calls((n, {}, summarize_call(n, i)) for n, i in calls[:3]) == [
        "/p/src/a.ts", "/p/src/b.ts", "/p/src/c.ts"]
