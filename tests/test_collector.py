"""Reading sessions with the cyclic collector paused (learn.collector): the pause holds
and ends as it should, and what it saves is safe only because reading makes no cycles.
The last holds on real listings: one with six times the sessions leaves the same few
objects for the collector, not more."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.homes import build
from learn import collector

REPO = Path(__file__).resolve().parents[1]


def test_paused_turns_the_collector_off_and_back_on() -> None:
    assert gc.isenabled()
    with collector.paused():
        assert not gc.isenabled()
        with collector.paused():  # nested: still off inside, and after the inner one
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_paused_leaves_a_collector_that_was_off_off_and_ends_on_an_error() -> None:
    gc.disable()
    try:
        with collector.paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
    with pytest.raises(RuntimeError), collector.paused():
        raise RuntimeError("mid-read")
    assert gc.isenabled()


# The listing in one process (no workers: their objects would not be counted here), the
# collector off from the start, and what it would have freed counted at the end.
_LISTING = """
import gc, json, sys
gc.disable()
from learn.cli import cli
try:
    cli.main(["sessions", "--all-projects", "--json"], standalone_mode=False)
finally:
    sys.stdout.flush()
    print(json.dumps({"garbage": gc.collect()}), file=sys.stderr)
"""


def _garbage(home: Path, work: Path) -> int:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LEARN_", "CLAUDE_", "CODEX_"))}
    env.update(HOME=str(home), LEARN_DATA_DIR=str(work / "data"), LEARN_CACHE_DIR=str(work / "cache"),
               LEARN_CONFIG_DIR=str(work / "config"), LEARN_PARSE_WORKERS="1", PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-c", _LISTING], env=env, capture_output=True, text=True,
                          timeout=600, cwd=REPO)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["sessions"]
    return int(json.loads(done.stderr.strip().splitlines()[-1])["garbage"])


@pytest.mark.parametrize("shape", ["spread", "tree"])
def test_a_listing_leaves_no_garbage_that_grows_with_its_sessions(shape: str, tmp_path: Path) -> None:
    got = {}
    for sessions in (10, 60):
        home = tmp_path / f"home-{sessions}"
        build(home, shape, sessions, mb=6, seed=11)
        got[sessions] = _garbage(home, tmp_path / f"work-{sessions}")
    # Fifty more sessions read, parsed, viewed, keyed, stored and judged: not one more
    # object in a cycle (the few there are come from imports and the command line).
    assert got[60] <= got[10] + 5, got
