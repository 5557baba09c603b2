"""A command's body is an instruction the model writes from every quote of the group
(learn.reduce.commands): one call per batch, all quotes sent, a copied quote refused and
asked again, rejected requests never given one, bodies remembered until a quote is new."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from _reduce_helpers import ScriptedBackend, items_of
from fakes.anthropic_server import FakeAnthropicServer, items_in

from learn.models.anthropic_backend import AnthropicBackend
from learn.models.base import ModelRequest
from learn.models.retry import RetryPolicy
from learn.records.proposal import Proposal, Quote, Verdict
from learn.reduce.commands import copies_a_quote, write_commands
from learn.reduce.memory import InMemoryVerdictMemory
from learn.reduce.onepoint import requests_as_commands

ASKS = ("open a release PR with the changelog for the payments service",
        "can you do the release PR again, changelog first",
        "release PR please — and don't forget CHANGELOG.md this time")
INSTRUCTION = ("Open a release pull request for $ARGUMENTS: add the changes since the last "
               "release to CHANGELOG.md first, then open the PR against main.")


def request(label: str = "release-pr", asks: tuple[str, ...] = ASKS, *,
            accepted: bool = True, rationale: str = "") -> Proposal:
    quotes = tuple(Quote(f"s{i}", q, f"2026-03-0{i + 1}T00:00:00+00:00")
                   for i, q in enumerate(asks))
    return Proposal("request", label, max(asks, key=len), len(asks), len(asks), quotes[-1].at,
                    quotes, verdict=Verdict(accepted, "Open a release PR.", "git", "project", 0.85,
                                            rationale=rationale))


def writer(body: str = INSTRUCTION) -> ScriptedBackend:
    def answer(req: ModelRequest) -> Mapping[str, Any]:
        return {"commands": [{"id": i, "description": "Open a release PR", "body": body}
                             for i, _, _ in items_of(req.user)]}
    return ScriptedBackend(answer)


def test_a_group_of_differently_worded_asks_gets_one_instruction() -> None:
    backend = writer()
    [p] = write_commands([request()], backend=backend, model="m").proposals
    [req] = backend.requests
    assert req.tool.name == "write_commands"
    # Every ask is in the one item the model writes from.
    [(_, kind, item)] = items_of(req.user)
    assert kind == "request" and all(f'"{a}"' in item for a in ASKS)
    assert p.command_body == INSTRUCTION
    assert not copies_a_quote(INSTRUCTION, ASKS)


def test_a_body_that_copies_one_quote_is_asked_for_again_then_refused() -> None:
    answers = iter([ASKS[2], INSTRUCTION])
    backend = ScriptedBackend(lambda req: {"commands": [
        {"id": 0, "description": "d", "body": next(answers)}]})
    result = write_commands([request()], backend=backend, model="m")
    assert [p.command_body for p in result.proposals] == [INSTRUCTION]
    assert len(backend.requests) == 2 and "copied one quote" in backend.requests[1].user
    stubborn = writer(body=f"“{ASKS[0].capitalize()}.”")
    result = write_commands([request()], backend=stubborn, model="m")
    assert result.proposals[0].command_body is None
    assert "got no body of its own" in result.failures[0]


def test_a_rejected_request_is_no_command_and_gets_no_body() -> None:
    rejected = request("tidy-more-actions", ("check the old parser's date logic",) * 3,
                       accepted=False, rationale="只做一次的事")
    [p] = requests_as_commands([rejected], 3)
    assert p.surface is None and p.verdict is not None and not p.verdict.accepted
    backend = writer()
    assert write_commands([p], backend=backend, model="m").proposals[0].command_body is None
    assert backend.requests == []
    [accepted] = requests_as_commands([request()], 3)
    assert accepted.surface == "command"


def test_bodies_are_remembered_until_a_quote_is_new() -> None:
    memory = InMemoryVerdictMemory()
    first = writer()
    write_commands([request()], backend=first, model="m", memory=memory)
    again = writer(body="never asked")
    [p] = write_commands([request()], backend=again, model="m", memory=memory).proposals
    assert again.requests == [] and p.command_body == INSTRUCTION
    grown = request(asks=(*ASKS, "release PR for the web app, same as always"))
    [q] = write_commands([grown], backend=again, model="m", memory=memory).proposals
    assert len(again.requests) == 1 and q.command_body == "never asked"
    # Offline: no model, no body (apply then says it has none to write).
    [r] = write_commands([request("other")], backend=None, model="m", memory=memory).proposals
    assert r.command_body is None


def test_commands_through_the_sdk() -> None:
    def responder(req: Any) -> dict[str, Any]:
        return {"commands": [{"id": i, "description": "Open a release PR", "body": INSTRUCTION}
                             for i, _, _ in items_in(req.user_text)]}

    with FakeAnthropicServer(responder=responder) as fake:
        backend = AnthropicBackend(api_key="k", base_url=fake.base_url,
                                   retry=RetryPolicy(max_attempts=1, sleep=lambda s: None))
        [p] = write_commands([request()], backend=backend, model="claude-sonnet-4-5").proposals
        assert fake.requests[0].tool_name == "write_commands"
        assert "ITEMS:" in fake.requests[0].user_text
    # The body and the description written with it, nothing else of the proposal.
    assert dataclasses.replace(p, command_body=None, command_description=None) == request()
    assert (p.command_body, p.command_description) == (INSTRUCTION, "Open a release PR")


def test_the_digest_shows_the_instruction_and_keeps_the_quotes_as_evidence() -> None:
    from learn.records.proposal import Funnel, RunResult, RunUsage
    from learn.report.proposal_lines import item_lines

    [p] = requests_as_commands(write_commands([request()], backend=writer(), model="m").proposals, 3)
    text = "\n".join(item_lines(p, RunResult((p,), Funnel(), RunUsage())))
    assert f"the command's instruction: {INSTRUCTION}" in text
    assert ASKS[0] in text or ASKS[1] in text  # the asks are shown as what was said
    assert "a command, not a rule line" in text
