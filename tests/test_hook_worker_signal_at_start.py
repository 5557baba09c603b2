"""The hook's background worker ended by SIGTERM or SIGHUP while it still loads its
modules says so in one line in hook.log and exits 128 + the signal.

The worker (`learn hook drain`, learn.entry) has its own exception hook, which
writes through its redacting stderr, hook.log (learn.hook.worker_output). A signal
that arrived before the command line's handler was reached (a logout or shutdown
right after a session ended: the hook starts the worker at that moment) raised
learn.termination.Terminated into that hook, which wrote it as a traceback and let
Python exit 1, as if the worker had crashed. Every other command said it in one line
and exited 143 / 129 (learn.crash_output).

The worker runs here for real, as learn.entry starts it, its stdout and stderr the
log. "While it still loads" is made exact, not a race: the test's script (not learn)
puts a finder first on sys.meta_path that sends the process the signal when
`learn.cli` is looked up, the import that follows the worker's output guard.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from learn.hook import worker_output

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

WORKER = textwrap.dedent("""\
    import os, signal, sys

    class SignalAtImport:
        def find_spec(self, name, path=None, target=None):
            if name == "learn.cli":
                os.kill(os.getpid(), signal.{sig})
            return None

    sys.meta_path.insert(0, SignalAtImport())
    sys.argv = ["learn", "hook", "drain"]
    print("worker starting", flush=True)
    from learn.entry import main
    main()
    print("survived", flush=True)
    """)


def _default_signals() -> None:
    # A suite run under nohup passes SIGHUP ignored to its children; a worker the hook
    # starts from Claude Code has the defaults.
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
def test_a_signal_while_the_worker_loads_is_one_line_in_its_log_and_exit_128_plus_it(
        tmp_path: Path, sig: signal.Signals) -> None:
    log = tmp_path / "hook.log"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LEARN_DATA_DIR": str(tmp_path / "data"),
           "LEARN_CACHE_DIR": str(tmp_path / "cache"),
           "LEARN_CONFIG_DIR": str(tmp_path / "config")}
    with log.open("ab") as out:
        done = subprocess.run([sys.executable, "-c", WORKER.format(sig=sig.name)],
                              stdin=subprocess.DEVNULL, stdout=out, stderr=out, cwd=tmp_path,
                              env=env, timeout=60, check=False, preexec_fn=_default_signals,
                              start_new_session=True)
    said = log.read_text()
    assert done.returncode == 128 + sig, said
    assert said.splitlines() == ["worker starting", f"learn: terminated by {sig.name}"], said
    assert "Traceback" not in said


def test_ctrl_c_while_the_worker_loads_is_one_line_and_left_to_python(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # Ctrl-C's own KeyboardInterrupt: the line (no blank line before it: a log is no
    # terminal that echoed ^C), and Python ends the process as Ctrl-C does.
    monkeypatch.setattr(os, "_exit", lambda code: pytest.fail(f"exited {code}"))
    worker_output._excepthook(KeyboardInterrupt, KeyboardInterrupt(), None)
    assert capsys.readouterr().err == "learn: interrupted\n"


def test_any_other_exception_is_still_the_whole_traceback(
        capsys: pytest.CaptureFixture[str]) -> None:
    try:
        raise RuntimeError("the store is gone")
    except RuntimeError as exc:
        worker_output._excepthook(RuntimeError, exc, exc.__traceback__)
    err = capsys.readouterr().err
    assert err.startswith("Traceback") and err.rstrip().endswith("RuntimeError: the store is gone")
