"""The hook worker's redacting stderr takes what click writes to it: bytes.

click 8.5 probes a stream with `write(b"")` and, the probe passing, writes each
`click.echo(..., err=True)` as bytes. The writer kept them pending, the flush failed
joining them with text, and every later flush failed on the same pieces: the
background worker failed every session whose mining printed a retry notice."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

from learn.hook.worker_output import RedactingWriter
from learn.redaction.redact import redact_message

AWS_ID = "AKIAZ7Q2W3E4R5T6Y7U2"
ROOT = Path(__file__).resolve().parents[1]


def test_click_echo_to_the_guarded_stderr_is_written_redacted(tmp_path: Path) -> None:
    # The worker as it runs: guard_output first, then click, stderr a file (hook.log).
    script = (
        "import click\n"
        "from learn.hook.worker_output import guard_output\n"
        "guard_output()\n"
        f"click.echo('retrying: key {AWS_ID} refused', err=True)\n"
        "click.echo('second notice', err=True)\n"
        "print('done', flush=True)\n"
    )
    log = tmp_path / "hook.log"
    with log.open("wb") as out:
        done = subprocess.run([sys.executable, "-c", script], stdout=out, stderr=out,
                              cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                              timeout=60, check=False)
    text = log.read_text()
    assert done.returncode == 0, text
    assert "retrying: key [REDACTED:aws-access-key] refused" in text
    assert "second notice" in text and "done" in text
    assert AWS_ID not in text
    assert "TypeError" not in text


def test_bytes_then_text_each_reach_the_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    inner = io.StringIO()
    writer = RedactingWriter(inner, redact_message)
    monkeypatch.setattr(sys, "stderr", writer)
    click.echo(f"first {AWS_ID}", err=True)
    writer.write(b"caf\xc3\xa9 \xff\n")  # not valid UTF-8 at the end: replaced, not refused
    writer.flush()
    writer.write("third\n")
    writer.flush()
    assert inner.getvalue() == "first [REDACTED:aws-access-key]\ncafé \ufffd\nthird\n"

