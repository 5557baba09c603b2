"""Found on real Claude Code sessions (an end-to-end check with a careful model answering):
the command writer (prompt `write_commands`) is asked for a `description`, "one line saying
what the command does, for the command list (under 80 characters)", and a body; learn
keeps the body and throws the description away (learn.reduce.commands stores it only as
a remembered rationale). The command file's front matter takes the judge's summary
instead (learn.report.apply.command_text: `edit.description or edit.text`), cut at 80
columns with an ellipsis when the judge wrote a longer line, though a description that
fits was written for exactly that place and paid for. Fixed: the proposal carries it
(`Proposal.command_description`) and the command file takes it (tests/test_f8_command_
description_from_writer.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fakes.anthropic_server import FakeAnthropicServer, default_tool_input, items_in

from evals.builder import ClaudeSession, session_id

REPO = Path(__file__).resolve().parents[1]
ASK = "write up the on-call handover note from this week's incidents"
JUDGED = ("Write the weekly on-call handover note summarising every incident of the week, its "
          "cause, its fix and what is still open for the next person")
WRITTEN = "Write this week's on-call handover note"


def _responder(request: Any) -> Any:
    tool, items = request.tool_name, items_in(request.user_text)
    if tool == "record_candidates" and ASK in request.user_text:
        return {"candidates": [{"kind": "request", "text": ASK}]}
    if tool == "assign_labels":
        return {"labels": [{"id": i, "label": "on-call-handover-note"} for i, _, _ in items]}
    if tool == "record_verdicts":
        return {"verdicts": [{"id": i, "accepted": True, "category": "workflow",
                              "scope": "project", "confidence": 0.9, "summary": JUDGED,
                              "rationale": "the same general ask every week"}
                             for i, _, _ in items]}
    if tool == "write_commands":
        return {"commands": [{"id": i, "description": WRITTEN,
                              "body": "Collect this week's incidents and write the handover "
                                      "note: each incident, its cause, its fix, what is open."}
                             for i, _, _ in items]}
    return default_tool_input(tool)


def _learn(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "learn", *args], env=env, capture_output=True,
                          text=True, timeout=300, cwd=cwd)


def test_the_command_file_takes_the_description_written_for_it(tmp_path: Path) -> None:
    project = tmp_path / "home" / "code" / "ops"
    project.mkdir(parents=True)
    for i in range(3):
        s = ClaudeSession(session_id(f"oncall-{i}"), str(project),
                          datetime(2026, 11, 2 + 7 * i, 9, tzinfo=UTC))
        s.user(ASK)
        s.assistant("Here is the note.")
        s.write(tmp_path / "home" / ".claude")
    with FakeAnthropicServer(responder=_responder) as fake:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
        env.update(HOME=str(tmp_path / "home"), LEARN_DATA_DIR=str(tmp_path / "data"),
                   LEARN_CACHE_DIR=str(tmp_path / "cache"), LEARN_CONFIG_DIR=str(tmp_path / "config"),
                   PYTHONPATH=str(REPO), ANTHROPIC_API_KEY="test-key",
                   ANTHROPIC_BASE_URL=fake.base_url)
        run = _learn(["run", "--since", "2026-01-01", "--yes", "--quiet"], env, project)
        assert run.returncode == 0, run.stdout + run.stderr
        shown = _learn(["apply", "--dry-run", "--project", str(project)], env, project)
    assert "on-call-handover-note.md" in shown.stdout, shown.stdout + shown.stderr
    assert f'+description: "{WRITTEN}"' in shown.stdout, shown.stdout
