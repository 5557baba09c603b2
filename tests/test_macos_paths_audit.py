"""macOS spellings of one folder: case, a trailing slash, a symlinked folder.

macOS's default volumes fold case, so `/Users/Ana/App` and `/Users/ana/app` are one
folder and learn keys both as `/users/ana/app` (learn.projects.flavour). That key is
also a path learn writes through, so it must never be compared as a Path with a
spelling from the disk (`Path.home()` is `/Users/ana`): before, a rule said in home
went to ~/CLAUDE.md, a checkout's directory chain was only its last folder, and
`apply` run above a project asked which project instead of taking the one below.

The case tests run on any host: `sys.platform` reads "darwin", and a lower-case
symlink beside each upper-case folder answers for it as a case-blind volume would.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from learn.projects import Known, path_key, project_of
from learn.records.proposal import Proposal, Quote, Verdict
from learn.reduce.rule_places import chain
from learn.report.targets import TargetChoice, TargetError, choose

GIT = shutil.which("git")


@pytest.fixture()
def darwin(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    if str(tmp_path) != str(tmp_path).casefold():
        pytest.skip("the temp folder's own path has capitals: nothing answers for it folded")
    monkeypatch.setattr(sys, "platform", "darwin")


def case_blind(folder: Path) -> Path:
    """`folder` made, and its case-folded spelling answering for it."""
    folder.mkdir(parents=True)
    folded = folder.with_name(folder.name.casefold())
    folded.symlink_to(folder.name)
    return folder


def made(folder: Path) -> Path:
    folder.mkdir(parents=True)
    return folder


def repository(root: Path) -> Path:
    if GIT is None:
        pytest.skip("git is not installed")
    subprocess.run([GIT, "init", "-q", "-b", "main"], cwd=root, check=True)
    return root


def said_in(*folders: Path | str) -> Proposal:
    quotes = tuple(Quote(f"s{i}", "use npm", f"2026-11-0{i + 1}T00:00:00Z", project=str(f))
                   for i, f in enumerate(folders))
    return Proposal(kind="directive", label="use-npm", text="use npm", sessions=len(folders),
                    count=len(folders), last_seen="2026-11-02T00:00:00Z", quotes=quotes,
                    verdict=Verdict(True, "Run scripts with npm.", "tooling", "project", 0.9))


def test_spellings_of_one_macos_folder_are_one_project(darwin: None) -> None:
    spellings = ["/Users/Ana/App", "/Users/ana/app", "/Users/ana/app/", "/users/ANA/app//"]
    assert {project_of(s) for s in spellings} == {"/users/ana/app"}
    known = Known()
    known.add_folder("/Users/Ana/App")
    assert known.holds("/users/ana/app")


def test_a_symlinked_project_folder_is_one_project(tmp_path: Path) -> None:
    real = tmp_path / "volumes" / "dev" / "code"  # ~/code -> /Volumes/dev/code
    web = repository(made(real / "web"))
    link = tmp_path / "code"
    link.symlink_to(real)
    assert project_of(link / "web") == project_of(web) == project_of(f"{link}/web/src/")
    target = choose(said_in(link / "web", web), TargetChoice(link / "web", follow_quotes=True))
    assert target.path.resolve() == web / "CLAUDE.md"


def test_a_rule_said_in_home_is_never_written_there_on_macos(
        darwin: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = case_blind(tmp_path / "Ana")
    monkeypatch.setenv("HOME", str(home))
    elsewhere = made(tmp_path / "elsewhere")
    assert project_of(home) == path_key(home) != str(home)  # the key is case-folded
    for here in (elsewhere, home):
        with pytest.raises(TargetError, match="home folder"):
            choose(said_in(home, home), TargetChoice(here, follow_quotes=True))
    with pytest.raises(TargetError, match="home folder"):
        choose(said_in(elsewhere), TargetChoice(home))


def test_a_checkouts_directory_chain_on_macos(darwin: None, tmp_path: Path) -> None:
    repo = repository(case_blind(tmp_path / "Repo"))
    (repo / "src" / "ui").mkdir(parents=True)
    assert chain(repo / "src" / "ui") == [repo, repo / "src", repo / "src" / "ui"]


def test_apply_above_a_project_on_macos_takes_the_project_below(
        darwin: None, tmp_path: Path) -> None:
    code = case_blind(tmp_path / "Code")
    web = repository(made(code / "web"))
    api = repository(made(tmp_path / "other" / "api"))
    target = choose(said_in(web, api, api), TargetChoice(code, follow_quotes=True))
    assert target.path.resolve() == web / "CLAUDE.md"
    assert os.path.samefile(target.project or "", web)


def test_confine_takes_no_spelling_of_home_as_a_project_root(
        darwin: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # confine's own guard (a write's last check): every CLAUDE.md below a project root
    # is a project surface, so home in another case must not be one.
    from learn.report import confine

    home = tmp_path / "Ana"
    (home / "app").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    # macOS's realpath keeps the case it is asked in; no link to resolve here.
    monkeypatch.setattr(confine, "_real", lambda p: Path(os.path.abspath(p)))
    assert confine.project_roots([str(tmp_path / "ana")]) == ()
    assert confine.project_roots([str(tmp_path)]) == ()
    assert confine.project_roots([str(tmp_path / "ana" / "app")]) == (tmp_path / "ana" / "app",)
