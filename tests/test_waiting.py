"""Ctrl-C ends learn at once whichever of its threads the kernel handed the SIGINT to.

CPython raises KeyboardInterrupt in the main thread only, when that thread next runs
Python code; a main thread in an untimed lock wait (pool.map's results) slept on when
the signal landed in a mining thread, until that thread's call ended (a 529's
`retry-after: 120`: tests/test_interrupt_points.py lost the Ctrl-C about once in ten
loaded runs). Here the signal is sent to that other thread every time
(`signal.pthread_kill`), as the kernel sometimes does (learn.waiting).
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator

import pytest
from _mining_helpers import make_session, user
from fakes.anthropic_server import FakeAnthropicServer
from fakes.http_server import RecordedRequest

from learn.mining.miner import mine_sessions
from learn.models.anthropic_backend import AnthropicBackend
from learn.models.retry import within
from learn.waiting import join, results, wait_for

HELD = 30.0  # how long a call is held: an interrupt noticed only at its end fails the test
PROMPTLY = 5.0


@pytest.fixture
def sigint_raises() -> Iterator[None]:
    # SIGINT as a terminal's learn has it: a suite started as a background job
    # (`make test &`) inherits it ignored.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_ctrl_c_handed_to_a_mining_thread_ends_mining_at_once(sigint_raises: None) -> None:
    release = threading.Event()
    signalled: list[str] = []

    def responder(request: RecordedRequest) -> dict[str, object]:
        if not signalled:
            worker = next(t for t in threading.enumerate() if t.name.startswith("learn-mine"))
            signalled.append(worker.name)
            assert worker.ident is not None
            signal.pthread_kill(worker.ident, signal.SIGINT)
        release.wait(HELD)
        return {"candidates": []}

    sessions = [make_session([user(f"session {i}: use bun, never npm", 0)], sid=f"s{i}")
                for i in range(4)]
    with FakeAnthropicServer(responder=responder) as fake:
        backend = AnthropicBackend(api_key="test-key", base_url=fake.base_url, timeout=60.0)
        started = time.monotonic()
        try:
            with pytest.raises(KeyboardInterrupt):
                mine_sessions(sessions, backend, model="claude-haiku-4-5", concurrency=2)
            took = time.monotonic() - started
        finally:
            release.set()
    assert signalled  # the signal went to a mining thread, not this one
    assert took < PROMPTLY, f"the interrupt was raised {took:.1f} s later"


def test_a_ctrl_c_handed_to_the_request_thread_ends_the_wait_for_its_reply(
        sigint_raises: None) -> None:
    def exchange() -> str:
        time.sleep(0.3)  # the caller waiting for the reply by then, not starting this thread
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)
        time.sleep(HELD)
        return "reply"

    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        within(HELD * 2, exchange)
    assert time.monotonic() - started < PROMPTLY


def test_the_sliced_waits_give_what_the_plain_ones_give() -> None:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as pool:
        def square(n: int) -> int:
            time.sleep(0.3 - n / 10)  # the first ends last
            return n * n

        futures = [pool.submit(square, n) for n in range(3)]
        assert results(futures) == [0, 1, 4]  # in order, not in the order they ended
        failing = [pool.submit(lambda: 1), pool.submit(lambda: 1 // 0)]
        with pytest.raises(ZeroDivisionError):
            results(failing)

    event = threading.Event()
    started = time.monotonic()
    assert wait_for(event, 0.6) is False
    assert 0.6 <= time.monotonic() - started < PROMPTLY
    threading.Timer(0.3, event.set).start()
    assert wait_for(event, HELD) is True

    sleeper = threading.Thread(target=time.sleep, args=(0.6,))
    sleeper.start()
    join(sleeper, 0.1)
    assert sleeper.is_alive()
    join(sleeper, HELD)
    assert not sleeper.is_alive()
