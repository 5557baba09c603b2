"""Issue 18 item 7: a project's identity follows its file system's rules, on any host.

Windows transcripts wrote one folder as `C:\\Users\\…\\VAULT` and `c:\\Users\\…\\VAULT`
(one project: NTFS folds case), and sessions in `…\\VAULT\\.claude\\worktrees\\…`
belong to it, as POSIX subfolders belong to theirs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from learn.projects import Known, is_windows_path, path_key, project_of, spellings
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
