"""learn as native Windows Python 3.11/3.12 runs it, simulated on this machine.

No Windows machine runs these tests, so a subprocess is made to look like one before
learn is imported (`_SIM` below): the `os` names Windows lacks are gone (O_NONBLOCK,
O_NOFOLLOW, O_CLOEXEC, fork, fchmod before 3.13, ...), and an fd `os.open` made
without O_BINARY is in the C runtime's text mode, as Python documents for Windows: a
read turns CRLF into LF and ends at a Ctrl-Z byte, a write turns LF into CRLF (only
through `os.read`/`os.write`: a file object on such an fd reads in C, past the
simulation). Before learn.osflags every command that reads sessions failed at import
(O_NONBLOCK), every write failed (fchmod), the check hook exited 1 without its deny,
and `learn apply` rewrote an LF CLAUDE.md's line endings and cut a file at a Ctrl-Z,
its backup too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

_SIM = r'''
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


def _run(tmp_path: Path, body: str, *, stdin: str = "") -> subprocess.CompletedProcess[str]:
    script = tmp_path / "sim_run.py"
    script.write_text(_SIM + "\n" + body)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LEARN_", "ANTHROPIC_"))}
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env.update(HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"),
               CODEX_HOME=str(home / ".codex"), LEARN_DATA_DIR=str(tmp_path / "data"),
               LEARN_CACHE_DIR=str(tmp_path / "cache"), LEARN_CONFIG_DIR=str(tmp_path / "config"),
               PYTHONPATH=str(ROOT), LEARN_PARSE_WORKERS="1")
    return subprocess.run([sys.executable, str(script)], input=stdin, capture_output=True,
                          text=True, env=env, timeout=300, cwd=tmp_path)


def test_the_simulation_is_windows_enough_to_fail_without_binary(tmp_path: Path) -> None:
    # The simulation itself: an fd opened without O_BINARY reads CRLF as LF and stops at
    # a Ctrl-Z; with it, the bytes as they are. (Else the tests below prove nothing.)
    sample = tmp_path / "s.md"
    sample.write_bytes(b"a\r\nb\x1ac\n")
    done = _run(tmp_path, f'''
fd = os.open({str(sample)!r}, os.O_RDONLY); text = os.read(fd, 100); os.close(fd)
fd = os.open({str(sample)!r}, os.O_RDONLY | os.O_BINARY); raw = os.read(fd, 100); os.close(fd)
print(repr(text), repr(raw), hasattr(os, "fchmod"), hasattr(os, "O_NONBLOCK"))
''')
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["b'a\\nb'", "b'a\\r\\nb\\x1ac\\n'", "False", "False"]


def test_sessions_lists_on_windows(tmp_path: Path) -> None:
    project = tmp_path / "shop"
    project.mkdir()
    folder = tmp_path / "home" / ".claude" / "projects" / "-shop"
    folder.mkdir(parents=True)
    lines = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s1",
         "timestamp": "2026-03-01T10:00:00Z", "cwd": str(project),
         "message": {"role": "user", "content": "please keep the tests beside the code"}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s1",
         "timestamp": "2026-03-01T10:00:05Z", "cwd": str(project),
         "message": {"role": "assistant", "model": "m", "content": [{"type": "text", "text": "ok"}]}},
    ]
    (folder / "s1.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    done = _run(tmp_path, '''
sys.argv = ["learn", "sessions", "--all-projects", "--json"]
from learn.entry import main
main()
''')
    assert done.returncode == 0, done.stderr[-3000:]
    [row] = json.loads(done.stdout)["sessions"]
    assert row["id"] == "s1" and row["human_turns"] == 1


CASES = {
    "lf": b"# Shop\n\n- Keep PRs small.\n",
    "crlf-bom": b"\xef\xbb\xbf# Shop\r\n\r\n- Keep PRs small.\r\n",
    "ctrl-z": b"# Shop\n\nA pasted \x1a byte, then more.\n- Keep PRs small.\n",
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_apply_and_undo_keep_the_persons_bytes_on_windows(case: str, tmp_path: Path) -> None:
    original = CASES[case]
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    claude = project / "CLAUDE.md"
    claude.write_bytes(original)
    done = _run(tmp_path, f'''
from pathlib import Path
from click.testing import CliRunner
from learn.commands.apply import command
from learn.records.proposal import Proposal, Quote, Verdict
from learn.store.feedback import FeedbackStore
from learn.store.proposals import ProposalBook

project = {str(project)!r}
quotes = tuple(Quote(s, "use bun not npm", f"2026-03-2{{i}}T00:00:00+00:00", project)
               for i, s in enumerate(("a", "b")))
bun = Proposal("directive", "use-bun", "use bun not npm", 2, 2, quotes[1].at, quotes,
               verdict=Verdict(True, "Use bun, not npm.", "tooling", "project", 0.9))
Path({str(tmp_path / "data")!r}).mkdir(exist_ok=True)
with FeedbackStore.open(Path({str(tmp_path / "data" / "learn.db")!r})) as store:
    ProposalBook(store).record([bun], run_id=None, fallback_project=project)
res = CliRunner().invoke(command, ["--project", project, "--yes"])
assert res.exit_code == 0 and res.exception is None, (res.output, res.exception)
print(repr(Path(project, "CLAUDE.md").read_bytes()))
res = CliRunner().invoke(command, ["--project", project, "--undo", "--yes"])
assert res.exit_code == 0 and res.exception is None, (res.output, res.exception)
''')
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    applied = eval(done.stdout.strip().splitlines()[-1])  # a bytes repr this test printed
    assert applied.startswith(original)  # the person's text and line endings as they were
    assert b"Use bun, not npm." in applied[len(original):]
    assert claude.read_bytes() == original  # undo puts back every byte


def test_the_check_answers_before_it_notes_the_hit(tmp_path: Path) -> None:
    # Windows before 3.13 has no fchmod: noting the hit once raised AttributeError before
    # the deny was written, and the hook exited 1: the agent ran the command.
    from learn.guard.rules import CheckRule, RuleSet

    rule = CheckRule(id="no-force-push", program="git", subcommand="push",
                     flags=("--force", "-f"), arguments=("+*",),
                     reason="Never force push; ask me first.", mode="enforce")
    rules = tmp_path / "r.json"
    rules.write_text(RuleSet(None, (rule,)).dumps())
    event = {"hook_event_name": "PreToolUse", "cwd": str(tmp_path), "tool_name": "Bash",
             "tool_input": {"command": "git push -f"}}
    done = _run(tmp_path, f'''
sys.argv = ["learn.guard", "--rules", {str(rules)!r}]
from learn.guard.hook import main
sys.exit(main())
''', stdin=json.dumps(event))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert (tmp_path / "r.hits.jsonl").is_file()  # and the hit was noted after all


def test_no_file_learn_names_is_a_windows_device() -> None:
    # `aux.md` cannot be made on Windows, and a repository holding one cannot be checked
    # out there by a teammate: a label "aux" or "con" gets `my-` before it.
    from learn.report.targets import command_name, slug

    for device in ("aux", "CON", "nul", "com1", "lpt9", "prn"):
        assert slug(device) == f"my-{device.lower()}"
    assert command_name("nul") == "my-nul"
    assert slug("auxiliary build") == "auxiliary-build" and slug("console") == "console"


def test_doctor_says_nothing_of_modes_windows_does_not_keep(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Windows reports every folder 0777 and file 0666, whoever may read them: a warning
    # with a chmod to fix it could never go away there.
    import types

    from learn import doctor

    folder = tmp_path / "data"
    folder.mkdir(mode=0o777)
    folder.chmod(0o777)
    assert doctor._open_to_others(folder)
    monkeypatch.setattr(doctor, "os", types.SimpleNamespace(name="nt"))
    assert not doctor._open_to_others(folder)
