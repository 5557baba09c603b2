"""One folder seen from Windows and from WSL is one project (learn.projects.flavour).

A person on Windows who runs Claude Code natively (`C:\\Users\\bob\\proj`) and inside
WSL (`/mnt/c/Users/bob/proj`) works in one folder; a native session in a distro's
folder records `\\\\wsl$\\Ubuntu\\home\\bob\\proj` for WSL's `/home/bob/proj`. Keyed
apart, a point said on both sides counted in halves and its rule went to two places.
A key is for comparing; what learn writes goes to the folder as this disk spells it
(on WSL `/mnt/c/Users/bob/proj`), never to a Windows spelling joined to a Linux cwd.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_windows_paths_audit import said_in

import learn.projects.flavour as flavour
from evals.builder.claude import ClaudeSession
from evals.builder.common import stable_uuid
from learn.cli import cli
from learn.projects import as_folder, checkout_folder, path_key, project_of, write_roots
from learn.projects.flavour import disk_path, on_this_disk
from learn.report.targets import TargetChoice, TargetError, choose

KEY = r"c:\users\bob\proj"
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def test_every_spelling_of_a_drive_folder_from_windows_or_wsl_is_one_project(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(flavour, "_WSL", True)
    spellings = [r"C:\Users\bob\proj", r"c:\users\bob\proj", r"C:\Users\bob\proj" "\\",
                 "C:/Users/bob/proj", "c:/users/BOB/proj/", r"\\?\C:\Users\bob\proj",
                 "/mnt/c/Users/bob/proj", "/mnt/c/Users/bob/proj/", "/mnt/c/users/bob/proj",
                 "/mnt/c/USERS/Bob/Proj", "/mnt/c/Users/bob/src/../proj",
                 r"\\wsl$\Ubuntu\mnt\c\Users\bob\proj"]
    assert {project_of(s) for s in spellings} == {KEY}
    assert project_of("/mnt/c/Users/bob/proj/.claude/worktrees/calm-fox") == KEY
    assert {project_of(s) for s in ("/mnt/c", "/mnt/c/", "C:\\", "c:/")} == {"c:\\"}
    assert project_of("/mnt/d/work/app") == project_of(r"D:\Work\App") == r"d:\work\app"
    assert project_of("/mnt/d/Users/bob/proj") != KEY  # another drive


def test_a_distros_folder_named_from_windows_is_the_wsl_folder() -> None:
    wsl = project_of("/home/bob/proj")
    for s in (r"\\wsl$\Ubuntu\home\bob\proj", r"\\wsl.localhost\Ubuntu\home\bob\proj",
              r"\\WSL$\Ubuntu\home\bob\proj" "\\", "//wsl$/Ubuntu/home/bob/proj",
              "//wsl.localhost/Ubuntu-22.04/home/bob/proj/",
              r"\\?\UNC\wsl.localhost\Ubuntu\home\bob\proj"):
        assert project_of(s) == wsl == path_key("/home/bob/proj")
    # Below the distro's name the path is Linux's: its case is kept.
    assert project_of(r"\\wsl$\Ubuntu\home\Bob\proj") != wsl
    assert project_of(r"\\wsl$\Ubuntu") == "/"
    # Another server's share is a share, not a distro.
    assert project_of(r"\\wslserver\Ubuntu\home\bob\proj") == r"\\wslserver\ubuntu\home\bob\proj"
    assert project_of(r"\\server\wsl$\home\bob\proj").startswith("\\\\server")


@pytest.mark.parametrize("path", ["/mnt/data/Users/bob/proj", "/mnt/cc/Users/bob/proj",
                                  "/mnt/C/Users/bob/proj", "/mnt", "/mnt/", "/c/Users/bob/proj",
                                  "/media/c/Users/bob/proj", "/home/bob/mnt/c/proj"])
def test_a_path_that_only_looks_like_a_wsl_drive_stays_a_linux_folder(path: str) -> None:
    # `/mnt/data`, `/mnt/cc`: ordinary mount points; `/mnt/C` is not WSL's (it mounts
    # lowercase); `/c/` (wsl.conf `root = /`) is as often an ordinary folder.
    assert project_of(path) == path_key(path)
    assert not flavour.is_windows_path(project_of(path) or "")
    assert project_of(path) != KEY


def test_a_drive_key_is_no_folder_here_off_wsl(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(flavour, "_WSL", False)
    assert disk_path(KEY) is None and not on_this_disk(KEY)
    # Off WSL `/mnt/c/` is whatever is mounted there: a folder of this machine's own.
    assert project_of("/mnt/c/Users/bob/proj") == path_key("/mnt/c/Users/bob/proj") != KEY
    assert write_roots(KEY, "/mnt/c/Users/bob/proj/CLAUDE.md") == (KEY,)


@pytest.fixture
def wsl(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A WSL system whose C: drive (mounted at `<tmp>/mnt/c`) holds `Users/bob/proj`."""
    mnt = tmp_path / "mnt"
    proj = mnt / "c" / "Users" / "bob" / "proj"
    proj.mkdir(parents=True)
    (mnt / "cc" / "Users" / "bob" / "proj").mkdir(parents=True)
    monkeypatch.setattr(flavour, "MOUNT_ROOT", str(mnt))
    monkeypatch.setattr(flavour, "_WSL", True)
    return proj


