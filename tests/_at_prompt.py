"""`learn ARGS` in its own process on a pseudo-terminal, as a person runs it: read until it
asks, answer, read what it printed to its end (the tests of apply's prompts beside a run)."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


class AtPrompt:
    """`learn ARGS` on a pseudo-terminal; `env` added to this process's environment."""

    def __init__(self, cwd: Path, *args: str, env: dict[str, str] | None = None) -> None:
        self.main, side = pty.openpty()
        full = dict(os.environ, PYTHONPATH=str(REPO), COLUMNS="200", **(env or {}))
        self.proc = subprocess.Popen([sys.executable, "-m", "learn", *args], cwd=cwd,
                                     env=full, stdin=side, stdout=side, stderr=side)
        os.close(side)
        self.out = b""

    def read_until(self, text: bytes, timeout: float = 60) -> None:
        end = time.monotonic() + timeout
        while text not in self.out:
            left = end - time.monotonic()
            assert left > 0, f"no {text!r} in: {self.text()}"
            ready, _, _ = select.select([self.main], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.main, 65536)
                except OSError:  # the terminal closed with the process
                    chunk = b""
                assert chunk, f"ended before {text!r}: {self.text()}"
                self.out += chunk

    def type(self, line: str) -> None:
        os.write(self.main, line.encode() + b"\n")

    def finish(self) -> tuple[int, str]:
        """The exit code and everything it printed."""
        while True:
            try:
                ready, _, _ = select.select([self.main], [], [], 60)
                chunk = os.read(self.main, 65536) if ready else b""
            except OSError:
                chunk = b""
            if not chunk:
                break
            self.out += chunk
        code = self.proc.wait(60)
        os.close(self.main)
        return code, self.text()

    def answer(self, line: str) -> tuple[int, str]:
        """`line` typed at the prompt; the exit code and everything it printed."""
        self.type(line)
        return self.finish()

    def text(self) -> str:
        return self.out.decode("utf-8", "replace").replace("\r", "")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(60)
