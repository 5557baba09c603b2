"""The reduce stage end to end with a scripted backend, and tolerant answer parsing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from _reduce_helpers import ScriptedBackend, TopicEmbedder, directive, failing, items_of, session

from learn.models.base import ModelRequest
from learn.records.proposal import Funnel
from learn.reduce.answers import recover_rows, rows_of
from learn.reduce.memory import InMemoryLabelIndex, InMemoryShownState, InMemoryVerdictMemory
from learn.reduce.rules import RuleCorpus, RuleLine
from learn.reduce.stage import reduce_sessions, shown_records

MODELS = {"name": "m", "coverage": "m", "judge": "m", "mine": "m"}


def answer(request: ModelRequest) -> Mapping[str, Any]:
    items = items_of(request.user)
    if request.tool.name == "assign_labels":
        # A stringified array, as some models send it.
        import json

        def label(t: str) -> str:
            return "use-bun-not-npm" if "bun" in t else "never-force-push" if "push" in t else "write-concise-docs"

        rows = [{"id": i, "label": label(t)} for i, _, t in items]
        return {"labels": json.dumps(rows)}
    if request.tool.name == "check_coverage":
        return {"verdicts": [{"id": i, "verdict": "rule", "rule_index": 0} for i, _, t in items if "push" in t]}
    return {"verdicts": [
        {"id": i, "accepted": True, "category": "tooling", "scope": "project", "confidence": 0.9,
         "summary": "Use bun, not npm.", "rationale": "r", "canonical_key": "use-bun-not-npm"}
        for i, _, _ in items
    ]}


def sessions() -> list[Any]:
    return [
        session("a", "2026-01-01T00:00:00Z", directive("use bun"), directive("never force push")),
        session("b", "2026-01-02T00:00:00Z", directive("bun, not npm"), directive("no force push please")),
        session("c", "2026-01-03T00:00:00Z", directive("write concise docs")),
    ]


def test_end_to_end() -> None:
    backend = ScriptedBackend(answer)
    index, memory, state = InMemoryLabelIndex(), InMemoryVerdictMemory(), InMemoryShownState()
    corpus = RuleCorpus(rules=(RuleLine("/r/AGENTS.md", ("Git",), "Never force-push."),))
    out = reduce_sessions(sessions(), embedder=TopicEmbedder(), backend=backend, models=MODELS,
                          label_index=index, verdicts=memory, shown_state=state, corpus=corpus)
    assert out.funnel == Funnel(candidates=5, points=3, over_threshold=2, shown=2, below_threshold=1)
    by_label = {p.label: p for p in out.proposals}
    assert set(by_label) == {"use-bun-not-npm", "never-force-push"}
    assert by_label["never-force-push"].status == "restated"
    assert by_label["never-force-push"].existing_rule_file == "/r/AGENTS.md"
    assert all(p.verdict is not None for p in out.proposals)
    assert out.may_write_state and out.naming.fallbacks == 0
    # Labels were remembered, below-threshold ones too.
    assert "use-bun-not-npm" in index.labels("directive") and len(index.labels("directive")) == 3

    for key, record in shown_records(out.proposals, "2026-01-05T00:00:00Z").items():
        state.put(key, record)
    again = reduce_sessions(sessions(), embedder=TopicEmbedder(), backend=ScriptedBackend(answer),
                            models=MODELS, label_index=index, verdicts=memory, shown_state=state, corpus=corpus)
    assert again.funnel.held_back == 2 and again.proposals == ()


def test_offline_and_failed_coverage() -> None:
    corpus = RuleCorpus(rules=(RuleLine("/r/AGENTS.md", (), "x y"),))
    off = reduce_sessions(sessions(), embedder=TopicEmbedder(), backend=None, models=MODELS, corpus=corpus)
    assert off.funnel.shown == 2 and off.naming.calls == 0
    assert all(p.verdict is None for p in off.proposals)

    def labels_then_fail(request: ModelRequest) -> Mapping[str, Any]:
        if request.tool.name == "assign_labels":
            return answer(request)
        return failing(request)

    bad = reduce_sessions(sessions(), embedder=TopicEmbedder(), backend=ScriptedBackend(labels_then_fail),
                          models=MODELS, corpus=corpus)
    assert bad.coverage_failed and not bad.may_write_state
    assert all(p.status == "new" and p.verdict is None for p in bad.proposals)
    assert len(bad.failures) == 2


def test_rows_of_is_tolerant() -> None:
    assert rows_of([{"id": 1}]) == [{"id": 1}]
    assert rows_of('[{"id": 1}, {"id": 2}]') == [{"id": 1}, {"id": 2}]
    assert rows_of('[{"id": 1, "label": "a-b"}, {"id": 2, "lab') == [{"id": 1, "label": "a-b"}]
    assert rows_of({"id": 3}) == [{"id": 3}]
    assert rows_of(None) == [] and rows_of("nonsense") == []
    assert recover_rows("no array") == []
