"""A project in no repository, asked from a folder below the one its sessions ran in.

Audit finding M2: sessions ran in `w/trunc` (no `.git`); from `w/trunc/sub/dir`
`learn sessions` listed them under the heading "project …/trunc/sub/dir", and
`learn apply --dry-run` proposed `w/trunc/sub/dir/CLAUDE.md`, a folder no session
ran in (docs/proposals.md: apply never creates a CLAUDE.md in a folder no quote
came from). The project there is the folder the sessions ran in (learn.projects:
the nearest folder above that sessions ran in), and both commands name it.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from _learn_cli import learn

from evals.builder.claude import ClaudeSession
from evals.builder.common import stable_uuid
from learn.projects import Known, checkout_folder, project_here

CENTS = "keep the order totals in integer cents, never floats"
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _sessions(cwd: Path, n: int) -> None:
    claude = Path(os.environ["HOME"]) / ".claude"
    for i in range(n):
        s = ClaudeSession(stable_uuid("no-repo", str(i)), str(cwd), START + timedelta(hours=i))
        # Each typed differently: the same prompt in every session is a program's.
        s.user(["let's tidy the checkout code", "the invoice totals look wrong",
                "clean up the basket module"][i % 3])
        s.assistant("I'll edit the totals module.")
        s.denied_tool("Edit", {"file_path": f"{cwd}/totals.py", "old_string": "a",
                               "new_string": "b"}, CENTS)
        s.assistant("Understood.")
        s.write(claude)


def test_a_sub_folder_of_a_folder_sessions_ran_in_is_that_folders_project() -> None:
    home = Path(os.environ["HOME"])
    trunc = home / "w" / "trunc"
    deep = trunc / "sub" / "dir"
    deep.mkdir(parents=True)
    _sessions(trunc, 3)

    # Listed once where they ran: the session index then knows the folder (learn
    # places a folder by the folders sessions ran in, as the index has them).
    first = learn("sessions", cwd=trunc)
    assert first.stdout.splitlines()[0] == f"3 session(s): project {trunc}", first.stdout
    listed = learn("sessions", cwd=deep)
    assert listed.returncode == 0, listed.stderr
    heading = listed.stdout.splitlines()[0]
    assert heading == f"3 session(s): project {trunc}", heading

    run = learn("run", "--offline", "--since", "2026-01-01", "--json", "--quiet", cwd=deep)
    assert run.returncode == 0, run.stderr
    texts = [p["text"] for p in json.loads(run.stdout)["proposals"]]
    assert CENTS in texts, texts

    dry = learn("apply", "--dry-run", "--yes", cwd=deep)
    assert dry.returncode == 0, dry.stderr
    assert f"+++ {trunc / 'CLAUDE.md'}" in dry.stdout, dry.stdout
    assert str(deep / "CLAUDE.md") not in dry.stdout + dry.stderr
    assert not (deep / "CLAUDE.md").exists() and not (trunc / "CLAUDE.md").exists()


def test_checkout_folder_without_a_repository_is_the_project_found_above() -> None:
    home = Path(os.environ["HOME"])
    trunc, other = home / "w2" / "trunc", home / "w2" / "other"
    deep = trunc / "sub" / "dir"
    deep.mkdir(parents=True)
    other.mkdir()
    known = Known()
    known.add_folder(str(trunc))
    assert project_here(deep, known) == str(trunc)
    assert checkout_folder(deep) == trunc
    # A folder no session ran in, nor any above it: still the folder itself.
    assert project_here(other, known) == str(other)
    assert checkout_folder(other) == other


def test_the_first_listing_from_a_sub_folder_finds_the_folder_above() -> None:
    # Nothing listed before (an empty index): the folder sessions ran in is known only
    # from the heads this very listing reads. It showed none of them; the next listing,
    # with the index then holding the folder, showed all three.
    home = Path(os.environ["HOME"])
    trunc = home / "w3" / "trunc"
    deep = trunc / "sub" / "dir"
    deep.mkdir(parents=True)
    (home / "w3" / "apart").mkdir()
    _sessions(trunc, 3)
    _sessions(home / "w3" / "apart", 1)  # a folder beside it stays out

    listed = learn("sessions", "--json", cwd=deep)
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)["sessions"]
    assert len(rows) == 3 and {r["project"] for r in rows} == {str(trunc)}, rows
    again = learn("sessions", "--json", cwd=deep)
    assert json.loads(again.stdout)["sessions"] == rows

    dry = learn("apply", "--dry-run", "--yes", cwd=deep)
    assert str(deep / "CLAUDE.md") not in dry.stdout + dry.stderr
