"""SIGTERM and SIGHUP end `learn run` as Ctrl-C does: one line, exit 128 + the signal.

`kill`, `timeout`, systemd and a CI runner send SIGTERM; a closing terminal sends
SIGHUP. learn died of them where it stood, exit -15 and no word (the store whole, as
after `kill -9`). Here the real CLI runs over the demo corpus against the fake
Messages server, which holds one stage's requests open; the signal goes to learn's
own pid, as `kill PID` sends it, once the held call is seen. "What was finished is
kept" is checked by the next command on the same data directory.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from _stopped_runs import (
    ENDS_WITHIN,
    REPO,
    RUN,
    Stage,
    World,
    as_a_terminal,
    demo_world,
    mined_entries,
    start,
    wait_until,
)
from fakes.anthropic_server import FakeAnthropicServer

from learn.hook.event import SessionEnded
from learn.hook.queue import SessionQueue
from learn.hook.worker import Log, drain
from learn.termination import Terminated

# Paced for a real account a request every 1.2 s: 15 s a run, not 1.
PACE = {"LEARN_REQUESTS_PER_MINUTE": "6000"}

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    yield demo_world(tmp_path, **PACE)


def _under_nohup() -> None:
    as_a_terminal()
    signal.signal(signal.SIGHUP, signal.SIG_IGN)


def send(proc: subprocess.Popen[str], sig: signal.Signals) -> tuple[float, str]:
    """`sig` to learn's pid alone, as `kill` sends it; (seconds to exit, stderr)."""
    sent = time.monotonic()
    os.kill(proc.pid, sig)
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
        pytest.fail(f"still running 30 s after {sig.name}\n{err[-3000:]}")
    return time.monotonic() - sent, err


def learn(home: Path, env: dict[str, str], *args: str, url: str = "http://127.0.0.1:9") -> (
        subprocess.CompletedProcess[str]):
    return subprocess.run([sys.executable, "-m", "learn", *args], cwd=home,
                          env={**env, "ANTHROPIC_BASE_URL": url}, capture_output=True, text=True,
                          timeout=120)


def test_sigterm_while_mining_exits_143_with_one_line_and_keeps_what_was_mined(
        world: World) -> None:
    home, env, oracle = world
    held = Stage(oracle, "record_candidates", answer_first=2)
    with FakeAnthropicServer(responder=held) as fake:
        proc = start(home, env, fake.base_url)
        wait_until(lambda: mined_entries(env) >= 2 and held.count("record_candidates") > 2,
                   proc, "two sessions mined and a third call held")
        took, err = send(proc, signal.SIGTERM)
        held.release.set()
    assert proc.returncode == 128 + signal.SIGTERM == 143, err
    assert err.strip() == "learn: terminated by SIGTERM (what was finished is kept)", err
    assert took < ENDS_WITHIN
    assert mined_entries(env) == 2
    # The store and the cache are whole: the next run mines only what was not finished.
    again = Stage(oracle)
    with FakeAnthropicServer(responder=again) as fake:
        done = learn(home, env, *RUN, url=fake.base_url)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("[learn-digest]")
    assert again.count("record_candidates") >= 1
    assert mined_entries(env) == 2 + again.count("record_candidates")  # the two were not asked again


def test_sighup_while_judging_exits_129_and_the_store_still_reads(
        world: World) -> None:
    home, env, oracle = world
    held = Stage(oracle, "record_verdicts")
    with FakeAnthropicServer(responder=held) as fake:
        proc = start(home, env, fake.base_url)
        wait_until(lambda: held.count("record_verdicts") >= 1, proc, "a judging call held")
        took, err = send(proc, signal.SIGHUP)
        held.release.set()
    assert proc.returncode == 128 + signal.SIGHUP == 129, err
    assert err.strip() == "learn: terminated by SIGHUP (what was finished is kept)", err
    assert took < ENDS_WITHIN
    listed = learn(home, env, "sessions", "--all-projects")
    assert listed.returncode == 0, listed.stderr
    assert "Traceback" not in listed.stderr and listed.stdout.strip()


def test_sighup_ignored_at_start_stays_ignored_and_sigterm_still_ends_it(
        world: World) -> None:
    # `nohup learn run`: a terminal closing must not end it.
    home, env, oracle = world
    held = Stage(oracle, "record_candidates")
    with FakeAnthropicServer(responder=held) as fake:
        proc = start(home, env, fake.base_url, preexec=_under_nohup)
        wait_until(lambda: held.count("record_candidates") >= 1, proc, "a mining call held")
        os.kill(proc.pid, signal.SIGHUP)
        time.sleep(1.0)  # four of the main thread's waiting slices (learn.waiting)
        assert proc.poll() is None, proc.communicate()[1]
        _, err = send(proc, signal.SIGTERM)
        held.release.set()
    assert proc.returncode == 143, err
    assert err.strip() == "learn: terminated by SIGTERM (what was finished is kept)", err


def test_a_second_sigterm_during_the_cleanup_ends_learn_at_once(tmp_path: Path) -> None:
    # The first is raised where learn is; a cleanup that hangs (a `finally` stuck on
    # a socket) must not make learn unkillable short of SIGKILL.
    code = textwrap.dedent("""\
        import os, signal, sys, time
        sys.argv = ["learn", "--help"]
        from learn.entry import main
        try:
            main()
        except SystemExit:
            pass
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)
        except KeyboardInterrupt as exc:
            print(type(exc).__name__, flush=True)
            os.kill(os.getpid(), signal.SIGTERM)  # during the cleanup
            time.sleep(5)
        print("survived", flush=True)
        """)
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=30, env={**os.environ, "PYTHONPATH": str(REPO)},
                          preexec_fn=as_a_terminal)
    assert done.stdout.splitlines()[-1] == "Terminated", done.stderr  # after --help's text
    assert done.returncode == -signal.SIGTERM, done.stderr


