"""What a listing compiles before it reads: no lazy pattern, whether it reads a few
files in this process or forks workers; each is compiled where it is used
(`index.indexed._preload`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_mining_plan import write_transcript

REPO = Path(__file__).resolve().parents[1]

# In a fresh interpreter: the patterns compiled, the rows read, printed as JSON.
_READ = """
import json
from learn.index.indexed import indexed_views
from learn.lazy import _WAITING
from learn.transcripts.files.discover import scan

files = scan(all_projects=True).files
items = indexed_views(files, fingerprints_for=lambda f: (), min_confidence=0.75, views=False)
print(json.dumps({"files": len(files), "read": len(items),
                  "typed": sorted(i.summary["human_turns"] for i in items),
                  "waiting": sum(1 for p in _WAITING if p._compiled is None)}))
"""


def _read(home: Path, sessions: int) -> dict[str, object]:
    for k in range(sessions):
        write_transcript(home, f"5e55e55e-0000-4000-8000-{k:012d}", f"use bun, not npm ({k})")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LEARN_", "CLAUDE_", "CODEX_"))}
    env.update(HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"),
               CODEX_HOME=str(home / ".codex"), LEARN_DATA_DIR=str(home / "data"),
               LEARN_PARSE_WORKERS="2", PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-c", _READ], env=env, capture_output=True,
                          text=True, timeout=120, cwd=REPO)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_a_few_files_read_here_leave_unused_patterns_uncompiled(tmp_path: Path) -> None:
    got = _read(tmp_path, 2)
    assert got["files"] == got["read"] == 2
    assert got["typed"] == [1, 1]  # each session's typed turn, read as ever
    assert isinstance(got["waiting"], int) and got["waiting"] > 20


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the pool forks")
def test_files_read_by_forked_workers_leave_the_parents_patterns_uncompiled(
        tmp_path: Path) -> None:
    # The workers compile the few they use (4 to 17 of 226 in the bench homes); the
    # parent compiling all of them cost more than both workers' together.
    got = _read(tmp_path, 10)
    assert got["files"] == got["read"] == 10
    assert got["typed"] == [1] * 10
    assert isinstance(got["waiting"], int) and got["waiting"] > 20
