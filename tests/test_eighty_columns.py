"""`learn sessions`, `learn plan` and `learn doctor` on an 80-column terminal: every line
fits (the sessions table ran to 84 columns, plan's session lines to 95, doctor's hint to
143), while a pipe still gets whole lines. The real CLI on a pseudo-terminal over the demo
corpus, learn's directories where they are by default (under the home folder)."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

from evals.corpora import demo

REPO = Path(__file__).resolve().parents[1]
SCOPE = ["--all-projects", "--since", "2026-01-01"]
COMMANDS = [["sessions", *SCOPE], ["plan", *SCOPE], ["doctor"]]


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("cols")
    demo.build(root)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ANTHROPIC_", "LEARN_", "XDG_"))}
    env.update(HOME=str(root / "home"), PYTHONPATH=str(REPO), COLUMNS="80", LINES="24",
               PATH=os.path.dirname(sys.executable))
    return env


def on_a_terminal(args: list[str], env: dict[str, str]) -> list[str]:
    main, side = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "learn", *args], env=env, stdin=side,
                            stdout=side, stderr=side, cwd=env["HOME"])
    os.close(side)
    out = b""
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        out += chunk
    proc.wait(120)
    os.close(main)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.decode("utf-8", "replace"))
    return text.replace("\r", "").splitlines()


@pytest.mark.parametrize("args", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_every_line_fits_80_columns_on_a_terminal(args: list[str], env: dict[str, str]) -> None:
    lines = on_a_terminal(args, env)
    assert len(lines) > 5, lines
    assert [x for x in lines if len(x) > 80] == []


def test_a_pipe_gets_whole_paths(env: dict[str, str]) -> None:
    done = subprocess.run([sys.executable, "-m", "learn", "sessions", *SCOPE], env=env,
                          capture_output=True, text=True, timeout=120, cwd=env["HOME"])
    assert done.returncode == 0, done.stderr
    assert "~/code/shop-api" in done.stdout and "…" not in done.stdout
