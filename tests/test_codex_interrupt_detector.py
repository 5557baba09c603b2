"""An interrupt no text marks (Codex's `turn_aborted`) reaches the interrupt detector.

Claude Code writes "[Request interrupted by user]"; Codex writes a `turn_aborted` event,
which lowers to a user entry marked `interrupted` with no text. The detector looked for
the marker text alone, so a Codex turn stopped while the agent was answering (no call
running) never anchored what the person said next.
"""

from __future__ import annotations

import json
from pathlib import Path

from fixtures.codex_0171._build import Rollout

from learn.detect.detectors import mine
from learn.transcripts import parse

STOPPED = "Starting with the migration files now"
NEXT = "no, the migrations are generated: change the models instead"


def _rollout(tmp_path: Path, *, aborted: bool) -> Path:
    r = Rollout("0171")
    r.meta()
    r.start(first=True)
    r.prompt("add a created_at column to the orders table")
    r.reply(STOPPED, 1)
    if aborted:
        r.add("event_msg", {"type": "turn_aborted", "turn_id": r.turn_id, "reason": "interrupted"})
    else:
        r.end(STOPPED)
    r.start(first=False)
    r.prompt(NEXT)
    r.reply("Changing the models.", 2)
    r.end("Changing the models.")
    path = tmp_path / "rollout-2026-11-24T14-00-00-01a2f000-1111-7222-8333-000000000171.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in r.lines))
    return path


def _interrupts(path: Path) -> list[tuple[object, str]]:
    return [(s.evidence.get("tool"), s.text)
            for s in mine(list(parse(path).events), provider="codex")
            if s.detector == "interrupt"]


def test_a_turn_aborted_while_answering_anchors_what_was_typed_next(tmp_path: Path) -> None:
    assert _interrupts(_rollout(tmp_path, aborted=True)) == [(None, NEXT)]


def test_a_turn_that_ran_to_its_end_is_no_interrupt(tmp_path: Path) -> None:
    assert _interrupts(_rollout(tmp_path, aborted=False)) == []
