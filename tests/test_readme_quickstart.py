"""The README's quickstart, as .ci/quickstart reads it: the lines exist, name targets the
Makefile has and a `learn` where `make demo` puts it, and end with the test command CI runs.
(.ci/quickstart runs them literally from a clean clone; this is the quick check that the
README and the Makefile still agree.)"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def quickstart() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = re.search(r"^## Quickstart\n(.*?)(?=^## )", text, re.S | re.M)
    assert section, "README.md has no ## Quickstart"
    block = re.search(r"^```sh\n(.*?)^```", section.group(1), re.S | re.M)
    assert block, "no ```sh block under ## Quickstart"
    return [line.split("#")[0].strip() for line in block.group(1).splitlines() if line.strip()]


def test_the_quickstart_is_two_setup_lines_then_the_test_command_ci_runs() -> None:
    lines = quickstart()
    # The last line is CI's only test run (.ci/run runs the quickstart, not make test again).
    assert lines == ["make demo", ".venv/bin/learn demo --apply", "make test"]
    makefile = (REPO / "Makefile").read_text()
    assert re.search(r"^demo: \$\(VENV\)/\.installed-base$", makefile, re.M)  # learn alone
    assert "VENV ?= .venv" in makefile and "BIN := $(VENV)/bin" in makefile
    assert ".ci/quickstart" in (REPO / ".ci" / "run").read_text()


def test_ci_reads_the_same_lines() -> None:
    script = (REPO / ".ci" / "quickstart").read_text()
    assert "## Quickstart" in script and "```sh" in script
    done = subprocess.run(["bash", "-n", str(REPO / ".ci" / "quickstart")], capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 0, done.stderr
