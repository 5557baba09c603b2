"""What the detached hook worker prints goes through redaction, tracebacks included.

The worker's stdout and stderr are hook.log. An exception raised outside drain's own
handler was printed by Python as a raw traceback, quoting its message whole: a key of
any shape, a URL's password. Each case here starts the real worker process the way the
hook does (spawn_worker, `learn.entry`), makes it fail with a message holding a held
key of no known shape and an `sk-ant-` key, and reads the file."""

from __future__ import annotations

import os
import stat
import sys
import time
from pathlib import Path

import pytest

from learn.hook.worker import LOG_NAME, Log, spawn_worker

REPO = Path(__file__).resolve().parents[1]
HELD_KEY = "proxy-7f3a9c2e1b"  # the endpoint's key, of no vendor's shape
SHAPED_KEY = "sk-ant-api03-" + "Zx8Cv6Bn4Mq2We0Rt9Yu7Io5Pa3Sd1Fg" + "-hJkLAA"
DB_PASSWORD = "s3cret-db-pass"
MESSAGE = (f"endpoint said: invalid key {HELD_KEY} (also tried {SHAPED_KEY}); "
           f"store postgresql://learn:{DB_PASSWORD}@db/learn refused {DB_PASSWORD}")

# How the worker meets each fault: `hook_dir` is the first thing `learn hook drain`
# calls, outside its own handler.
FAULTS = {
    "uncaught": f"raise RuntimeError({MESSAGE!r})",
    "thread": ("import threading\n"
               f"    t = threading.Thread(target=lambda: (_ for _ in ()).throw(KeyError({MESSAGE!r})))\n"
               "    t.start(); t.join()\n"
               "    raise SystemExit(0)"),
    "exit": f"raise SystemExit({MESSAGE!r})",
    "print": f"print({MESSAGE!r}, file=sys.stderr); print({MESSAGE!r})\n    raise SystemExit(0)",
    "warning": f"import warnings; warnings.warn({MESSAGE!r})\n    raise SystemExit(0)",
    "logging": f"import logging; logging.getLogger('x').error({MESSAGE!r})\n    raise SystemExit(0)",
    "pem": ("raise ValueError('bad key:\\n-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0\\n"
            "AASCBKcwggSjAgEAAoIBAQC7\\n-----END PRIVATE KEY-----')"),
}

SCRIPT = """\
import sys
import learn.hook.queue

def hook_dir():
    {fault}

learn.hook.queue.hook_dir = hook_dir
sys.argv = ["learn", "hook", "drain", "--backend", "replay"]
from learn.entry import main
main()
"""


def _wait(pid: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # reaped by subprocess's own bookkeeping
            return
        if done:
            return
        time.sleep(0.05)
    raise AssertionError(f"the worker {pid} did not end in {timeout}s")


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_what_the_worker_prints_when_it_fails_is_redacted(
        fault: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", HELD_KEY)
    monkeypatch.setenv("LEARN_DATABASE_URL", f"postgresql://learn:{DB_PASSWORD}@db/learn")
    monkeypatch.setenv("LEARN_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    hook = tmp_path / "data" / "hook"
    hook.mkdir(parents=True)
    # A log left readable by others (a copy, an older learn) is made private.
    (hook / LOG_NAME).write_text("", encoding="utf-8")
    (hook / LOG_NAME).chmod(0o644)
    script = SCRIPT.format(fault=FAULTS[fault])
    _wait(spawn_worker(Log(hook), [sys.executable, "-c", script]))
    log = (hook / LOG_NAME).read_text(encoding="utf-8")
    for secret in (HELD_KEY, SHAPED_KEY, DB_PASSWORD, "MIIEvQIBADANBgkqhkiG9w0",
                   "AASCBKcwggSjAgEAAoIBAQC7"):
        assert secret not in log, log
    assert stat.S_IMODE((hook / LOG_NAME).stat().st_mode) == 0o600
    # What failed is still said, with the secrets' places marked.
    if fault == "pem":
        assert "ValueError: bad key:" in log and "[REDACTED:private-key]" in log, log
    else:
        assert "endpoint said: invalid key [REDACTED:api-key]" in log, log
        assert "[REDACTED:anthropic-key]" in log, log
    if fault in ("uncaught", "thread", "pem"):
        assert "Traceback (most recent call last)" in log, log
