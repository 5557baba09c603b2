"""`learn apply` and `learn decline` beside a `learn run` in progress: they wait for it,
saying what they wait for, or refuse past LEARN_LOCK_TIMEOUT saying nothing was written,
and then do what was asked (learn.lock.between_runs).

Before, both went ahead at once: with a run held between its two store writes (the scan
recorded, the judge asked, its proposals and result not yet stored), `learn apply --yes`
wrote CLAUDE.md and recorded the offline run's dont-mock-database-tests applied; the run
then stored the same point, judged, as real-database-in-tests, pending: the rule just
written was offered again. `learn decline` recorded its decline the same way, at once.

Real processes: the demo corpus, an offline run to have proposals pending, then a run
against the fake Messages server (tests/_stopped_runs.py), held at its judge request.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from _stopped_runs import RUN, Stage, World, start, wait_until, world
from fakes.anthropic_server import FakeAnthropicServer

__all__ = ["world"]  # the fixture (tests/_stopped_runs.py)

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the fixture's subprocess helpers are Linux's")

# The judge's request: the run has recorded its scan and holds its lock, its proposals
# and result still to store.
HELD_AT = "record_verdicts"
DECLINED = "directive:dont-mock-database-tests"  # pending in shop-api after the offline run
RENAMED = "directive:real-database-in-tests"  # the judged run's name for the same point
WAITS = "waiting for the `learn run` in progress to finish"


def _learn(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "learn", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def _pending_world(world: World) -> tuple[Path, dict[str, str], Path]:
    """The demo world with an offline run's proposals pending; (home, env, shop-api)."""
    home, env, _ = world
    config = Path(env["LEARN_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text("[backend]\nrequests_per_minute = 100000\n")
    offline = _learn(env, home, *[a for a in RUN if a not in ("--backend", "anthropic")],
                     "--offline")
    assert offline.returncode == 0, offline.stderr
    shop = home / "code" / "shop-api"
    assert _states(env, shop).get(DECLINED) == "pending"
    return home, env, shop


def _states(env: dict[str, str], project: Path) -> dict[str, str]:
    """key -> state of every proposal of `project`, read from the store."""
    code = ("import json, sys; from pathlib import Path; "
            "from learn.index.known import named_project; "
            "from learn.store.runs import load_proposals; "
            "r = load_proposals(None, named_project(Path(sys.argv[1])), every_state=True); "
            "print(json.dumps(r.extra['states'] if r else {}))")
    done = subprocess.run([sys.executable, "-c", code, str(project)], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    states = json.loads(done.stdout)
    assert isinstance(states, dict)
    return states


class Beside:
    """A learn command started beside the held run, its stderr read as it comes."""

    def __init__(self, env: dict[str, str], cwd: Path, *args: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "learn", *args], cwd=cwd, env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.err: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.err.append(line)

    def said(self, text: str) -> bool:
        return any(text in line for line in self.err)

    def wait_to_say(self, text: str, seconds: float = 60.0) -> None:
        deadline = time.monotonic() + seconds
        while not self.said(text):
            if self.proc.poll() is not None:
                self._reader.join(5)
                out = self.proc.stdout.read() if self.proc.stdout else ""
                pytest.fail(f"ended beside the run without waiting for it (exit "
                            f"{self.proc.returncode}):\n{out}{''.join(self.err)}")
            if time.monotonic() > deadline:
                self.proc.kill()
                pytest.fail(f"never said {text!r}: {''.join(self.err)}")
            time.sleep(0.02)

    def finish(self) -> tuple[int, str, str]:
        # Not communicate(): it reads stderr too, racing the reader thread for its last
        # lines (the refusal went to communicate's discarded half under load).
        assert self.proc.stdout is not None
        out = self.proc.stdout.read()
        self.proc.wait(timeout=120)
        self._reader.join(30)
        return self.proc.returncode, out, "".join(self.err)


def test_apply_waits_for_a_run_storing_then_writes_and_records_after_it(world: World) -> None:
    home, env, shop = _pending_world(world)
    claude = shop / "CLAUDE.md"
    before = claude.read_text()
    stage = Stage(world[2], hold=HELD_AT)
    with FakeAnthropicServer(responder=stage) as fake:
        run = start(home, env, fake.base_url)
        wait_until(lambda: stage.count(HELD_AT) > 0, run, "the judge's request")
        apply = Beside({**env, "LEARN_LOCK_TIMEOUT": "120"}, shop, "apply", "--yes")
        apply.wait_to_say(WAITS)
        assert "before reading the proposals it stores" in "".join(apply.err)
        # Waiting: nothing written while the run is held.
        assert apply.proc.poll() is None
        assert claude.read_text() == before
        stage.release.set()
        _out, err = run.communicate(timeout=120)
        assert run.returncode == 0, err
        code, out, err = apply.finish()
    assert code == 0, out + err
    keys = set(re.findall(r"<!-- learn (\S+), ", claude.read_text())) - set(
        re.findall(r"<!-- learn (\S+), ", before))
    # Read after the run stored: its judged names, not the offline run's it superseded
    # (the run named the same point real-database-in-tests).
    assert RENAMED in keys and DECLINED not in keys, out + err
    states = _states(env, shop)
    assert states[DECLINED] == "superseded"
    # Recorded after the run stored, and kept.
    assert {states[k] for k in keys} == {"applied"}, states


def test_decline_refuses_past_the_wait_then_declines_once_the_run_is_done(world: World) -> None:
    home, env, shop = _pending_world(world)
    stage = Stage(world[2], hold=HELD_AT)
    with FakeAnthropicServer(responder=stage) as fake:
        run = start(home, env, fake.base_url)
        wait_until(lambda: stage.count(HELD_AT) > 0, run, "the judge's request")
        decline = Beside({**env, "LEARN_LOCK_TIMEOUT": "1"}, shop, "decline", DECLINED)
        decline.wait_to_say(WAITS)
        code, out, err = decline.finish()
        assert code == 75, out + err  # EX_TEMPFAIL, as a second run's
        assert f"before declining {DECLINED}" in err
        assert "a `learn run` is in progress" in err
        assert "Nothing was written and no decision recorded" in err
        assert _states(env, shop)[DECLINED] == "pending"
        stage.release.set()
        _out, err = run.communicate(timeout=120)
        assert run.returncode == 0, err
    again = _learn(env, shop, "decline", DECLINED)
    assert again.returncode == 0, again.stderr
    assert WAITS not in again.stderr
    assert _states(env, shop)[DECLINED] == "declined"