@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGTERM], ids=lambda s: s.name)
def test_a_listing_worker_dies_of_the_signal_instead_of_raising_it(
        tmp_path: Path, sig: signal.Signals) -> None:
    # The parent ends its workers with SIGTERM; a closing terminal sends SIGHUP to the
    # whole group. A worker that raised Terminated inside its file sent it back as that
    # file's error, and the parent said it was terminated by a signal it never got.
    code = textwrap.dedent("""\
        import sys
        sys.argv = ["learn", "--help"]
        from learn.entry import main
        try:
            main()
        except SystemExit:
            pass
        from learn.transcripts.pool import WorkerError, ordered_map
        from work import hit
        try:
            print(list(ordered_map(hit, list(range(8)), workers=2)))
        except WorkerError:
            print("WorkerError", flush=True)
        """)
    # The listing's own process takes chunks too (learn.transcripts.pool): the signal is
    # sent by the forked worker, on the first item it takes (each slow enough that it takes one).
    (tmp_path / "work.py").write_text(textwrap.dedent(f"""\
        import os, time
        HERE = os.getpid()
        def hit(i):
            time.sleep(0.05)
            if os.getpid() != HERE:
                os.kill(os.getpid(), {int(sig)})
                time.sleep(2)
            return i
        """))
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=30, preexec_fn=as_a_terminal,
                          env={**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{tmp_path}"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "WorkerError", done.stdout[-2000:] + done.stderr


def test_the_hook_worker_stopped_by_a_signal_logs_the_session_and_leaves_it_queued(
        tmp_path: Path) -> None:
    # Not a failure of the session: no attempt is counted and nothing goes to failed/
    # (three shutdowns would have given a good session up); the next worker mines it.
    queue = SessionQueue(tmp_path)
    queue.put(SessionEnded(session_id="s1", transcript_path=str(tmp_path / "s1.jsonl"),
                           cwd=str(tmp_path), reason="logout"))
    log = Log(queue.root)

    def mine_one(_job: object) -> str:
        raise Terminated(signal.SIGTERM)

    with pytest.raises(Terminated):
        drain(queue, mine_one, log, lock_dir=tmp_path, interval=0)
    said = log.path.read_text()
    assert "session s1: terminated by SIGTERM; left for the next worker" in said
    assert not queue.failed.exists() or not list(queue.failed.glob("*.json"))
    assert queue.recover() == 1
    [job] = list(queue.jobs())
    assert job.event.session_id == "s1" and job.attempts == 0


def test_the_hook_worker_terminated_mid_session_says_so_in_its_log_and_the_next_one_mines_it(
        world: World) -> None:
    # The detached `learn hook drain` as the hook starts it, its output the log; a logout
    # or shutdown sends it SIGTERM while it waits on the model.
    home, env, oracle = world
    data = Path(env["LEARN_DATA_DIR"])
    [transcript, *_] = sorted((home / ".claude" / "projects").glob("*/*.jsonl"))
    queue = SessionQueue(data)
    queue.put(SessionEnded(session_id=transcript.stem, transcript_path=str(transcript),
                           cwd=str(home), reason="logout"))
    log = queue.root / "hook.log"
    held = Stage(oracle, "record_candidates")
    drain_argv = [sys.executable, "-m", "learn", "hook", "drain", "--backend", "anthropic"]
    env = {**env, "LEARN_HOOK_INTERVAL": "0"}
    with FakeAnthropicServer(responder=held) as fake, log.open("ab") as out:
        proc = subprocess.Popen(drain_argv, cwd="/", stdin=subprocess.DEVNULL, stdout=out,
                                stderr=out, env={**env, "ANTHROPIC_BASE_URL": fake.base_url},
                                start_new_session=True, preexec_fn=as_a_terminal, text=True)
        wait_until(lambda: held.count("record_candidates") >= 1, proc, "the worker's mining call")
        send(proc, signal.SIGTERM)
        held.release.set()
    assert proc.returncode == 143
    said = log.read_text()
    assert f"session {transcript.stem}: terminated by SIGTERM; left for the next worker" in said
    assert said.rstrip().endswith("learn: terminated by SIGTERM (what was finished is kept)"), said
    assert "Traceback" not in said
    assert not queue.failed.exists() or not list(queue.failed.glob("*.json"))
    again = Stage(oracle)
    with FakeAnthropicServer(responder=again) as fake:
        done = subprocess.run(drain_argv, cwd="/", env={**env, "ANTHROPIC_BASE_URL": fake.base_url},
                              capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    tail = log.read_text()[len(said):]
    assert "requeued sessions a stopped worker left behind" in tail
    assert f"session {transcript.stem}: mined" in tail, tail
    assert not queue.pending() and not list(queue.working.glob("*.json"))


def test_ctrl_c_ends_with_the_code_learn_errors_names() -> None:
    from learn.errors import EXIT_INTERRUPTED
    from learn.termination import Terminated, ending

    assert ending(KeyboardInterrupt()) == ("\nlearn: interrupted", EXIT_INTERRUPTED)
    assert ending(Terminated(15)) == ("learn: terminated by SIGTERM", 143)
