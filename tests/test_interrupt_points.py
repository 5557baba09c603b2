"""Ctrl-C at every stage of `learn run` ends the process within 2 s and keeps what was finished.

With the API unreachable, Ctrl-C printed "learn: interrupted (what was finished
is kept)" and the process ran on (worker threads in a model call or a retry
wait were joined at exit); a second Ctrl-C did nothing. Here the real CLI runs
over the demo corpus against the fake Messages server, which holds one stage's
requests open (or answers 529 with a long retry-after); SIGINT goes to the
process group as a terminal sends it, once the stage is seen in progress (by
the requests the fake has received, or the transcript the listing has open),
never after a fixed sleep. "Nothing lost" is checked by a second run against a
server that answers everything: it asks again only what had not finished.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from _stopped_runs import (
    ENDS_WITHIN,
    RUN,
    Stage,
    World,
    mined_entries,
    start,
    wait_until,
    world,
)
from fakes.anthropic_server import FakeAnthropicServer
from test_mining_plan import _line

from evals.oracle import GoldOracle

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="watches /proc to see the stage in progress")

__all__ = ["world"]  # the fixture


def interrupt(proc: subprocess.Popen[str]) -> tuple[float, str]:
    """SIGINT to the process group, as a terminal does; (seconds to exit, stderr)."""
    sent = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        pytest.fail(f"still running 30 s after SIGINT\n{err[-3000:]}")
    took = time.monotonic() - sent
    print(f"ended {took:.2f} s after SIGINT")  # the figure docs/usage.md quotes (pytest -s)
    assert proc.returncode == 130, err
    assert "learn: interrupted" in err and "Traceback" not in err, err
    return took, err


def again(home: Path, env: dict[str, str], oracle: GoldOracle) -> Stage:
    """A second, uninterrupted run: what it asks the model is what the first had not kept."""
    stage = Stage(oracle)
    with FakeAnthropicServer(responder=stage) as fake:
        done = subprocess.run([sys.executable, "-m", "learn", *RUN], cwd=home,
                              env={**env, "ANTHROPIC_BASE_URL": fake.base_url},
                              capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("[learn-digest]")
    return stage


def test_ctrl_c_while_mining_keeps_the_sessions_already_mined(world: World) -> None:
    home, env, oracle = world
    to_mine = planned_calls(home, env)
    assert set(to_mine.values()) == {1}  # one call per session: a session answered is mined
    stage = Stage(oracle, hold="record_candidates", answer_first=3)
    with FakeAnthropicServer(responder=stage) as fake:
        proc = start(home, env, fake.base_url)
        wait_until(lambda: mined_entries(env) >= 3 and stage.count("record_candidates") > 3,
                   proc, "three sessions mined and a fourth call held")
        took, _ = interrupt(proc)
        stage.release.set()
    assert took < ENDS_WITHIN
    assert mined_entries(env) == 3
    assert again(home, env, oracle).count("record_candidates") == len(to_mine) - 3


def test_ctrl_c_while_waiting_out_an_overload(world: World) -> None:
    home, env, oracle = world
    lines: list[str] = []
    with FakeAnthropicServer(responder=Stage(oracle)) as fake:
        fake.enqueue_status(529, times=200, headers={"retry-after": "120"})
        proc = start(home, env, fake.base_url)
        assert proc.stderr is not None
        reader = threading.Thread(target=lambda: lines.extend(iter(proc.stderr.readline, "")),  # type: ignore[union-attr]
                                  daemon=True)
        reader.start()
        wait_until(lambda: any("waiting for the API: HTTP 529" in x for x in lines), proc,
                   "the wait told")
        sent = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(30)
        took = time.monotonic() - sent
        reader.join(5)
    assert proc.returncode == 130
    assert took < ENDS_WITHIN
    wait_line = next(x for x in lines if "waiting for the API" in x)
    assert wait_line.startswith("learn: waiting for the API: HTTP 529 overloaded")
    assert "of 10m; Ctrl-C keeps what is finished" in wait_line
    planned = len(planned_calls(home, env))
    assert planned and again(home, env, oracle).count("record_candidates") == planned


def interrupted_while(world: World, tool: str) -> Stage:
    """SIGINT while the fake holds the first `tool` call; then a second, whole run."""
    home, env, oracle = world
    stage = Stage(oracle, hold=tool)
    with FakeAnthropicServer(responder=stage) as fake:
        proc = start(home, env, fake.base_url)
        wait_until(lambda: stage.count(tool) >= 1, proc, f"a {tool} call")
        took, _ = interrupt(proc)
        stage.release.set()
    assert took < ENDS_WITHIN
    return again(home, env, oracle)


def test_ctrl_c_while_naming_keeps_every_mined_session(world: World) -> None:
    second = interrupted_while(world, "assign_labels")
    assert second.count("record_candidates") == 0  # every session stayed mined
    assert second.count("assign_labels") >= 1


def test_ctrl_c_while_judging_keeps_the_mining_and_the_names(world: World) -> None:
    second = interrupted_while(world, "record_verdicts")
    assert second.count("record_candidates") == 0
    assert second.count("assign_labels") == 0  # the names were kept the moment naming ended
    assert second.count("record_verdicts") >= 1


def test_ctrl_c_while_listing_a_large_transcript(world: World) -> None:
    home, env, oracle = world
    big = write_large_session(home, megabytes=120)
    with FakeAnthropicServer(responder=Stage(oracle)) as fake:
        proc = start(home, env, fake.base_url)
        wait_until(lambda: open_in_group(proc.pid, big), proc, "the large transcript being read")
        workers = [p for p in _tree(proc.pid) if p != proc.pid]
        took, _ = interrupt(proc)
        assert fake.requests == []  # still listing: no model call yet
    assert took < ENDS_WITHIN
    wait_for_gone = time.monotonic() + 5
    while any(Path(f"/proc/{p}").exists() for p in workers) and time.monotonic() < wait_for_gone:
        time.sleep(0.02)
    assert not any(Path(f"/proc/{p}").exists() for p in workers)  # no reader left behind
    big.unlink()
    again(home, env, oracle)  # the store and the cache still work


# -- helpers -----------------------------------------------------------------------

def planned_calls(home: Path, env: dict[str, str]) -> dict[str, int]:
    """Mining calls per session a run would make now (`learn plan`)."""
    done = subprocess.run([sys.executable, "-m", "learn", "plan", "--all-projects", "--since",
                           "2026-01-01", "--json"], cwd=home, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return {p["session_id"]: p["calls"] for p in json.loads(done.stdout)["to_mine"]}


def write_large_session(home: Path, megabytes: int) -> Path:
    """One session of many ordinary turns, `megabytes` large: seconds of listing."""
    sid = "b16b16b1-0000-4000-8000-000000000001"
    folder = home / ".claude" / "projects" / "-home-me-code-big"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{sid}.jsonl"
    filler = "the build log says the cache warmed up and the job went on as before. " * 40
    with path.open("w", encoding="utf-8") as fh:
        n = 0
        while fh.tell() < megabytes * 1_000_000:
            fh.write(_line("user", f"u{n}", f"a{n - 1}" if n else None, sid, f"look at this {n}: {filler}") + "\n")
            fh.write(_line("assistant", f"a{n}", f"u{n}", sid, [{"type": "text", "text": filler}]) + "\n")
            n += 1
    return path


def _tree(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        for task in Path(f"/proc/{p}/task").glob("*/children"):
            with contextlib.suppress(OSError, ValueError):
                todo.extend(int(c) for c in task.read_text().split())
    return found


def open_in_group(pid: int, path: Path) -> bool:
    """Whether `pid` or one of its children has `path` open."""
    want = str(path)
    for p in _tree(pid):
        for fd in Path(f"/proc/{p}/fd").glob("*"):
            try:
                if os.readlink(fd) == want:
                    return True
            except OSError:
                continue
    return False