def test_on_wsl_a_drive_key_is_read_and_written_where_the_disk_spells_it(wsl: Path) -> None:
    mounted = str(wsl)
    assert project_of(mounted) == project_of(r"C:\Users\bob\proj") == KEY
    # The key folds case; the folder learn writes in is the one on the disk.
    assert disk_path(KEY) == mounted
    assert as_folder(KEY) == wsl
    assert checkout_folder(r"C:\Users\bob\proj") == wsl
    assert checkout_folder(mounted) == wsl
    assert write_roots(KEY, str(wsl / "CLAUDE.md")) == (mounted,)
    # Nothing there, or another drive letter: no folder, never a Windows spelling.
    assert disk_path(r"c:\users\bob\gone") is None and as_folder(r"c:\users\bob\gone") is None
    assert disk_path(r"d:\users\bob\proj") is None
    assert not on_this_disk(r"\\server\share\proj")


def test_on_wsl_two_folders_that_differ_only_in_case_are_no_folder(wsl: Path) -> None:
    # WSL can make a drive's folder case-sensitive: which of the two is meant is unknown.
    other = wsl.parent / "PROJ"
    try:
        other.mkdir()
    except FileExistsError:
        pytest.skip("this disk folds case")
    assert disk_path(KEY) is None and as_folder(KEY) is None
    with pytest.raises(TargetError):  # nothing is written to a guess
        choose(said_in(str(wsl)), TargetChoice(wsl.parent, follow_quotes=True))


def test_on_wsl_a_checkout_on_the_drive_is_found_from_either_spelling(wsl: Path) -> None:
    (wsl / ".git").mkdir()
    (wsl / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (wsl / "web").mkdir()
    assert project_of(r"C:\Users\bob\proj\web") == project_of(str(wsl / "web")) == KEY
    assert checkout_folder(r"c:\users\bob\proj\web") == wsl  # the checkout, as spelled here


def test_a_rule_said_on_both_sides_goes_to_the_one_folder_this_disk_has(
        wsl: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    here = tmp_path / "elsewhere"
    here.mkdir()
    monkeypatch.chdir(here)
    p = said_in(r"C:\Users\bob\proj", str(wsl))
    target = choose(p, TargetChoice(here, follow_quotes=True))
    assert target.path == wsl / "CLAUDE.md"
    monkeypatch.setattr(flavour, "_WSL", False)  # the same transcripts read off WSL
    with pytest.raises(TargetError):
        choose(p, TargetChoice(here, follow_quotes=True))
    assert list(here.iterdir()) == []


def test_learn_sessions_lists_a_folder_spelled_by_windows_and_by_wsl_as_one_project(
        wsl: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    claude = Path(os.environ["HOME"]) / ".claude"
    cwds = [r"C:\Users\bob\proj", str(wsl), r"c:\users\bob\proj", str(wsl.parent.parent.parent
                                                                       / "cc" / "Users" / "bob"
                                                                       / "proj")]
    for n, cwd in enumerate(cwds):
        s = ClaudeSession(stable_uuid("wsl", str(n)), cwd, START + timedelta(hours=n))
        s.user("use npm for the scripts here")
        s.assistant("Will do.")
        s.write(claude)

    def listed(*args: str) -> list[dict[str, str]]:
        result = CliRunner().invoke(cli, ["sessions", "--json", *args], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        rows = json.loads(result.output)["sessions"]
        assert isinstance(rows, list)
        return rows

    rows = listed("--all-projects")
    by_cwd = {r["cwd"]: r["project"] for r in rows}
    assert len(rows) == 4
    one = {by_cwd[c] for c in cwds[:3]}
    assert len(one) == 1  # one project, named by the spelling most sessions used
    assert path_key(one.pop()) == KEY
    assert path_key(by_cwd[cwds[3]]) != KEY  # `/mnt/cc/…` is an ordinary folder
    for named in (str(wsl), r"C:\Users\bob\proj"):
        assert sorted(r["cwd"] for r in listed("--project", named)) == sorted(cwds[:3])


def test_claude_code_for_windows_memory_of_a_drive_project_is_found_from_wsl(
        wsl: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Claude Code for Windows names a project's folder after `C:\Users\Me\Proj`; learn
    # on WSL, in /mnt/c/Users/Me/Proj, looked for the WSL spelling's folder only: the
    # memory there was never seen (a rule it held was proposed again).
    from learn.reduce.surfaces import memory_dirs

    mnt = wsl.parents[3]  # the fixture's project is <mnt>/c/Users/bob/proj
    claude = mnt / "c" / "Users" / "Me" / ".claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    project = mnt / "c" / "Users" / "Me" / "Proj"
    project.mkdir(parents=True)
    memory = claude / "projects" / "C--Users-Me-Proj" / "memory"
    memory.mkdir(parents=True)
    assert memory_dirs(project, mnt)[0] == memory
    # Where WSL's own Claude Code ran there too, its folder (the WSL spelling) comes first.
    own = claude / "projects" / (str(project).replace("/", "-").replace("_", "-")) / "memory"
    own.mkdir(parents=True)
    assert memory_dirs(project, mnt)[0] == own
    # Off WSL a /mnt folder is just a folder: no Windows spelling is tried.
    monkeypatch.setattr(flavour, "_WSL", False)
    own.rmdir()
    own.parent.rmdir()
    assert memory_dirs(project, mnt)[0] == own
