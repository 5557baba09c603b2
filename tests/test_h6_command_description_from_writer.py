"""Found on real Claude Code sessions (an end-to-end check with a careful model answering):
the command writer (prompt `write_commands`) is asked for a `description`, "one line saying
what the command does, for the command list (under 80 characters)", and a body; learn
keeps the body and throws the description away (learn.reduce.commands stores it only as
a remembered rationale). The command file's front matter takes the judge's summary
instead (learn.report.command_plan.command_text: `edit.description or edit.text`), cut at 80
columns with an ellipsis when the judge wrote a longer line, though a description that
fits was written for exactly that place and paid for. Fixed: the proposal carries it
(`Proposal.command_description`) and the command file takes it (tests/test_f8_command_
description_from_writer.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _weekly_asks import learn, learn_env, weekly_asks
from fakes.anthropic_server import FakeAnthropicServer, default_tool_input, items_in

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


def test_the_command_file_takes_the_description_written_for_it(tmp_path: Path) -> None:
    project = weekly_asks(tmp_path, "ops", ASK, "Here is the note.")
    with FakeAnthropicServer(responder=_responder) as fake:
        env = learn_env(tmp_path, fake.base_url)
        run = learn(["run", "--since", "2026-01-01", "--yes", "--quiet"], env, project)
        assert run.returncode == 0, run.stdout + run.stderr
        shown = learn(["apply", "--dry-run", "--project", str(project)], env, project)
    assert "on-call-handover-note.md" in shown.stdout, shown.stdout + shown.stderr
    assert f'+description: "{WRITTEN}"' in shown.stdout, shown.stdout
