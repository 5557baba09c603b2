"""A command file's description is the one the command writer wrote for the command list
(learn.reduce.commands), carried on the proposal (`Proposal.command_description`), stored
and remembered with the body; still cut to 80 columns and written as a YAML scalar Claude
Code reads whole (learn.report.command_plan.command_text).

The writer is asked for "one line saying what the command does, for the command list
(under 80 characters)"; learn kept only the body, and the front matter took the judge's
summary cut at 80 columns (tests/test_h6_command_description_from_writer.py, found on
real Claude Code sessions). A proposal with no written description (an earlier learn's,
a procedure escalated to a command, a writer's line with no prose in it) keeps the
judge's summary, as before.

The fixtures are written for this test (not copied from any transcript).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from _reduce_helpers import ScriptedBackend, items_of
from test_f5_command_description_yaml import _front_matter
from test_h1_command_body_cap import _repo, _stored
from test_reduce_commands import INSTRUCTION, request

from learn.records.proposal import Proposal
from learn.reduce.commands import write_commands
from learn.reduce.memory import InMemoryVerdictMemory
from learn.report.apply import edit_for
from learn.report.command_plan import command_text
from learn.report.targets import TargetChoice
from learn.store.proposals_ddl import proposal_from_json, proposal_json

WRITTEN = "Open a release PR with the changelog first"


def _writer(description: str = WRITTEN) -> ScriptedBackend:
    return ScriptedBackend(lambda req: {"commands": [
        {"id": i, "description": description, "body": INSTRUCTION}
        for i, _, _ in items_of(req.user)]})


def _file_of(p: Proposal, project: Path) -> tuple[dict[str, str], str]:
    return _front_matter(command_text(edit_for(p, TargetChoice(project, follow_quotes=True))))


def test_the_writers_description_is_carried_and_a_remembered_body_brings_it_back() -> None:
    memory = InMemoryVerdictMemory()
    [p] = write_commands([request()], backend=_writer("  Open a release PR\n with the "
                                                      "changelog first "), model="m",
                         memory=memory).proposals
    assert (p.command_body, p.command_description) == (INSTRUCTION, WRITTEN)
    # The same group again: no model asked, the body and its description remembered.
    again = _writer("another description")
    [kept] = write_commands([request()], backend=again, model="m", memory=memory).proposals
    assert again.requests == []
    assert (kept.command_body, kept.command_description) == (INSTRUCTION, WRITTEN)
    # An empty description is none written.
    [blank] = write_commands([request()], backend=_writer("   "), model="m").proposals
    assert blank.command_body == INSTRUCTION and blank.command_description is None


def test_the_description_is_stored_and_read_back_and_an_older_proposal_has_none(
        tmp_path: Path) -> None:
    p = dataclasses.replace(_stored(tmp_path, INSTRUCTION), command_description=WRITTEN)
    assert proposal_from_json(proposal_json(p)).command_description == WRITTEN
    assert Proposal.from_json(p.to_json()).command_description == WRITTEN
    assert p.to_json()["command_description"] == WRITTEN
    older = json.loads(proposal_json(p))
    del older["command_description"]
    assert proposal_from_json(json.dumps(older)).command_description is None
    before = p.to_json()
    del before["command_description"]
    assert Proposal.from_json(before).command_description is None
    assert "command_description" not in _stored(tmp_path, INSTRUCTION).to_json()


def test_the_command_file_takes_the_written_description_else_the_judges(tmp_path: Path) -> None:
    project = _repo(tmp_path / "shop")
    p = _stored(project, INSTRUCTION)
    written = dataclasses.replace(p, command_description=WRITTEN)
    front, body = _file_of(written, project)
    assert front == {"description": WRITTEN} and body.startswith(f"{INSTRUCTION}\n")
    # None written (an earlier learn's proposal), or no prose in it: the judge's summary.
    assert _file_of(p, project)[0] == {"description": "Open a release PR."}
    no_prose = dataclasses.replace(p, command_description="```\n$ make release\n```")
    assert _file_of(no_prose, project)[0] == {"description": "Open a release PR."}


def test_a_written_description_goes_through_the_safe_yaml_and_the_cut(tmp_path: Path) -> None:
    project = _repo(tmp_path / "shop")
    p = _stored(project, INSTRUCTION)
    hostile = "Release --- then: the `git push --force` # never\nsecond line"
    front, body = _file_of(dataclasses.replace(p, command_description=hostile), project)
    assert front == {"description": "Release --- then: the `git push --force` # never second line"}
    assert body.startswith(INSTRUCTION)
    long = "Open the release pull request " + "and its changelog " * 8
    [line] = [x for x in command_text(edit_for(
        dataclasses.replace(p, command_description=long),
        TargetChoice(project, follow_quotes=True))).splitlines() if x.startswith("description:")]
    described = json.loads(line.removeprefix("description: "))
    assert described.endswith("…") and len(described) <= 80
