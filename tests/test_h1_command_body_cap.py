"""A command's body has a cap, as a rule line has (learn.reduce.command_body.MAX_BODY_CHARS).

Nothing bounded it: a model's answer, a remembered body or a stored proposal's body (a
shared team database, a hand edit) of any length went whole into
`.claude/commands/<name>.md` or a Codex skill, `~/.agents/skills/<name>/SKILL.md`. Real bodies are 71 to 190
characters (the eval corpora, cache/write_commands); 2,000 is ten times that. A longer
one is never written, nor cut (a procedure cut short loses its last steps): `learn run`
asks once more for a shorter one, `learn apply` refuses it with the reason, from a fresh
run, a stored proposal or `--edit`, and the digest says so beside the instruction.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from _reduce_helpers import ScriptedBackend
from click.testing import CliRunner, Result
from test_reduce_commands import INSTRUCTION, request, writer

from learn.prompts import load_prompt
from learn.records.proposal import Funnel, Proposal, Quote, RunResult, RunUsage, Verdict
from learn.reduce.commands import memory_key, write_commands
from learn.reduce.memory import InMemoryVerdictMemory
from learn.report.apply import edit_for, plan_all
from learn.report.edits import MAX_BODY_CHARS, RuleEdit
from learn.report.proposal_lines import item_lines
from learn.report.prose import plain_prose
from learn.report.targets import TargetChoice, TargetError

TOO_LONG = "over the 2,000 of a command"


def body_of(chars: int) -> str:
    """A plain instruction of exactly `chars` characters as learn would write it."""
    step = "Update CHANGELOG.md for $ARGUMENTS, then open the release pull request. "
    text = (step * (chars // len(step) + 1))[: chars - 1].rstrip() + "."
    text += "." * (chars - len(text))
    assert len(plain_prose(text, one_line=False)) == chars
    return text


LONG = body_of(MAX_BODY_CHARS + 1)


def test_a_model_body_over_the_cap_is_asked_for_shorter_then_not_kept() -> None:
    answers = iter([LONG, INSTRUCTION])
    backend = ScriptedBackend(lambda req: {"commands": [
        {"id": 0, "description": "d", "body": next(answers)}]})
    result = write_commands([request()], backend=backend, model="m")
    assert [p.command_body for p in result.proposals] == [INSTRUCTION]
    assert len(backend.requests) == 2
    assert f"was {len(LONG):,} characters: keep it under 2,000" in backend.requests[1].user
    stubborn = writer(body=LONG)
    result = write_commands([request()], backend=stubborn, model="m")
    assert result.proposals[0].command_body is None and len(stubborn.requests) == 2
    assert TOO_LONG in result.failures[0] and "request:release-pr" in result.failures[0]
    # At the cap exactly it is a body like any other.
    [p] = write_commands([request()], backend=writer(body=body_of(MAX_BODY_CHARS)),
                         model="m").proposals
    assert p.command_body == body_of(MAX_BODY_CHARS)


def test_a_remembered_body_over_the_cap_is_not_reused() -> None:
    memory = InMemoryVerdictMemory()
    p = request()
    memory.record(memory_key(p), "command", load_prompt("command").version,
                  Verdict(True, LONG, "command", "project", 1.0), np.zeros(1, dtype=np.float32))
    backend = writer()
    result = write_commands([p], backend=backend, model="m", memory=memory)
    assert len(backend.requests) == 1 and result.reused == 0
    assert result.proposals[0].command_body == INSTRUCTION


def _repo(path: Path) -> Path:
    (path / ".git").mkdir(parents=True)
    return path


def _stored(project: Path, body: str) -> Proposal:
    quotes = tuple(Quote(s, "open a release PR", f"2026-03-2{i}T00:00:00+00:00", str(project))
                   for i, s in enumerate(("a", "b", "c")))
    return Proposal("request", "release-pr", "open a release PR", 3, 3, quotes[-1].at, quotes,
                    verdict=Verdict(True, "Open a release PR.", "git", "project", 0.9),
                    surface="command", command_body=body)


def _apply_stored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str,
                  *args: str) -> tuple[Path, Result]:
    """`learn apply --yes` of a request stored with `body` (as a shared store holds it)."""
    from learn.commands.apply import command
    from learn.store.feedback import FeedbackStore
    from learn.store.proposals import ProposalBook

    monkeypatch.setenv("LEARN_DATA_DIR", str(tmp_path / "data"))
    project = _repo(tmp_path / "shop")
    (tmp_path / "data").mkdir(exist_ok=True)
    with FeedbackStore.open(tmp_path / "data" / "learn.db") as store:
        ProposalBook(store).record([_stored(project, body)], run_id=None,
                                   fallback_project=str(project))
    return project, CliRunner().invoke(command, ["--project", str(project), "--yes", *args])


@pytest.mark.parametrize("agents", [(), ("--agents",)], ids=["claude", "codex"])
def test_a_stored_body_over_the_cap_is_not_written_and_the_person_is_told(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, agents: tuple[str, ...]) -> None:
    project, res = _apply_stored(tmp_path, monkeypatch, LONG + "\n\n" + LONG, *agents)
    assert res.output.startswith("refused request:release-pr: "), res.output
    assert f"its instruction is {2 * len(LONG) + 2:,} characters, {TOO_LONG}" in res.output
    assert not (project / ".claude" / "commands").exists()
    assert not (Path.home() / ".codex" / "prompts").exists()
    assert not (Path.home() / ".agents" / "skills").exists()


@pytest.mark.parametrize("agents", [(), ("--agents",)], ids=["claude", "codex"])
def test_a_stored_body_at_the_cap_is_written_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, agents: tuple[str, ...]) -> None:
    body = body_of(MAX_BODY_CHARS)
    project, res = _apply_stored(tmp_path, monkeypatch, body, *agents)
    assert res.exit_code == 0, res.output
    # Codex (no session says an older one): a skill (learn.report.codex_commands).
    written = (Path.home() / ".agents" / "skills" / "release-pr" / "SKILL.md" if agents
               else project / ".claude" / "commands" / "release-pr.md")
    assert f"\n---\n{body}\n\n<!-- learn request:release-pr" in written.read_text()


def test_an_edited_body_over_the_cap_is_refused(tmp_path: Path) -> None:
    project = _repo(tmp_path / "shop")
    p = _stored(project, INSTRUCTION)
    choice = TargetChoice(project, follow_quotes=True)
    assert edit_for(p, choice).body == INSTRUCTION
    with pytest.raises(TargetError, match=TOO_LONG):
        edit_for(p, choice, text=LONG, decision="edited")
    with pytest.raises(TargetError, match=TOO_LONG):
        edit_for(dataclasses.replace(p, command_body=LONG), choice)


def test_a_command_edit_over_the_cap_is_refused_by_its_plan(tmp_path: Path) -> None:
    """The file's own plan asks too: an edit made by any other way than edit_for."""
    project = _repo(tmp_path / "shop")
    target = project / ".claude" / "commands" / "release-pr.md"
    edit = RuleEdit(key="request:release-pr", text="Open a release PR", target=target,
                    form="command", project=project, body=LONG, provenance="3 sessions")
    [plan] = plan_all([edit])
    assert plan.refused is not None and TOO_LONG in plan.refused
    assert not plan.changed and not target.parent.exists()


def test_the_digest_says_beside_a_stored_body_that_it_is_too_long(tmp_path: Path) -> None:
    long = _stored(tmp_path, LONG)
    result = RunResult(proposals=(long,), funnel=Funnel(), usage=RunUsage())
    [line] = [x for x in item_lines(long, result) if "the command's instruction" in x]
    assert line.endswith(f"(its instruction is {len(LONG):,} characters, {TOO_LONG}; learn "
                         "does not write it (`learn apply --edit` to word it shorter))")
    short = _stored(tmp_path, INSTRUCTION)
    [line] = [x for x in item_lines(short, result) if "the command's instruction" in x]
    assert line == f"  - the command's instruction: {INSTRUCTION}"
