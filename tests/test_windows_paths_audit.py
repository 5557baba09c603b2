"""Transcripts recorded on Windows, read on Linux or macOS (a team store, a copied home).

A Windows session's cwd is `C:\\Users\\ana\\app` or `c:\\users\\ana\\app` (one folder:
NTFS folds case), a UNC share, a WSL mount; Claude Code files them under
`projects/C--Users-ana-app` (every character but ASCII letters and digits made
`-`, the drive letter as the cwd spelled it: both cases are seen in the wild).
learn reads the cwd from the transcript, never from that lossy folder name. What
failed before: a Windows folder named on this system was made absolute against
learn's working directory, so the rule files of whatever repository learn ran in
were read as that project's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from evals.builder.claude import ClaudeSession
from evals.builder.common import stable_uuid
from learn.projects import as_folder, checkout_root, path_key, project_of
from learn.records.proposal import Proposal, Quote, Verdict
from learn.reduce.rule_places import chain
from learn.reduce.rules import rule_files
from learn.report.targets import TargetChoice, TargetError, choose
from learn.transcripts.files.discover import scan

APP = r"C:\Users\ana\app"
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def said_in(*folders: str) -> Proposal:
    quotes = tuple(Quote(f"s{i}", "use npm", f"2026-11-0{i + 1}T00:00:00Z", project=f)
                   for i, f in enumerate(folders))
    return Proposal(kind="directive", label="use-npm", text="use npm", sessions=len(folders),
                    count=len(folders), last_seen="2026-11-02T00:00:00Z", quotes=quotes,
                    verdict=Verdict(True, "Run scripts with npm.", "tooling", "project", 0.9))


def test_every_spelling_of_a_windows_folder_is_one_project_on_any_host() -> None:
    spellings = [APP, r"c:\users\ana\app", "C:/Users/ana/app", "c:\\Users\\ANA\\App\\",
                 r"C:\Users\ana\src\..\app", r"\\?\C:\Users\ana\app"]
    assert {project_of(s) for s in spellings} == {r"c:\users\ana\app"}
    assert project_of(APP + r"\.claude\worktrees\brave-owl") == r"c:\users\ana\app"
    shares = [r"\\server\share\app", r"\\SERVER\Share\app\\", "//server/share/app",
              r"\\?\UNC\server\share\app"]
    assert {project_of(s) for s in shares} == {r"\\server\share\app"}
    assert project_of(r"\\server\share\app") != project_of(r"\\server\other\app")
    # WSL's view of the same drive: on WSL and Windows the same folder
    # (tests/test_wsl_paths.py); on any other host whatever is mounted there, its own
    # key, never a crash.
    for wsl in ("/mnt/c/Users/ana/app", "/mnt/c/Users/ana/app/"):
        assert project_of(wsl) == path_key("/mnt/c/Users/ana/app")
    # Nothing of a Windows folder is looked for on this disk, or joined to it.
    for s in (*spellings, *shares, "C:", "C:\\"):
        assert checkout_root(s) is None and as_folder(project_of(s) or "") is None


def test_a_copied_windows_home_is_one_project_and_nothing_is_written_here(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    claude = Path(os.environ["HOME"]) / ".claude"
    cwds = [APP, APP, r"c:\Users\ana\app", r"c:\users\ana\app\web", r"C:\Users\ana\other"]
    for n, cwd in enumerate(cwds):
        s = ClaudeSession(stable_uuid("win-home", str(n)), cwd, START + timedelta(hours=n))
        s.user("use npm for the scripts here")
        s.assistant("Will do.")
        s.write(claude)
    # The folders as Claude Code on Windows names them, the drive letter as spelled.
    assert {p.name for p in (claude / "projects").iterdir()} == {
        "C--Users-ana-app", "c--Users-ana-app", "c--users-ana-app-web", "C--Users-ana-other"}
    found = scan(project=Path("c:/users/ana/APP"))
    assert sorted(f.project or "" for f in found.files) == sorted(cwds[:4])
    assert {f.project_id for f in found.files} == {r"c:\users\ana\app"}
    assert found.skipped.get("other_project") == 1

    here = tmp_path / "elsewhere"
    here.mkdir()
    monkeypatch.chdir(here)
    p = said_in(APP, r"c:\users\ana\app")
    with pytest.raises(TargetError, match="no longer exists on this machine"):
        choose(p, TargetChoice(here, follow_quotes=True))
    with pytest.raises(TargetError, match="another system"):
        choose(p, TargetChoice(Path(APP)))
    assert list(here.iterdir()) == []


def test_a_windows_folder_named_here_reads_no_rule_file_of_the_folder_learn_runs_in(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run([git, "init", "-q", "-b", "main"], cwd=repo, check=True)
    (repo / "CLAUDE.md").write_text("- the rules of the repository learn runs in\n")
    (repo / "AGENTS.md").write_text("- the same, for Codex\n")
    monkeypatch.chdir(repo)
    windows = Path(APP)  # `learn run --project C:\Users\ana\app` over a copied home
    assert chain(windows) == [windows]
    assert [p for p, _ in rule_files(windows) if repo in p.parents] == []
    assert rule_files(repo)  # the repository's own files are read for the repository


def test_a_worktree_git_for_windows_made_is_its_windows_repositorys_here(tmp_path: Path) -> None:
    # A checkout on a shared drive, its `.git` file written by Git for Windows.
    shared = tmp_path / "share" / "app-fix"
    (shared / "src").mkdir(parents=True)
    (shared / ".git").write_text("gitdir: C:/Users/ana/app/.git/worktrees/app-fix\n")
    assert project_of(shared / "src") == project_of(APP) == r"c:\users\ana\app"
    assert checkout_root(shared / "src") == str(shared)  # where apply run there writes
