"""Windows, simulated on this machine: the one setup tests/test_windows_sim.py,
tests/test_confine_windows.py and tests/test_unc_paths.py share.

No Windows machine runs these tests. Two ways, each modelling part of it:

- In this process, Windows' rules of names (`windows`: learn.windows_names.WINDOWS, the
  host's flag, set) and of paths (`windows_paths`: learn.projects.flavour reads
  `sys.platform` as win32, so a drive or UNC path is a folder of this machine, as there).
- In a subprocess (`run_simulated`), learn imported where `os` is Windows' (`SIM`): the
  names Windows' `os` lacks are gone (O_NONBLOCK, O_NOFOLLOW, O_CLOEXEC, fork, fchmod
  before 3.13, ...), and an fd `os.open` made without O_BINARY is in the C runtime's text
  mode, as Python documents for Windows: a read turns CRLF into LF and ends at a Ctrl-Z
  byte, a write turns LF into CRLF (only through `os.read`/`os.write`: a file object on
  such an fd reads in C, past the simulation).

And the proposal both kinds of test apply (`bun`, `record_bun`, `RECORD_BUN`): "use bun
not npm", said in two sessions of one project, accepted as a project rule.
"""

from __future__ import annotations

import ntpath
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

SIM = r'''
import os, stat, sys
import multiprocessing, subprocess, tempfile, shutil, filelock  # their own backends first

for name in ("O_NONBLOCK", "O_CLOEXEC", "O_NOFOLLOW", "O_DIRECTORY", "O_PATH", "fork",
             "fchmod", "lchmod", "fchown", "getuid", "geteuid", "register_at_fork",
             "setxattr", "getxattr", "listxattr", "posix_fadvise", "sched_getaffinity"):
    if hasattr(os, name):
        delattr(os, name)
os.supports_dir_fd = set()
# filelock chose its Unix lock at import (fcntl, O_NONBLOCK, fchmod); on Windows it is
# another class, which needs none of the names removed above. One process runs here: a
# lock that is always free stands in for it.
class _WindowsLock:
    def __init__(self, path, **kwargs):
        self.path = path
    def acquire(self, **kwargs):
        return self
    def release(self, **kwargs):
        pass
filelock.FileLock = _WindowsLock
os.O_BINARY = BINARY = 0x8000
_open, _read, _write, _close = os.open, os.read, os.write, os.close
TEXT, ENDED = set(), set()

def sim_open(path, flags, mode=0o777, *, dir_fd=None):
    fd = _open(path, flags & ~BINARY, mode, dir_fd=dir_fd)
    if not flags & BINARY:
        try:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                TEXT.add(fd)
        except OSError:
            pass
    return fd

def sim_read(fd, n):
    if fd not in TEXT:
        return _read(fd, n)
    if fd in ENDED:
        return b""
    data = _read(fd, n)
    if data.endswith(b"\r"):
        data += _read(fd, 1)
    if b"\x1a" in data:
        data = data[:data.index(b"\x1a")]
        ENDED.add(fd)
    return data.replace(b"\r\n", b"\n")

def sim_write(fd, data):
    if fd not in TEXT:
        return _write(fd, data)
    _write(fd, bytes(data).replace(b"\n", b"\r\n"))
    return len(data)

def sim_close(fd):
    TEXT.discard(fd)
    ENDED.discard(fd)
    return _close(fd)

os.open, os.read, os.write, os.close = sim_open, sim_read, sim_write, sim_close
'''


def run_simulated(tmp_path: Path, body: str, *,
                  stdin: str = "") -> subprocess.CompletedProcess[str]:
    """`body` run by Python after `SIM`, with HOME and learn's folders under `tmp_path`."""
    script = tmp_path / "sim_run.py"
    script.write_text(SIM + "\n" + body)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LEARN_", "ANTHROPIC_"))}
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env.update(HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"),
               CODEX_HOME=str(home / ".codex"), LEARN_DATA_DIR=str(tmp_path / "data"),
               LEARN_CACHE_DIR=str(tmp_path / "cache"), LEARN_CONFIG_DIR=str(tmp_path / "config"),
               PYTHONPATH=str(ROOT), LEARN_PARSE_WORKERS="1")
    return subprocess.run([sys.executable, str(script)], input=stdin, capture_output=True,
                          text=True, env=env, timeout=300, cwd=tmp_path)


# The proposal, recorded in the store under `<data>/learn.db` for the project `project`:
# a script's text (for `run_simulated`), formatted with `record_bun_script`.
RECORD_BUN = '''
from pathlib import Path
from learn.records.proposal import Proposal, Quote, Verdict
from learn.store.feedback import FeedbackStore
from learn.store.proposals import ProposalBook

project = {project!r}
quotes = tuple(Quote(s, "use bun not npm", f"2026-03-2{{i}}T00:00:00+00:00", project)
               for i, s in enumerate(("a", "b")))
bun = Proposal("directive", "use-bun", "use bun not npm", 2, 2, quotes[1].at, quotes,
               verdict=Verdict(True, "Use bun, not npm.", "tooling", "project", 0.9))
Path({data!r}).mkdir(exist_ok=True)
with FeedbackStore.open(Path({data!r}) / "learn.db") as store:
    ProposalBook(store).record([bun], run_id=None, fallback_project=project)
'''


def record_bun_script(tmp_path: Path, project: Path | str) -> str:
    return RECORD_BUN.format(project=str(project), data=str(tmp_path / "data"))


def record_bun(data: Path, project: Path | str) -> None:
    """The proposal recorded in this process, in the store under `data`."""
    exec(RECORD_BUN.format(project=str(project), data=str(data)), {})


@pytest.fixture
def windows(monkeypatch: pytest.MonkeyPatch) -> None:
    """Names read by Windows' rules (learn.windows_names.WINDOWS)."""
    from learn import windows_names

    monkeypatch.setattr(windows_names, "WINDOWS", True)


@pytest.fixture
def windows_paths(monkeypatch: pytest.MonkeyPatch, windows: None) -> None:
    """Paths read as Windows reads them, names too: a drive or UNC path is a folder of
    this machine (learn.projects.flavour asks `sys.platform`), realpath gives it back
    normalised (ntpath's realpath of a path with no link on the way; this machine's
    joined it to the working directory), and no drive letter is a mapped share's unless
    a test says so (learn.windows_names.REMOTE_DRIVES)."""
    from learn import windows_names
    from learn.projects import flavour

    real = os.path.realpath

    def realpath(path: str, *, strict: bool = False) -> str:
        text = os.fspath(path)
        return ntpath.normpath(text) if flavour.is_windows_path(text) \
            else real(text, strict=strict)

    monkeypatch.setattr(os.path, "realpath", realpath)
    monkeypatch.setattr(flavour, "sys", types.SimpleNamespace(platform="win32"))
    monkeypatch.setattr(windows_names, "REMOTE_DRIVES", {})
    monkeypatch.setattr(windows_names, "_asks_a_server", lambda letter, depth: False)
