"""A process pool over files, results in input order: the cold scan's use of the machine's cores.

Processes, not threads: msgspec decodes holding the GIL, and a reader thread
made stream() slower on this box (parser.stream's docstring has the figures).
Workers are forked, so they start with learn already imported (a spawned worker
re-imports it: ~0.3 s each). What crosses back is pickled, so a worker should
return compact results (learn.transcripts.view.compact), not every event.

Where fork exists the pool is `os.fork` and pipes, not
concurrent.futures: a forked worker already holds `fn` and every item, so
nothing is pickled on the way out (a job carries its project's replay
fingerprints: pickled once per file before), and the parent skips importing
multiprocessing and concurrent.futures (~12 ms of CPU, an eighth of what the
parent of a first scan spends). Work is handed out by chunk number through one
pipe, so a worker that gets the big files takes fewer of them.

This process is one of the workers: it forks one fewer and takes chunks from the
same pipe, reading what the others send after each item of its own. Its results are
never pickled, and what it frees while reading is reused by the listing's later steps
instead of fresh pages: a first listing of 1,000 sessions with a worker per core took
28,200-29,300 page faults against 35,500-37,200 when this process only waited on forked
workers; its CPU, median of 8-10 alternating runs on the loaded 2-core box, 0.95-0.98x
on the tree home, 0.99x on the spread home, 0.98x on the home with a 6 MB session.
"""

from __future__ import annotations

import contextlib
import os
import signal
import struct
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final, TypeVar

T = TypeVar("T")
R = TypeVar("R")

# Below this many files one process does it: forking and pickling cost more
# than a handful of files takes to parse.
MIN_PARALLEL_FILES: Final = 8
ENV_WORKERS: Final = "LEARN_PARSE_WORKERS"

# A chunk number as it travels through the task pipe: fixed-size records, so each
# worker's read takes exactly one (Linux serialises reads on a pipe).
_TASK: Final = struct.Struct("<I")
# A result frame's header: the chunk number and the pickle's length.
_FRAME: Final = struct.Struct("<IQ")
# Every chunk number is written before the workers start, so the task pipe must hold
# them all without a reader: 1,024 four-byte records (4 KiB) fit in a pipe's buffer
# on Linux (64 KiB) and macOS (16 KiB).
_MAX_CHUNKS: Final = 1024


def cores() -> int:
    """The cores this process may run on (LEARN_PARSE_WORKERS overrides)."""
    override = os.environ.get(ENV_WORKERS, "").strip()
    if override.isdigit() and int(override) > 0:
        return int(override)
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        return max(1, len(affinity(0)))
    return max(1, os.cpu_count() or 1)


def worker_count(items: int, workers: int | None = None) -> int:
    """How many processes for `items` files: 1 for a few files, else the cores (or `workers`)."""
    want = cores() if workers is None else max(1, workers)
    if items < MIN_PARALLEL_FILES:
        return 1
    return min(want, items)


def ordered_map(fn: Callable[[T], R], items: Sequence[T], *, workers: int | None = None) -> Iterator[R]:
    """fn over items in a process pool (or in this process for a few), in input order.

    `fn` must be a module-level function (it is pickled by name where there is
    no fork). An exception `fn` raises in a worker is raised here.
    """
    n = worker_count(len(items), workers)
    if n <= 1:
        yield from map(fn, items)
        return
    # Small chunks keep the workers even when a few files are most of the bytes
    # (real disks: a handful of MB sessions among hundreds of small ones).
    chunksize = max(1, len(items) // (n * 16), -(-len(items) // _MAX_CHUNKS))
    if hasattr(os, "fork") and sys.platform != "win32":
        yield from _forked_map(fn, items, n, chunksize)
        return
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=n) as pool:
        yield from pool.map(fn, items, chunksize=chunksize)


