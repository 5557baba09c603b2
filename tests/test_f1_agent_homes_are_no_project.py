"""An agent's own folder (~/.codex, ~/.claude, CLAUDE_CONFIG_DIR, ...) and anything in it is
no project: listed under that folder as the home folder's sessions are under `~`, never
holding a repository of its own, and never written as a project by `learn apply`.

Found running learn on real Codex sessions (tests/test_h5_codex_home_is_no_project.py): a
session started in ~/.codex made it a project, and a project-scope rule said there was
planned into ~/.codex/AGENTS.md, the file Codex loads in every project.

The fixtures are written for this test (not copied from any transcript).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from learn.projects import agent_home, project_of
from learn.records.proposal import Proposal, Quote, Verdict
from learn.report.confine import may_write, project_roots
from learn.report.targets import TargetChoice, TargetError, choose

REPO = Path(__file__).resolve().parents[1]


def _home() -> Path:
    return Path(os.environ["HOME"])


def _git(folder: Path) -> Path:
    (folder / ".git").mkdir(parents=True)
    return folder


def _rule(*where: Path | str, agent: str = "codex", scope: str = "project",
          key: str = "check-sandbox-setting") -> Proposal:
    quotes = tuple(Quote(f"s{i}", "check the sandbox setting in config.toml first",
                         f"2026-03-2{i}T00:00:00+00:00", str(w), agent=agent)
                   for i, w in enumerate(where))
    return Proposal("directive", key, quotes[0].text, len(quotes), len(quotes), quotes[0].at,
                    quotes, verdict=Verdict(True, "Check the sandbox setting first.", "tooling",
                                            scope, 0.8),  # type: ignore[arg-type]
                    agents=((agent, len(quotes)),))


def test_a_folder_in_an_agents_own_folder_is_that_folder_whatever_repository_is_there() -> None:
    home = _home()
    # Claude Code clones plugin marketplaces into ~/.claude/plugins: a repository there
    # is the agent's folder, not a project of its own.
    market = _git(home / ".claude" / "plugins" / "marketplaces" / "tools")
    (home / ".codex" / "sessions").mkdir(parents=True)
    assert project_of(market) == str(home / ".claude")
    assert project_of(home / ".claude") == str(home / ".claude")
    assert project_of(home / ".codex" / "sessions") == str(home / ".codex")
    for name in (".gemini", ".copilot", ".config/opencode"):
        assert project_of(home / name / "x") == str(home / name)
    # The home folder itself, and a project's own .claude folder, are as before.
    app = _git(home / "src" / "app")
    assert project_of(home) == str(home)
    assert project_of(app / ".claude" / "worktrees" / "calm-fox") == str(app)
    assert agent_home(app / ".claude") is None and agent_home(home) is None
    # A transcript from another machine: the same names under any system's home folder.
    assert project_of("/Users/bob/.codex/memories") == "/Users/bob/.codex"
    assert project_of(r"C:\Users\Ana\.claude\skills\x") == r"c:\users\ana\.claude"
    assert project_of("/Users/bob/src/.codex-tools") == "/Users/bob/src/.codex-tools"


def test_the_folders_the_agents_variables_name_are_agent_folders(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    claude, codex = tmp_path / "cfg" / "claude", tmp_path / "cfg" / "codex"
    xdg = tmp_path / "xdg"
    for folder in (claude, codex, xdg / "opencode"):
        folder.mkdir(parents=True)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    monkeypatch.setenv("CODEX_HOME", str(codex))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(xdg))
    assert project_of(claude / "projects") == str(claude)
    assert project_of(codex) == str(codex)
    assert project_of(xdg / "opencode" / "agent") == str(xdg / "opencode")
    # The folder above them is still whatever it is.
    assert project_of(tmp_path / "cfg") == str(tmp_path / "cfg")


def test_a_variable_naming_the_home_folder_names_no_agent_folder(
        monkeypatch: pytest.MonkeyPatch) -> None:
    home = _home()
    monkeypatch.setenv("CODEX_HOME", str(home))  # else every project would be one folder
    app = _git(home / "src" / "app")
    assert project_of(app / "lib") == str(app)
    assert agent_home(app) is None


def test_a_project_rule_said_in_an_agents_folder_is_refused_there_and_follows_the_project(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = _home()
    skills = home / ".claude" / "skills" / "review"
    skills.mkdir(parents=True)
    app = _git(tmp_path / "app")
    # Named (--project): refused, as the home folder is.
    with pytest.raises(TargetError, match="agent's own folder"):
        choose(_rule(skills, skills), TargetChoice(skills))
    with pytest.raises(TargetError, match="agent's own folder"):
        choose(_rule(skills), TargetChoice(home / ".claude"))
    # Said only there: no project to follow.
    with pytest.raises(TargetError, match=r"said only in .*which is no project"):
        choose(_rule(skills, skills), TargetChoice(skills, follow_quotes=True))
    # Said there and in a project: the project, asked of no one, from wherever apply runs.
    both = _rule(home / ".codex", app)
    for here in (tmp_path, home / ".claude", skills):
        target = choose(both, TargetChoice(here, follow_quotes=True))
        assert target.path == app / "CLAUDE.md" and target.project == app


def test_claude_config_dir_is_refused_as_a_project_and_its_claude_md_stays_a_user_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    claude = tmp_path / "cfg" / "claude"
    claude.mkdir(parents=True)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    with pytest.raises(TargetError, match="agent's own folder"):
        choose(_rule(claude, claude, agent="claude"), TargetChoice(claude))
    # The user-scope rule still goes there, as the person's own.
    target = choose(_rule(claude, agent="claude", scope="user"), TargetChoice(claude))
    assert target.path == claude / "CLAUDE.md" and target.project is None


def test_the_write_check_never_takes_an_agents_folder_for_a_project_root(
        tmp_path: Path) -> None:
    home = _home()
    market = _git(home / ".claude" / "plugins" / "marketplaces" / "tools")
    (home / ".codex").mkdir()
    app = _git(tmp_path / "app")
    assert project_roots([market, home / ".codex", app]) == (app.resolve(),)
    assert not may_write(market / "CLAUDE.md", [market])
    assert not may_write(home / ".codex" / "CLAUDE.md", [home / ".codex"])
    # The agents' own user files are written as user files, as before.
    assert may_write(home / ".codex" / "AGENTS.md", [home / ".codex"])
    assert may_write(home / ".claude" / "CLAUDE.md", [home / ".claude"])


def _record(tmp_path: Path, points: list[Proposal],
            sessions: list[tuple[str, str, Path]]) -> None:
    from learn.store.feedback import FeedbackStore
    from learn.store.proposals import ProposalBook
    from learn.store.scan_tables import ScannedSession, ScanTables

    (tmp_path / "data").mkdir(exist_ok=True)
    with FeedbackStore.open(tmp_path / "data" / "learn.db") as store:
        ProposalBook(store).record(points, run_id=None, fallback_project=None)
        scans = ScanTables(store)
        for sid, agent, where in sessions:
            scans.record_session(ScannedSession(sid, agent, str(where), f"/x/{sid}", "h", None,
                                                0, "2026-03-20T00:00:00+00:00"))


@pytest.fixture
def learn_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("DATA", "CONFIG", "CACHE"):
        monkeypatch.setenv(f"LEARN_{name}_DIR", str(tmp_path / name.lower()))
    monkeypatch.delenv("LEARN_DATABASE_URL", raising=False)
    return tmp_path


def test_apply_from_the_codex_folder_writes_the_rule_said_there_and_in_a_project_to_the_project(
        learn_dirs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from learn.commands.apply import command

    home = _home()
    codex = home / ".codex"
    codex.mkdir()
    app = _git(learn_dirs / "app")
    _record(learn_dirs, [_rule(codex, app)], [("s0", "codex", codex), ("s1", "codex", app)])
    monkeypatch.chdir(codex)
    res = CliRunner().invoke(command, ["--dry-run"])
    assert res.exit_code == 0, res.output
    assert f"+++ {app / 'AGENTS.md'}" in res.output
    assert str(codex / "AGENTS.md") not in res.output
    assert "several projects" not in res.output


def test_a_rule_restated_in_the_user_claude_md_and_said_in_claude_home_gets_no_copies_there(
        learn_dirs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rewritten in place in ~/.claude/CLAUDE.md, the rule's "project" was ~/.claude (its
    quotes were said there), and the other agents' copies went to ~/.claude/AGENTS.md."""
    from learn.commands.apply import command

    home = _home()
    claude = home / ".claude"
    claude.mkdir()
    (claude / "CLAUDE.md").write_text("# mine\n\n- Check the sandbox first.\n")
    point = _rule(claude, claude, agent="claude")
    point = replace(point, status="restated", existing_rule="Check the sandbox first.",
                    existing_rule_file=str(claude / "CLAUDE.md"))
    _record(learn_dirs, [point], [("s0", "claude", claude), ("s1", "codex", claude)])
    monkeypatch.chdir(claude)
    res = CliRunner().invoke(command, ["--dry-run"])
    assert f"+++ {claude / 'CLAUDE.md'}" in res.output  # rewritten where it is
    assert str(claude / "AGENTS.md") not in res.output
    assert str(claude / "GEMINI.md") not in res.output


