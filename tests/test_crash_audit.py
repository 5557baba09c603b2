"""`learn run` on a full disk, a read-only one, and killed outright: real processes, real
file systems.

A full disk is a small tmpfs mounted in a private mount namespace (`unshare -m`, or
`-Urm` where user namespaces let an ordinary user mount one): the mount exists only
for the process under test and goes with it. Where neither is allowed the tests that
need it are skipped; the ones at SQLite's level (tests/test_store_audit.py, with
max_page_count) run everywhere.

Found here, on a 300-440 KB tmpfs: a run on a full disk said "cannot rollback - no
transaction is active", or, when the disk filled during the first migrations, "not a
learn store … the next `learn run` migrates it", or, when SQLite could not grow its
-shm, "disk I/O error; fix: move learn.db aside (learn starts a fresh one)" — advice
that throws the store away. The store itself was always intact.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from fakes.anthropic_server import FakeAnthropicServer, RecordedRequest

from evals.corpora import demo
from evals.oracle import GoldOracle

REPO = Path(__file__).resolve().parents[1]
OFFLINE = ["run", "--offline", "--all-projects", "--since", "2026-01-01", "--json", "--all"]

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="tmpfs, mount namespaces and /proc are Linux's")


def _env(home: Path, data: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ANTHROPIC_", "LEARN_", "XDG_", "CLAUDE_", "CODEX_"))}
    env.update(HOME=str(home), PYTHONPATH=str(REPO), LEARN_DATA_DIR=str(data),
               LEARN_CACHE_DIR=str(data.parent / "cache"),
               LEARN_CONFIG_DIR=str(data.parent / "config"), **extra)
    return env


def _learn(home: Path, data: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "learn", *args], env=_env(home, data, **extra),
                          cwd=home, capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)


def _points(stdout: str) -> list[tuple[str, str, int]]:
    """What a run proposed, as counted: (label, kind, sessions)."""
    return sorted((p["label"], p["kind"], p["sessions"]) for p in json.loads(stdout)["proposals"])


def _sqlite_check(data: Path) -> tuple[str, int, int]:
    """(integrity_check, runs, finished runs) of the store in `data`, read with the
    stdlib's sqlite3 on a copy: learn's own open could mend what this should see."""
    copy = data.parent / f"{data.name}-checked"
    shutil.copytree(data, copy)
    conn = sqlite3.connect(copy / "learn.db")
    try:
        (integrity,) = conn.execute("PRAGMA integrity_check").fetchone()
        has_runs = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'runs'").fetchone()
        runs, finished = conn.execute(
            "SELECT COUNT(*), COUNT(finished_at) FROM runs").fetchone() if has_runs else (0, 0)
    finally:
        conn.close()
        shutil.rmtree(copy)
    return str(integrity), int(runs), int(finished)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[Any]]:
    """(home, a store after one whole offline run, what that run proposed)."""
    root = tmp_path_factory.mktemp("corpus")
    demo.build(root)
    home = root / "home"
    data = root / "seed" / "data"
    done = _learn(home, data, *OFFLINE)
    assert done.returncode == 0, done.stderr
    return home, data, _points(done.stdout)


# -- a disk of our own ---------------------------------------------------------------------

@functools.cache
def _unshare(probe_dir: str) -> tuple[str, ...] | None:
    """The command prefix that runs a process in a mount namespace of its own where it
    may mount a tmpfs, or None."""
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return None
    for prefix in (("unshare", "-m"), ("unshare", "-Urm")):
        done = subprocess.run([*prefix, "mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs",
                               probe_dir], capture_output=True, timeout=30)
        if done.returncode == 0:
            return prefix
    return None


# Runs inside the namespace: mounts the tmpfs, lays out the store, leaves `free` bytes,
# runs learn, and copies what the disk holds afterwards out for the test to look at.
DRIVER = textwrap.dedent(
    """
    import json, os, shutil, subprocess, sys
    spec = json.loads(sys.argv[1])
    disk = spec["disk"]
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={spec['size_kb']}k", "tmpfs", disk],
                   check=True)
    data = os.path.join(disk, "data")
    if spec["seed"]:
        os.mkdir(data, 0o700)
        shutil.copy2(os.path.join(spec["seed"], "learn.db"), data)
    if spec["free"] is not None:
        st = os.statvfs(disk)
        left = st.f_bavail * st.f_frsize - spec["free"]
        with open(os.path.join(disk, "filler"), "wb") as fh:
            while left > 0:
                try:
                    left -= fh.write(b"\\0" * min(left, 1 << 16))
                    fh.flush()
                except OSError:
                    break
    if spec["read_only"]:
        subprocess.run(["mount", "-o", "remount,ro", disk], check=True)
    done = subprocess.run(spec["argv"], env=spec["env"], cwd=spec["cwd"], capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=300)
    if os.path.isdir(data):
        shutil.copytree(data, spec["keep"], symlinks=True)
    leftover = sorted(n for n in os.listdir(disk) if n not in ("filler", "data"))
    print(json.dumps({"rc": done.returncode, "stdout": done.stdout, "stderr": done.stderr,
                      "leftover": leftover}))
    """
)


def on_small_disk(tmp_path: Path, home: Path, *args: str, size_kb: int, seed: Path | None = None,
                  free: int | None = None, read_only: bool = False,
                  data_on_disk: bool = True) -> tuple[dict[str, Any], Path, Path]:
    """Run `learn ARGS` with a tmpfs of `size_kb` at `disk` (holding the data dir, or only
    what ARGS name there); (its result, the data dir as the disk held it, the disk)."""
    disk = tmp_path / "disk"
    disk.mkdir(exist_ok=True)
    prefix = _unshare(str(disk))
    if prefix is None:
        pytest.skip("cannot mount a tmpfs here (no mount namespace for this user)")
    keep = tmp_path / "kept"
    data = disk / "data" if data_on_disk else tmp_path / "data"
    spec = {
        "disk": str(disk), "size_kb": size_kb, "seed": str(seed) if seed else None,
        "free": free, "read_only": read_only, "keep": str(keep), "cwd": str(home),
        "argv": [sys.executable, "-m", "learn", *[a.replace("{disk}", str(disk)) for a in args]],
        "env": _env(home, data),
    }
    script = tmp_path / "driver.py"
    script.write_text(DRIVER)
    done = subprocess.run([*prefix, sys.executable, str(script), json.dumps(spec)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result, keep, disk


def _disk_full_line(result: dict[str, Any], command: str) -> str:
    err = result["stderr"]
    assert "Traceback" not in err, err
    lines = err.splitlines()
    assert len(lines) == 1, err
    line = lines[0]
    assert line.startswith(f"learn {command}: "), line
    assert "the disk is full" in line and "fix: free some disk space" in line, line
    assert "aside" not in line and "migrates" not in line and "rollback" not in line, line
    return line


@pytest.mark.parametrize("free_kb", [8, 32, 64])
def test_a_store_on_a_full_disk_says_so_and_stays_whole(
    tmp_path: Path, corpus: tuple[Path, Path, list[Any]], free_kb: int,
) -> None:
    """A run on the disk the store is on, with a few KB left (measured with a 344 KB
    store: up to 24 KB fails growing the -shm, a "disk I/O error"; 32 KB a page write
    before the run is recorded; 48-96 KB a later write or the commit; 128 KB is room)."""
    home, seed, proposed = corpus
    size_kb = (seed / "learn.db").stat().st_size // 1024 + 512
    result, kept, _ = on_small_disk(tmp_path, home, *OFFLINE, size_kb=size_kb, seed=seed,
                                    free=free_kb * 1024)
    assert result["rc"] == 1, result["stderr"]
    _disk_full_line(result, "run")
    integrity, runs, finished = _sqlite_check(kept)
    assert integrity == "ok"
    assert finished == 1 and runs in (1, 2)  # the seed's run, and at most this one, unfinished
    again = _learn(home, kept, *OFFLINE)  # the disk has room again
    assert again.returncode == 0, again.stderr
    assert _points(again.stdout) == proposed


@pytest.mark.parametrize("size_kb", [48, 160])
def test_a_new_store_on_a_full_disk_says_so_and_migrates_later(
    tmp_path: Path, corpus: tuple[Path, Path, list[Any]], size_kb: int,
) -> None:
    """The disk fills while the first run creates the store: it said "not a learn store"
    or "database needs migrations …; the next `learn run` migrates it"."""
    home, _, proposed = corpus
    result, kept, _ = on_small_disk(tmp_path, home, *OFFLINE, size_kb=size_kb)
    assert result["rc"] == 1
    _disk_full_line(result, "run")
    assert _sqlite_check(kept)[0] == "ok"
    again = _learn(home, kept, *OFFLINE)
    assert again.returncode == 0, again.stderr
    assert _points(again.stdout) == proposed


def test_out_on_a_full_disk_names_the_file_and_leaves_nothing(
    tmp_path: Path, corpus: tuple[Path, Path, list[Any]],
) -> None:
    """It said "learn: --out: [Errno 28] No space left on device": which file?"""
    home, seed, proposed = corpus
    data = tmp_path / "data"
    shutil.copytree(seed, data)
    result, _, disk = on_small_disk(tmp_path, home, *OFFLINE, "--out", "{disk}/digest.json",
                                    size_kb=64, free=0, data_on_disk=False)
    assert result["rc"] == 1
    assert _points(result["stdout"]) == proposed  # the run itself is printed whole
    assert f"learn: --out: [Errno 28] No space left on device: '{disk}/digest.json'" \
        in result["stderr"].splitlines()
    assert result["leftover"] == []  # no temp file left on that disk


def test_a_data_dir_on_a_read_only_disk_is_one_line_that_does_not_say_chmod(
    tmp_path: Path, corpus: tuple[Path, Path, list[Any]],
) -> None:
    """It said "is not writable; fix: chmod u+rwx …", which no chmod mends."""
    home, seed, _ = corpus
    size_kb = (seed / "learn.db").stat().st_size // 1024 + 512
    result, kept, disk = on_small_disk(tmp_path, home, *OFFLINE, size_kb=size_kb, seed=seed,
                                       read_only=True)
    assert result["rc"] == 1
    err = result["stderr"]
    assert err.splitlines() == [f"learn run: {disk}/data is on a read-only file system; fix: "
                                "point LEARN_DATA_DIR at a writable folder"], err
    assert (kept / "learn.db").read_bytes() == (seed / "learn.db").read_bytes()


# -- the mining cache --------------------------------------------------------------------

def test_a_cache_that_cannot_be_written_is_said_under_quiet(tmp_path: Path) -> None:
    """`--quiet` (the /learn command's own line: `learn run --yes --quiet --backend auto`)
    silenced it: a full or unwritable cache, every session mined and paid for again by
    every later run, and nothing said."""
    gold = demo.build(tmp_path / "corpus")
    home = tmp_path / "corpus" / "home"
    data = tmp_path / "data"
    data.parent.joinpath("cache").write_text("a file where the cache folder would be")
    oracle = GoldOracle(gold)
    with FakeAnthropicServer(responder=lambda r: oracle.answer(r.tool_name or "", r.user_text)) \
            as fake:
        done = _learn(home, data, "run", "--all-projects", "--since", "2026-01-01", "--yes",
                      "--quiet", "--json", "--backend", "anthropic", ANTHROPIC_API_KEY="test-key",
                      ANTHROPIC_BASE_URL=fake.base_url)
    assert done.returncode == 0, done.stderr
    said = [x for x in done.stderr.splitlines() if "could not write the mining cache" in x]
    assert len(said) == 1, done.stderr
    assert "mined, and paid for, again by the next run" in said[0]
    assert any("could not write the mining cache" in f
               for f in json.loads(done.stdout)["failures"])


# -- killed ------------------------------------------------------------------------------

class Held:
    """The oracle, holding every answer to `tool` until released."""

    def __init__(self, oracle: GoldOracle, tool: str | None) -> None:
        self.oracle, self.tool = oracle, tool
        self.release = threading.Event()
        self.seen: dict[str, int] = {}
        self.lock = threading.Lock()

    def __call__(self, request: RecordedRequest) -> object:
        tool = request.tool_name or ""
        with self.lock:
            self.seen[tool] = self.seen.get(tool, 0) + 1
        if tool == self.tool:
            self.release.wait(60)
        return self.oracle.answer(tool, request.user_text)


MODEL_RUN = ["run", "--all-projects", "--since", "2026-01-01", "--yes", "--quiet", "--json",
             "--all", "--backend", "anthropic"]


def _model_run(home: Path, data: Path, oracle: GoldOracle) -> tuple[list[Any], dict[str, int]]:
    held = Held(oracle, None)
    with FakeAnthropicServer(responder=held) as fake:
        done = _learn(home, data, *MODEL_RUN, ANTHROPIC_API_KEY="test-key",
                      ANTHROPIC_BASE_URL=fake.base_url)
    assert done.returncode == 0, done.stderr
    return _points(done.stdout), held.seen


def test_sigkill_while_judging_leaves_a_store_that_a_rerun_completes_as_if_whole(
    tmp_path: Path,
) -> None:
    """SIGKILL once the scan and the names are stored and the judge is asked: the store
    opens, shows no half run, and the next run counts what an uninterrupted one counts,
    asking the model only what was not kept. (Also checked by hand at other points: while
    mining, naming, after the judge answered, in the final writes; always the same.)"""
    gold = demo.build(tmp_path / "corpus")
    home = tmp_path / "corpus" / "home"
    oracle = GoldOracle(gold)
    whole, _ = _model_run(home, tmp_path / "whole" / "data", oracle)

    data = tmp_path / "killed" / "data"
    held = Held(oracle, "record_verdicts")
    with FakeAnthropicServer(responder=held) as fake:
        proc = subprocess.Popen(
            [sys.executable, "-m", "learn", *MODEL_RUN], cwd=home, start_new_session=True,
            env=_env(home, data, ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=fake.base_url),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while not held.seen.get("record_verdicts") and proc.poll() is None:
            assert time.monotonic() < deadline, "never asked the judge"
            time.sleep(0.01)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(30)
        held.release.set()
    assert proc.returncode == -signal.SIGKILL

    integrity, runs, finished = _sqlite_check(data)
    assert (integrity, runs, finished) == ("ok", 1, 0)  # started, never finished
    digest = _learn(home, data, "digest", "--all-projects")
    assert digest.returncode == 1 and "no stored run" in digest.stderr  # nothing half shown

    again, asked = _model_run(home, data, oracle)
    assert again == whole
    assert asked.get("record_candidates", 0) == 0  # every session's mining was kept
    assert asked.get("assign_labels", 0) == 0  # and the names
    assert asked.get("record_verdicts", 0) >= 1
