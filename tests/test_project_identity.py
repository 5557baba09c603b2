"""A project's identity (learn.projects.project_of): the repository, by its file system's rules.

Windows transcripts wrote one folder as `C:\\Users\\…\\VAULT` and `c:\\Users\\…\\VAULT`
(one project: NTFS folds case), and sessions in `…\\VAULT\\.claude\\worktrees\\…`
belong to it, as POSIX subfolders belong to theirs.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from _git import GIT, git, needs_git

from learn.projects import (
    Hints,
    Known,
    checkout_root,
    is_windows_path,
    path_key,
    project_of,
    quote_projects,
    spellings,
)
from learn.records.proposal import Proposal, Quote
from learn.transcripts.files.discover import scan

REPO = Path(__file__).resolve().parents[1]
VAULT = r"C:\Users\ana\VAULT"


def write_session(home: Path, n: int, cwd: str, text: str = "keep the notes in one folder") -> None:
    sid = f"0000000{n}-1111-4000-8000-000000000000"
    d = home / ".claude" / "projects" / f"dir{n}"
    d.mkdir(parents=True)
    records = [
        {"type": "user", "uuid": f"u{n}", "parentUuid": None, "sessionId": sid, "cwd": cwd,
         "timestamp": f"2026-11-0{n}T10:00:00Z", "message": {"role": "user", "content": text}},
        {"type": "assistant", "uuid": f"a{n}", "parentUuid": f"u{n}", "sessionId": sid, "cwd": cwd,
         "timestamp": f"2026-11-0{n}T10:01:00Z",
         "message": {"role": "assistant", "model": "m", "content": [{"type": "text", "text": "ok"}]}},
    ]
    (d / f"{sid}.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")


def same_project(a: str | Path, b: str | Path) -> bool:
    return project_of(a) == project_of(b)


def test_windows_paths_fold_case_and_separators_on_any_host() -> None:
    assert is_windows_path(VAULT) and is_windows_path("c:/x") and is_windows_path(r"\\srv\share")
    assert not is_windows_path("/home/ana/vault") and not is_windows_path("C:relative")
    assert path_key(VAULT) == path_key(r"c:\users\ana\vault\\") == path_key("C:/Users/ana/VAULT")
    assert same_project(VAULT, r"c:\Users\ana\VAULT")
    assert not same_project(VAULT, r"C:\Users\ana\VAULT2")
    # Claude Code desktop's worktrees are the vault's, on any host.
    assert same_project(rf"{VAULT}\.claude\worktrees\feature-x", r"c:\users\ana\vault")
    assert path_key("C:\\") == "c:\\"
    # The extended-length spelling is the same folder.
    assert same_project(r"\\?\C:\Users\ana\VAULT", VAULT)
    assert same_project(r"\\?\UNC\nas\home\ana", r"\\NAS\home\ana")


def test_posix_paths_keep_their_case_and_include_subfolders(tmp_path: Path) -> None:
    app = tmp_path / "App"
    (app / "sub").mkdir(parents=True)
    known = Known()
    known.add_root(str(app))
    assert project_of(app / "sub", known) == project_of(app)
    assert project_of(tmp_path / "App2", known) != project_of(app)
    if sys.platform.startswith("linux"):  # ext4 and most Linux file systems are case-sensitive
        assert not same_project(app, tmp_path / "app")
    link = tmp_path / "link"
    link.symlink_to(app)
    assert same_project(link, app)


def test_one_spelling_per_project_the_one_most_sessions_used() -> None:
    cwds = [VAULT, r"c:\Users\ana\VAULT", VAULT, "/srv/app", None]
    spelled = spellings((c, project_of(c)) for c in cwds)
    assert spelled == {path_key(VAULT): VAULT, "/srv/app": "/srv/app"}


def test_discovery_counts_both_spellings_and_the_worktrees_as_the_project() -> None:
    home = Path.home()
    write_session(home, 1, VAULT)
    write_session(home, 2, VAULT)
    write_session(home, 3, r"c:\Users\ana\VAULT")
    write_session(home, 4, r"c:\users\ana\vault\.claude\worktrees\tidy-notes")
    write_session(home, 5, r"C:\Users\ana\VAULT2")
    write_session(home, 6, "/home/ana/VAULT")
    found = scan(project=Path(VAULT))
    assert sorted(f.project or "" for f in found.files) == sorted(
        [VAULT, VAULT, r"c:\Users\ana\VAULT", r"c:\users\ana\vault\.claude\worktrees\tidy-notes"])
    assert found.skipped.get("other_project") == 2


def test_a_run_reports_one_project_for_both_spellings(_isolated_home: Path) -> None:
    for n, cwd in enumerate((VAULT, VAULT, r"c:\Users\ana\VAULT"), start=1):
        write_session(_isolated_home, n, cwd, "always keep the daily notes in one folder")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
    env.update(HOME=str(_isolated_home), PYTHONPATH=str(REPO))
    done = subprocess.run(
        [sys.executable, "-m", "learn", "run", "--offline", "--all-projects", "--since",
         "2026-01-01", "--json", "--quiet"],
        env=env, capture_output=True, text=True, timeout=120, cwd=_isolated_home,
    )
    assert done.returncode == 0, done.stderr
    from learn.store.runs import load_latest_run

    stored = load_latest_run(None)
    assert stored is not None and stored.projects == (VAULT,)


# ---------------------------------------------------------------- a repository, on real git





def repository(root: Path, origin: str | None = None) -> Path:
    root.mkdir(parents=True)
    git("init", "-q", "-b", "main", cwd=root)
    if origin:
        git("remote", "add", "origin", origin, cwd=root)
    (root / "a.txt").write_text("a\n")
    git("add", "a.txt", cwd=root)
    git("commit", "-q", "-m", "one", cwd=root)
    return root


@needs_git
def test_every_checkout_and_folder_of_a_repository_is_its_project(tmp_path: Path) -> None:
    repo = repository(tmp_path / "repo")
    git("worktree", "add", "-q", str(tmp_path / "repo-fix"), "-b", "fix", cwd=repo)
    git("worktree", "add", "-q", str(repo / ".claude" / "worktrees" / "calm-fox"), "-b", "c",
        cwd=repo)
    (repo / "packages" / "ui").mkdir(parents=True)
    for folder in (repo, tmp_path / "repo-fix", repo / ".claude" / "worktrees" / "calm-fox",
                   repo / "packages" / "ui", tmp_path / "repo-fix" / "deleted-sub"):
        assert project_of(folder) == str(repo), folder
    # Where Claude Code reads CLAUDE.md, and apply writes: the checkout itself.
    assert checkout_root(tmp_path / "repo-fix" / "x") == str(tmp_path / "repo-fix")
    assert checkout_root(repo / "packages") == str(repo)
    # A submodule-like checkout (a `.git` file without commondir) is its own project.
    inner = repository(tmp_path / "other")
    nested = repo / "vendor" / "lib"
    nested.mkdir(parents=True)
    (nested / ".git").write_text(f"gitdir: {inner / '.git'}\n")
    assert project_of(nested) == str(nested)


@needs_git
def test_a_deleted_worktree_is_placed_by_memory_by_its_branch_or_by_its_name(
        tmp_path: Path) -> None:
    repo = repository(tmp_path / "repo")
    wt = tmp_path / "repo-tidy"
    git("worktree", "add", "-q", str(wt), "-b", "tidy-logs", cwd=repo)
    known = Known()
    assert project_of(wt, known) == str(repo)
    assert known.learned == {str(wt): str(repo)}  # what the disk said, to remember
    shutil.rmtree(wt)  # removed by hand: git still lists the folder until a prune
    fresh = Known()
    fresh.add_folder(str(repo), Hints("main"))
    assert project_of(wt, fresh, Hints("other")) == str(repo)
    git("worktree", "prune", cwd=repo)
    # The branch is still there: the session recorded it.
    assert project_of(wt, fresh, Hints("tidy-logs")) == str(repo)
    git("branch", "-D", "tidy-logs", cwd=repo)
    # Named after the repository, beside it, in a repository (it had a branch).
    assert project_of(wt, fresh, Hints("gone-now")) == str(repo)
    # Only what was remembered knows a folder that says nothing.
    assert project_of(tmp_path / "scratch", fresh, Hints("gone-now")) == str(tmp_path / "scratch")
    remembered = Known(remembered={str(tmp_path / "scratch"): str(repo)})
    assert project_of(tmp_path / "scratch" / "sub", remembered) == str(repo)
    # A branch every repository has says nothing; nor does a folder beside it otherwise named.
    assert project_of(tmp_path / "elsewhere", fresh, Hints("main")) == str(tmp_path / "elsewhere")


@needs_git
def test_codex_names_the_repository_by_its_remote_and_commit(tmp_path: Path) -> None:
    repo = repository(tmp_path / "shop", origin="git@github.com:Acme/Shop.git")
    known = Known()
    known.add_folder(str(repo), Hints("main"))
    cloud = "/home/runner/work/shop/shop"
    assert project_of(cloud, known, Hints(repository="github.com/acme/shop")) == str(repo)
    assert project_of(cloud, known, Hints(repository="github.com/acme/other")) == cloud
    head = subprocess.run([GIT or "git", "rev-parse", "HEAD"], cwd=repo, capture_output=True,
                          text=True, check=True).stdout.strip()
    assert project_of(cloud, known, Hints(commit=head)) == str(repo)
    assert project_of(cloud, known, Hints(commit="f" * 40)) == cloud


def test_a_home_folder_never_holds_the_projects_below_it(tmp_path: Path) -> None:
    home = Path(os.environ["HOME"])
    (home / ".git").mkdir()  # dotfiles kept in git
    (home / "notes").mkdir()
    assert project_of(home / "notes") == str(home / "notes")
    assert project_of(home) == str(home)
    known = Known()
    known.add_folder(str(home), Hints("main"))
    known.add_folder("/Users/bob", Hints("main"))
    assert project_of(home / "gone", known) == str(home / "gone")
    assert project_of("/Users/bob/src/app", known) == "/Users/bob/src/app"


def test_a_folder_from_another_machine_belongs_to_the_repository_folder_above_it() -> None:
    known = Known()
    known.add_folder("/Users/bob/src/app", Hints("main"))  # ran in a repository
    known.add_folder("/Users/bob/src", Hints())  # a folder of projects, not one
    assert project_of("/Users/bob/src/app/packages/ui", known) == "/Users/bob/src/app"
    assert project_of("/Users/bob/src/other", known) == "/Users/bob/src/other"
    known.add_folder(rf"{VAULT}", Hints("main"))
    assert project_of(r"c:\users\ana\vault\notes", known) == path_key(VAULT)


def test_a_repository_id_stays_an_id() -> None:
    assert project_of("github.com/acme/webshop") == "github.com/acme/webshop"
    assert quote_projects([Quote("s1", "x", None, "github.com/acme/webshop")]) == [
        "github.com/acme/webshop"]
    p = Proposal(kind="directive", label="x", text="x", sessions=1, count=1, last_seen=None,
                 quotes=(Quote("s1", "x", None, "github.com/acme/webshop"),), people=2)
    assert p.to_json()["project"] == "github.com/acme/webshop"


@needs_git
def test_a_repository_id_is_the_same_from_every_checkout_and_never_a_path(tmp_path: Path) -> None:
    from learn.projects import repository_id_of

    repo = repository(tmp_path / "repo", origin="https://ana:s3cret@GitHub.com/Acme/Shop.git")
    git("worktree", "add", "-q", str(tmp_path / "repo-fix"), "-b", "fix", cwd=repo)
    (repo / "packages").mkdir()
    for folder in (repo, tmp_path / "repo-fix", repo / "packages"):
        assert repository_id_of(folder) == "github.com/acme/shop", folder
    # The same id git itself reads (a quoted value), and none for a local remote or none.
    git("remote", "add", "mirror", "/srv/git/shop.git", cwd=repository(tmp_path / "local"))
    assert repository_id_of(tmp_path / "local") is None
    assert repository_id_of(repository(tmp_path / "bare-remote")) is None
    assert repository_id_of(tmp_path) is None
    quoted = repository(tmp_path / "quoted")
    with (quoted / ".git" / "config").open("a") as config:
        config.write('[remote "origin"]\n\turl = "git@gitlab.com:team/app.git"\n')
    done = subprocess.run([GIT or "git", "-C", str(quoted), "remote", "get-url", "origin"],
                          capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "git@gitlab.com:team/app.git"
    assert repository_id_of(quoted) == "gitlab.com/team/app"