def _claude_session(home: Path, n: int, cwd: Path) -> None:
    sid = f"0000000{n}-1111-4000-8000-000000000000"
    folder = home / ".claude" / "projects" / f"dir{n}"
    folder.mkdir(parents=True)
    records = [
        {"type": "user", "uuid": f"u{n}", "parentUuid": None, "sessionId": sid, "cwd": str(cwd),
         "timestamp": f"2026-11-0{n}T10:00:00Z",
         "message": {"role": "user", "content": "check the sandbox setting first"}},
        {"type": "assistant", "uuid": f"a{n}", "parentUuid": f"u{n}", "sessionId": sid,
         "cwd": str(cwd), "timestamp": f"2026-11-0{n}T10:01:00Z",
         "message": {"role": "assistant", "model": "m",
                     "content": [{"type": "text", "text": "ok"}]}},
    ]
    (folder / f"{sid}.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")


def test_the_listing_shows_sessions_in_an_agents_folder_under_that_folder_as_home_is_under_tilde(
        learn_dirs: Path) -> None:
    home = _home()
    market = _git(home / ".claude" / "plugins" / "marketplaces" / "tools")
    (home / ".codex").mkdir()
    app = _git(home / "src" / "app")
    for n, cwd in enumerate((home, home / ".codex", market, app), start=1):
        _claude_session(home, n, cwd)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-m", "learn", "sessions", "--all-projects", "--json"],
                          env=env, capture_output=True, text=True, timeout=120, cwd=home)
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    rows = rows["sessions"] if isinstance(rows, dict) else rows
    projects = {r["cwd"]: r["project"] for r in rows}
    assert projects == {str(home): str(home), str(home / ".codex"): str(home / ".codex"),
                        str(market): str(home / ".claude"), str(app): str(app)}


def test_the_digest_names_no_agents_folder_as_a_project(tmp_path: Path) -> None:
    from learn.report.proposal_lines import project_line

    codex = _home() / ".codex"
    codex.mkdir()
    app = _git(tmp_path / "app")
    assert project_line(_rule(codex, app)) == f"project: `{app}`"
    only = project_line(_rule(codex, codex))
    assert only is not None and only.startswith(f"said only in `{codex}`, an agent's own folder")
    assert project_line(_rule(codex, scope="user")) == f"said in `{codex}` (a user rule: every project)"