# The signals learn handles itself (learn.termination), held across a fork.
_HELD: Final = frozenset(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
                         if hasattr(signal, name))


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP held back across a fork, delivered the moment it is over.

    A Ctrl-C landing inside `os.fork()` runs Python's handler in an after-fork
    callback (logging's lock release, os.register_at_fork), where CPython drops the
    KeyboardInterrupt it raises: the interrupt was lost and the listing ran on
    (tests/test_pool.py caught it: a SIGINT sent while the second worker was forked
    ended nothing). The same in the child: the parent ends a worker with SIGTERM as
    soon as the results are in, and one still in its after-fork callbacks ran learn's
    handler there (learn.termination), which printed "Exception ignored in: <function
    _after_fork>" and a traceback of Terminated (5 of 300 listings in a loop; `learn
    eval` showed it in 2 of 2 runs). Blocked, a signal stays pending: in the parent it
    is handled in its own code right after; the child unblocks them once their
    handlers are the defaults, and a SIGTERM pending then ends it quietly.
    """
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


class WorkerError(RuntimeError):
    """A worker process ended without sending back all of its results."""


def _forked_map(fn: Callable[[T], R], items: Sequence[T], n: int, chunksize: int) -> Iterator[R]:
    # Here: a listing read in this process alone pickles nothing (the two imports are
    # 10 M instructions, 0.3% of a first listing of 250 sessions in one process); and
    # before the fork, so that the workers have them.
    import pickle  # noqa: F401
    import selectors  # noqa: F401

    chunks = -(-len(items) // chunksize)
    task_r, task_w = os.pipe()
    os.write(task_w, b"".join(_TASK.pack(k) for k in range(chunks)))
    os.close(task_w)  # a worker's read after the last chunk sees EOF
    # What a child inherits of this process's buffered output must not be written twice.
    sys.stdout.flush()
    sys.stderr.flush()
    pids: list[int] = []
    reads: list[int] = []
    try:
        for _ in range(n - 1):  # this process is the n-th (_collect)
            res_r, res_w = os.pipe()
            _roomy(res_r)
            with _signals_held():  # and until the worker is in the books the cleanup reads
                pid = os.fork()
                if pid == 0:  # the worker: never returns
                    _work(fn, items, chunksize, task_r, res_w, [res_r, *reads])
                pids.append(pid)
                os.close(res_w)
                reads.append(res_r)
        yield from _collect(_Own(fn, items, chunksize, task_r), reads, chunks)
    finally:
        os.close(task_r)
        for fd in reads:
            os.close(fd)
        for pid in pids:
            # A caller that stopped early (or an error) leaves workers running.
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        for pid in pids:
            # Reaped, so their CPU counts in RUSAGE_CHILDREN (benchmarks/speed.py).
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def _work(fn: Callable[[T], R], items: Sequence[T], chunksize: int, task_r: int,
          res_w: int, others: list[int]) -> None:
    """A worker's life: take chunk numbers until none are left, send each chunk's results."""
    import pickle  # imported before the fork (_forked_map)

    code = 1
    try:
        for fd in others:  # the parent's ends of this and earlier workers' pipes
            os.close(fd)
        # Ctrl-C reaches the whole process group: the parent reports it, a worker just ends.
        # SIGHUP's is as learn found it (learn.termination.restore, after the fork): a
        # `nohup learn` worker ignores it too.
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        if hasattr(signal, "pthread_sigmask"):  # held across the fork (_signals_held)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD)
        out = os.fdopen(res_w, "wb", buffering=1 << 16)
        while len(got := os.read(task_r, _TASK.size)) == _TASK.size:
            (k,) = _TASK.unpack(got)
            try:
                payload: Any = [fn(items[i]) for i in _chunk(k, chunksize, len(items))]
                blob = pickle.dumps(payload, pickle.HIGHEST_PROTOCOL)
            except BaseException as exc:  # sent back and raised in the parent
                blob = pickle.dumps(_Failed(_picklable(exc)), pickle.HIGHEST_PROTOCOL)
            out.write(_FRAME.pack(k, len(blob)))
            out.write(blob)
            out.flush()
        out.close()
        code = 0
    finally:
        os._exit(code)


class _Failed:
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


def _chunk(k: int, chunksize: int, items: int) -> range:
    """The positions of the items of chunk `k`."""
    return range(k * chunksize, min(items, (k + 1) * chunksize))


# What a result pipe is asked to hold: a whole frame of a listing of a few thousand
# sessions (~220 kB per chunk at 1,000), so a worker seldom waits for this process to
# come back from an item of its own to read; 1 MiB is what Linux grants unprivileged.
_PIPE_BYTES: Final = 1 << 20


def _roomy(fd: int) -> None:
    """The pipe of `fd` made to hold _PIPE_BYTES, where the system allows (Linux)."""
    import fcntl

    resize = getattr(fcntl, "F_SETPIPE_SZ", None)
    if resize is not None:
        with contextlib.suppress(OSError):  # over a limit: the pipe as it is still works
            fcntl.fcntl(fd, resize, _PIPE_BYTES)


def _picklable(exc: BaseException) -> BaseException:
    import pickle

    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        import traceback

        return WorkerError("".join(traceback.format_exception(exc)).rstrip())
    return exc


class _Own:
    """The chunks this process takes from the task pipe, as a worker does."""

    def __init__(self, fn: Callable[[Any], Any], items: Sequence[Any], chunksize: int,
                 task_r: int) -> None:
        self.fn = fn
        self.items = items
        self.chunksize = chunksize
        self.task_r = task_r
        self.left = True  # the pipe may hold chunks yet

    def take(self, done: dict[int, Any], between: Callable[[], None]) -> None:
        """The next chunk worked out into `done` (`between` called after each item), or
        `left` False when none is left. An item that raises is raised in its turn, as a
        worker's is, and this process takes no more chunks; an interrupt ends it at once."""
        got = os.read(self.task_r, _TASK.size)
        if len(got) != _TASK.size:
            self.left = False
            return
        (k,) = _TASK.unpack(got)
        results: list[Any] = []
        for i in _chunk(k, self.chunksize, len(self.items)):
            try:
                results.append(self.fn(self.items[i]))
            except Exception as exc:
                done[k] = _Failed(exc)
                self.left = False
                return
            between()
        done[k] = results


def _collect(own: _Own, reads: list[int], chunks: int) -> Iterator[Any]:
    """Each chunk's results in chunk order: the chunks `own` takes, worked out here, and
    the frames the workers send on `reads`, read after each item of its own and, once it
    has none left, as they come."""
    import selectors

    done: dict[int, Any] = {}
    pending = {fd: _Inbox() for fd in reads}
    nxt = 0
    with selectors.DefaultSelector() as sel:
        for fd in reads:
            sel.register(fd, selectors.EVENT_READ)

        def read(timeout: float | None) -> bool:
            """Read each pipe with something to read (waiting up to `timeout`); whether any had."""
            ready = sel.select(timeout)
            for key, _ in ready:
                fd = int(key.fd)
                if not pending[fd].take(fd, done):
                    sel.unregister(fd)
                    del pending[fd]
            return bool(ready)

        def read_all_sent() -> None:
            # Until the pipes are empty: a frame longer than a pipe holds crosses whole.
            while pending and read(0):
                pass

        while nxt < chunks:
            while nxt in done:
                got = done.pop(nxt)
                nxt += 1
                if isinstance(got, _Failed):
                    raise got.exc
                yield from got
            if nxt >= chunks:
                break
            if own.left:
                own.take(done, read_all_sent)
                continue
            if not pending:
                raise WorkerError(f"a worker process ended early: {chunks - nxt} chunk(s) of "
                                  "results never came back")
            read(None)


# A result pipe's buffer to begin with: what a Linux pipe holds, so what one read returns
# at most. It grows to the largest frame the worker sends.
_INBOX: Final = 1 << 16


class _Inbox:
    """One worker's result pipe, read into one buffer kept until its last frame.

    Each read used to be `os.read(fd, 1 MiB)`: a new 1 MiB bytes for the <= 64 KiB a
    pipe holds (glibc maps one that large afresh, so every page the read filled was a
    page fault), and a frame longer than one read was gathered by growing a bytearray
    (more fresh pages, and a copy): perf's page-faults event put them there. Read into
    one kept buffer, a parent collecting two workers' 7.3 MB of frames (first listing of
    the spread home, 1,000 sessions) took 2,800 page faults doing it, not 4,600.
    """

    def __init__(self) -> None:
        self.buf = bytearray(_INBOX)
        self.filled = 0  # bytes of `buf` read and not yet unpickled

    def take(self, fd: int, done: dict[int, Any]) -> bool:
        """Read what `fd` holds and unpickle each frame it completes into `done`; False
        at the pipe's end. Leaves room in `buf` for the frame under way, whole."""
        with memoryview(self.buf) as view:
            got = os.readv(fd, [view[self.filled:]])
            if not got:
                return False
            self.filled += got
            at = _unframe(view[:self.filled], done)
            if at:  # what follows the whole frames (the next one's head) to the front
                view[:self.filled - at] = view[at:self.filled]
                self.filled -= at
        if self.filled >= _FRAME.size:
            need = _FRAME.size + _FRAME.unpack_from(self.buf)[1]
            if need > len(self.buf):
                bigger = bytearray(need)
                bigger[:self.filled] = self.buf[:self.filled]
                self.buf = bigger
        return True


def _unframe(blob: bytes | bytearray | memoryview, done: dict[int, Any]) -> int:
    """Each whole frame at the head of `blob` unpickled into `done` (by chunk number);
    the bytes they took. Unpickled from a view of `blob`: slicing each pickle out
    first copied every byte the workers sent once more (4-7% of the CPU of unframing
    60 frames of 100 kB, most of which is pickle.loads)."""
    import pickle

    at = 0
    with memoryview(blob) as view:
        while len(view) - at >= _FRAME.size:
            k, size = _FRAME.unpack_from(view, at)
            end = at + _FRAME.size + size
            if len(view) < end:
                break
            with view[at + _FRAME.size:end] as frame:
                done[k] = pickle.loads(frame)
            at = end
    return at
