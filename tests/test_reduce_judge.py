"""Judging: verdict parsing, memory reuse without calls, failure handling."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from _reduce_helpers import ScriptedBackend, TopicEmbedder, failing, items_of
from fakes.anthropic_server import FakeAnthropicServer, items_in

from learn.models.anthropic_backend import AnthropicBackend
from learn.models.base import ModelRequest
from learn.models.retry import RetryPolicy
from learn.prompts import load_prompt
from learn.records.proposal import Proposal, Quote
from learn.reduce.judge import judge_proposals
from learn.reduce.memory import InMemoryVerdictMemory


def prop(label: str, text: str, kind: str = "directive", **kw: Any) -> Proposal:
    quotes = (Quote("s1", text, "2026-01-02"), Quote("s2", "other words", "2026-01-01"))
    return Proposal(kind=kind, label=label, text=text, sessions=2, count=3,  # type: ignore[arg-type]
                    last_seen="2026-01-02T00:00:00Z", quotes=quotes, **kw)


def accept_all(request: ModelRequest) -> Mapping[str, Any]:
    return {"verdicts": [
        {"id": i, "accepted": "bun" in text, "category": "Tooling", "scope": "project",
         "confidence": 1.7, "summary": "Always " + text.split('"')[1], "rationale": "said twice",
         "canonical_key": "Use Bun, not npm!" if "bun" in text else "not a slug"}
        for i, _, text in items_of(request.user)
    ]}


def test_verdicts_are_parsed_and_recorded() -> None:
    memory = InMemoryVerdictMemory()
    backend = ScriptedBackend(accept_all)
    result = judge_proposals([prop("use-bun-not-npm", "use bun"), prop("fix-this-test", "fix this test")],
                             backend=backend, model="m", embedder=TopicEmbedder(), memory=memory)
    (req,) = backend.requests
    assert req.tool.name == "record_verdicts"
    # The item carries the evidence: counts, last date, other quotes.
    assert "said 3 times in 2 sessions" in req.user and '"other words"' in req.user
    bun, fix = result.proposals
    assert bun.verdict is not None and fix.verdict is not None
    assert bun.verdict.accepted and not fix.verdict.accepted
    assert bun.verdict.confidence == 1.0  # clamped
    assert bun.verdict.category == "tooling"
    assert bun.verdict.canonical_key == "use-bun-not-npm"
    assert fix.verdict.canonical_key == "not-a-slug"
    assert not bun.verdict.reused and bun.verdict.model == "scripted-model"
    assert (result.judged, result.reused, result.calls, result.unjudged) == (2, 0, 1, ())
    assert memory.get("directive:use-bun-not-npm", "judge", load_prompt("judge").version) == bun.verdict


def test_a_judged_proposal_is_reused_without_a_call() -> None:
    memory = InMemoryVerdictMemory()
    emb = TopicEmbedder()
    judge_proposals([prop("use-bun-not-npm", "use bun")], backend=ScriptedBackend(accept_all), model="m",
                    embedder=emb, memory=memory)
    again = ScriptedBackend(accept_all)
    result = judge_proposals(
        [
            prop("use-bun-not-npm", "use bun, longer quote now"),  # same key
            prop("bun-over-npm-always", "use bun"),  # same vector, new label
            prop("use-bun-not-npm", "unrelated words", kind="request"),  # other kind: judged afresh
        ],
        backend=again, model="m", embedder=emb, memory=memory,
    )
    assert [p.verdict is not None and p.verdict.reused for p in result.proposals] == [True, True, False]
    assert result.reused == 2 and result.judged == 1
    (req,) = again.requests
    assert [k for _, k, _ in items_of(req.user)] == ["request"]


def test_a_near_verdict_whose_wording_disagrees_is_not_reused() -> None:
    memory = InMemoryVerdictMemory()
    emb = TopicEmbedder()
    judge_proposals([prop("add-comments", "add comments to the code")], backend=ScriptedBackend(accept_all),
                    model="m", embedder=emb, memory=memory)
    again = ScriptedBackend(accept_all)
    # Same canonical key and nearly the same vector, but the negation is flipped:
    # judged afresh, never handed the opposite rule's verdict.
    result = judge_proposals([prop("add-comments-to-the-code", "don't add comments to the code")],
                             backend=again, model="m", embedder=emb, memory=memory)
    assert len(again.requests) == 1
    verdict = result.proposals[0].verdict
    assert verdict is not None and not verdict.reused and result.reused == 0


def test_a_reused_verdict_is_not_recorded_as_a_fresh_one() -> None:
    memory = InMemoryVerdictMemory()
    emb = TopicEmbedder()
    judge_proposals([prop("use-bun-not-npm", "use bun")], backend=ScriptedBackend(accept_all), model="m",
                    embedder=emb, memory=memory)
    result = judge_proposals([prop("bun-over-npm-always", "use bun")], backend=ScriptedBackend(accept_all),
                             model="m", embedder=emb, memory=memory)
    verdict = result.proposals[0].verdict
    assert verdict is not None and verdict.reused
    version = load_prompt("judge").version
    assert memory.get("directive:bun-over-npm-always", "judge", version) is None


def test_canonical_key_matching_the_label_reuses_the_verdict() -> None:
    memory = InMemoryVerdictMemory()
    emb = TopicEmbedder()
    judge_proposals([prop("some-old-label", "use bun")], backend=ScriptedBackend(accept_all), model="m",
                    embedder=emb, memory=memory)
    again = ScriptedBackend(accept_all)
    result = judge_proposals([prop("use-bun-not-npm", "mock docs commit")], backend=again, model="m",
                             embedder=emb, memory=memory)
    assert again.requests == []
    verdict = result.proposals[0].verdict
    assert verdict is not None and verdict.reused and verdict.canonical_key == "use-bun-not-npm"


def test_a_new_prompt_version_judges_again() -> None:
    memory = InMemoryVerdictMemory()
    emb = TopicEmbedder()
    judge_proposals([prop("use-bun-not-npm", "use bun")], backend=ScriptedBackend(accept_all), model="m",
                    embedder=emb, memory=memory)
    again = ScriptedBackend(accept_all)
    judge_proposals([prop("use-bun-not-npm", "use bun")], backend=again, model="m", embedder=emb,
                    memory=memory, prompt_version=load_prompt("judge").version + 1)
    assert len(again.requests) == 1


def test_a_failed_call_leaves_verdicts_empty_and_is_reported() -> None:
    memory = InMemoryVerdictMemory()
    result = judge_proposals([prop("use-bun-not-npm", "use bun")], backend=ScriptedBackend(failing), model="m",
                             embedder=TopicEmbedder(), memory=memory)
    assert result.proposals[0].verdict is None
    assert result.unjudged == ("directive:use-bun-not-npm",)
    assert result.failures and memory.rows == {}


def test_skipped_rows_are_asked_once_more_and_what_stays_missing_is_unjudged() -> None:
    def partial(request: ModelRequest) -> Mapping[str, Any]:
        return {"verdicts": [
            {"id": 0, "accepted": True, "category": "git", "scope": "user", "confidence": 0.9,
             "summary": "Never force push.", "rationale": "r"},
            {"id": 1, "accepted": True, "category": "git", "scope": "team", "confidence": 0.9,
             "summary": "x", "rationale": "r"},
        ]}

    backend = ScriptedBackend(partial)
    result = judge_proposals(
        [prop("never-force-push", "never force push"), prop("use-bun-not-npm", "use bun"),
         prop("be-concise-please", "be concise")],
        backend=backend, model="m", embedder=TopicEmbedder(),
    )
    # The two skipped are asked once more, alone: the second answer judges one
    # (its id 0) and again gives the other an invalid row; that one stays unjudged.
    # (Each call may also be repaired first: the invalid row is sent back twice.)
    assert len(items_of(backend.requests[0].user)) == 3 and len(items_of(backend.requests[-1].user)) == 2
    assert [p.verdict is not None for p in result.proposals] == [True, True, False]
    assert result.unjudged == ("directive:be-concise-please",)


def test_judge_through_the_sdk() -> None:
    def responder(request: Any) -> dict[str, Any]:
        return {"verdicts": [
            {"id": i, "accepted": True, "category": "git", "scope": "user", "confidence": 0.8,
             "summary": "Never force push.", "rationale": "r", "canonical_key": "never-force-push"}
            for i, _, _ in items_in(request.user_text)
        ]}

    with FakeAnthropicServer(responder=responder) as fake:
        backend = AnthropicBackend(api_key="k", base_url=fake.base_url,
                                   retry=RetryPolicy(max_attempts=1, sleep=lambda s: None))
        result = judge_proposals([prop("never-force-push", "never force push")], backend=backend,
                                 model="claude-sonnet-4-5", embedder=TopicEmbedder())
        assert fake.requests[0].tool_name == "record_verdicts"
    verdict = result.proposals[0].verdict
    assert verdict is not None and verdict.summary == "Never force push." and verdict.scope == "user"
