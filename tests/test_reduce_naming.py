"""Global naming through the real Anthropic SDK against the fake Messages server."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from _reduce_helpers import TOPICS, TopicEmbedder, cand, directive, items_of, section
from fakes.anthropic_server import FakeAnthropicServer, items_in
from fakes.http_server import RecordedRequest

from learn.models.anthropic_backend import AnthropicBackend
from learn.models.retry import RetryPolicy
from learn.reduce.memory import InMemoryLabelIndex
from learn.reduce.naming import batch_size_for, name_candidates, pack_batches

MODEL = "claude-sonnet-4-5"
# (256 overhead + 3 × 15) output tokens: batches of three items.
SMALL_BUDGET = 256 + 3 * 15


def topic_label(text: str) -> str:
    low = text.lower()
    for topic in TOPICS:
        if topic in low:
            return {"bun": "use-bun-not-npm", "push": "never-force-push"}.get(topic, f"about-{topic}-things")
    return "misc-other-point"


def by_topic(request: RecordedRequest) -> dict[str, Any]:
    return {"labels": [{"id": i, "label": topic_label(text)} for i, _, text in items_in(request.user_text)]}


@pytest.fixture
def fake() -> Iterator[FakeAnthropicServer]:
    with FakeAnthropicServer(responder=by_topic) as server:
        yield server


def backend_for(fake: FakeAnthropicServer, attempts: int = 2) -> AnthropicBackend:
    return AnthropicBackend(
        api_key="test-key", base_url=fake.base_url,
        retry=RetryPolicy(max_attempts=attempts, sleep=lambda s: None),
    )


BUN = ["use bun please", "we are on bun, not npm", "bun install, never npm install"]
PUSH = ["never force push", "do not force push to main", "no force push on shared branches"]


def mixed() -> list[Any]:
    # Interleaved on purpose: the pre-clustering must regroup them.
    return [directive(t) for pair in zip(BUN, PUSH, strict=True) for t in pair]


def test_batches_are_formed_from_clusters(fake: FakeAnthropicServer) -> None:
    cands = mixed()
    result = name_candidates(
        cands, embedder=TopicEmbedder(), backend=backend_for(fake), model=MODEL,
        threshold=0.5, max_output_tokens=SMALL_BUDGET,
    )
    assert len(fake.requests) == 2
    for req in fake.requests:
        assert req.tool_name == "assign_labels"
        texts = [t for _, _, t in items_in(req.user_text)]
        assert len(texts) == 3
        assert len({topic_label(t) for t in texts}) == 1, texts
    assert result.labels == tuple(topic_label(c.text) for c in cands)
    assert result.stats.calls == 2 and result.stats.fallbacks == 0
    assert result.stats.labels == 2
    assert result.stats.labels_per_candidate == pytest.approx(2 / 6)


def test_known_labels_offered_are_the_nearest_of_the_same_kind(fake: FakeAnthropicServer) -> None:
    emb = TopicEmbedder()
    index = InMemoryLabelIndex()
    index.add("use-bun-not-npm", "directive", emb.embed(["bun is our package manager"])[0])
    index.add("bun-request-label", "request", emb.embed(["bun bun"])[0])
    for i, topic in enumerate(["tests", "concise", "commit", "docs", "mock", "types"]):
        index.add(f"far-label-{i}", "directive", emb.embed([topic])[0])
    result = name_candidates(
        [directive(t) for t in BUN], embedder=emb, backend=backend_for(fake), model=MODEL,
        index=index, threshold=0.5,
    )
    (req,) = fake.requests
    known = section(req.user_text, "KNOWN LABELS")
    assert known[0] == "use-bun-not-npm"
    assert "bun-request-label" not in known
    # The nearest, not the whole vocabulary: unrelated labels are not offered.
    assert known == ["use-bun-not-npm"]
    assert req.user_text.index("KNOWN LABELS:") < req.user_text.index("ITEMS:")
    assert result.stats.known_reused == 1


def test_first_run_has_no_known_labels_section(fake: FakeAnthropicServer) -> None:
    name_candidates([directive(t) for t in BUN], embedder=TopicEmbedder(), backend=backend_for(fake),
                    model=MODEL, index=InMemoryLabelIndex())
    assert "KNOWN LABELS" not in fake.requests[0].user_text


def test_labels_coined_earlier_in_the_run_are_offered_to_later_batches(fake: FakeAnthropicServer) -> None:
    # Four bun items, batches of three: the cluster is split, and the second
    # half must be offered the label the first half got.
    cands = [directive(t) for t in [*BUN, "bun again"]]
    name_candidates(cands, embedder=TopicEmbedder(), backend=backend_for(fake), model=MODEL,
                    threshold=0.5, max_output_tokens=SMALL_BUDGET)
    assert len(fake.requests) == 2
    assert section(fake.requests[1].user_text, "KNOWN LABELS") == ["use-bun-not-npm"]


def test_server_error_falls_back_per_cluster_not_per_item(fake: FakeAnthropicServer) -> None:
    fake.enqueue_status(500, times=4)  # two attempts × two batches
    cands = mixed()
    result = name_candidates(
        cands, embedder=TopicEmbedder(), backend=backend_for(fake), model=MODEL,
        threshold=0.5, max_output_tokens=SMALL_BUDGET,
    )
    assert result.stats.failed_calls == 2
    assert result.stats.fallbacks == 6 and result.stats.unnamed_failed == 6
    bun = {label for c, label in zip(cands, result.labels, strict=True) if "bun" in c.text}
    push = {label for c, label in zip(cands, result.labels, strict=True) if "push" in c.text}
    assert bun and push and not bun & push
    assert len(set(result.labels)) < len(cands)  # never one slug per item
    assert all(len(label.split("-")) >= 2 for label in result.labels)
    assert any("fell back" in f for f in result.failures)
    # Fallback labels are this run's only: nothing for the index or the name cache.
    assert result.examples == () and result.named == ()


def test_server_error_falls_back_to_a_known_label_within_reach(fake: FakeAnthropicServer) -> None:
    fake.enqueue_status(500, times=2)
    emb = TopicEmbedder()
    index = InMemoryLabelIndex()
    index.add("use-bun-not-npm", "directive", emb.embed(["bun bun bun"])[0])
    result = name_candidates([directive(t) for t in BUN], embedder=emb, backend=backend_for(fake),
                             model=MODEL, index=index, threshold=0.5)
    assert set(result.labels) == {"use-bun-not-npm"}
    assert result.stats.fallbacks == 3


def test_truncated_answer_keeps_good_rows_and_asks_again_for_the_rest(
    fake: FakeAnthropicServer,
) -> None:
    # Cut twice: once at the first budget, again at the larger one it is retried with.
    for _ in range(2):
        fake.enqueue_truncated({"labels": [{"id": 0, "label": "use-bun-not-npm"}, {"id": 1, "label": "use-bun-no"}]})
    result = name_candidates([directive(t) for t in BUN], embedder=TopicEmbedder(), backend=backend_for(fake),
                             model=MODEL, threshold=0.5)
    assert result.stats.truncated_calls == 1
    # Row 1 may be cut mid-label: dropped; items 1 and 2 are asked again, alone,
    # with the label just given offered back.
    assert set(result.labels) == {"use-bun-not-npm"}
    assert result.stats.fallbacks == 0 and result.stats.calls == 2
    again = fake.requests[-1].user_text
    assert "use-bun-not-npm" in again.split("ITEMS:")[0] and len(items_in(again)) == 2


def test_invalid_labels_fall_back_and_valid_ones_are_normalised(fake: FakeAnthropicServer) -> None:
    # The same answer three times: the `"label": 7` row is sent back for repair
    # twice, then the whole rows are used and the rest falls back.
    for _ in range(3):
        fake.enqueue_answer({"labels": [
            {"id": 0, "label": "Use Bun, Not Npm!"},
            {"id": 1, "label": "testing"},  # one word names a topic, not a point
            {"id": 2, "label": 7},
            {"id": 9, "label": "out-of-range-id"},
        ]})
    result = name_candidates([directive(t) for t in BUN], embedder=TopicEmbedder(), backend=backend_for(fake),
                             model=MODEL, threshold=0.5)
    assert set(result.labels) == {"use-bun-not-npm"}
    # The two rows without a usable label are asked once more (the responder answers).
    assert result.stats.fallbacks == 0 and result.stats.calls == 2


def test_kinds_are_never_batched_or_labelled_together(fake: FakeAnthropicServer) -> None:
    cands = [directive("use bun"), cand("request", "use bun"), directive("bun only"), cand("request", "bun only")]
    result = name_candidates(cands, embedder=TopicEmbedder(), backend=backend_for(fake), model=MODEL)
    assert len(fake.requests) == 2
    for req in fake.requests:
        assert len({k for _, k, _ in items_of(req.user_text)}) == 1
    assert result.stats.unique_texts == 4
    # Same slug in two kinds is two labels: grouping is by (kind, label).
    assert result.stats.labels == 2


def test_identical_quotes_are_named_once_and_order_does_not_matter(fake: FakeAnthropicServer) -> None:
    texts = [*BUN, *PUSH, "Use  BUN please", "never force push"]

    def by_position(request: RecordedRequest) -> dict[str, Any]:
        # A label that depends on the item's position in the call: only a
        # canonical batch order makes the outcome independent of input order.
        return {"labels": [{"id": i, "label": f"group-number-{i % 2}"} for i, _, _ in items_in(request.user_text)]}

    fake.responder = by_position
    emb = TopicEmbedder()
    base = name_candidates([directive(t) for t in texts], embedder=emb, backend=backend_for(fake),
                           model=MODEL, threshold=0.5)
    expected = dict(zip(texts, base.labels, strict=True))
    assert expected["use bun please"] == expected["Use  BUN please"]
    assert base.stats.unique_texts == 6
    assert sum(len(items_in(r.user_text)) for r in fake.requests) == 6
    rng = random.Random(7)
    for _ in range(3):
        shuffled = texts[:]
        rng.shuffle(shuffled)
        again = name_candidates([directive(t) for t in shuffled], embedder=emb, backend=backend_for(fake),
                                model=MODEL, threshold=0.5)
        assert dict(zip(shuffled, again.labels, strict=True)) == expected


def test_offline_names_by_cluster_without_calls() -> None:
    result = name_candidates(mixed(), embedder=TopicEmbedder(), backend=None, model=MODEL, threshold=0.5)
    assert result.stats.calls == 0
    assert len(set(result.labels)) == 2


def test_remember_feeds_the_next_run_with_model_labels_only(fake: FakeAnthropicServer) -> None:
    emb = TopicEmbedder()
    index = InMemoryLabelIndex()
    # Offline: every label is a fallback one, used for this run and never remembered.
    offline = name_candidates([directive(t) for t in BUN], embedder=emb, backend=None, model=MODEL,
                              threshold=0.5, index=index)
    offline.remember(index)
    assert offline.examples == () and index.labels("directive") == set()
    first = name_candidates([directive(t) for t in BUN], embedder=emb, backend=backend_for(fake),
                            model=MODEL, threshold=0.5, index=index)
    first.remember(index)
    assert index.labels("directive") == {"use-bun-not-npm"}
    second = name_candidates([directive("bun, I said")], embedder=emb, backend=None, model=MODEL,
                             threshold=0.5, index=index)
    assert second.labels[0] == first.labels[0] == "use-bun-not-npm"
    assert second.stats.known_reused == 1


def test_batch_sizing_and_packing() -> None:
    assert batch_size_for(SMALL_BUDGET) == 3
    assert batch_size_for(64_000) == 60
    assert batch_size_for(10) == 1
    assert batch_size_for(2048, context_window=8192) == 34
    # Whole clusters stay together when they fit; a big one is split.
    assert pack_batches([[0, 1], [2], [3, 4, 5, 6, 7]], 3) == [[3, 4, 5], [6, 7, 2], [0, 1]]


def test_real_tfidf_embedder_groups_shared_wording(fake: FakeAnthropicServer) -> None:
    from learn.embed.tfidf import TfidfEmbedder

    fake.enqueue_status(500, times=2)
    cands = [directive(t) for t in ["never force push to main", "never force push to main branch",
                                    "write concise answers please"]]
    result = name_candidates(cands, embedder=TfidfEmbedder(), backend=backend_for(fake), model=MODEL)
    assert result.labels[0] == result.labels[1] != result.labels[2]


def test_minilm_fallback_groups_paraphrases_without_shared_words() -> None:
    from learn.embed import MINILM_NAME, get_embedder

    emb = get_embedder()
    if emb.name != MINILM_NAME:
        pytest.skip("MiniLM model not available")
    texts = ["use bun, not npm", "we use bun here, never npm install", "pnpm? no, bun",
             "never force push", "dont force-push to main"]
    result = name_candidates([directive(t) for t in texts], embedder=emb, backend=None, model=MODEL)
    assert len(set(result.labels[:3])) == 1
    assert len(set(result.labels[3:])) == 1
    assert result.labels[0] != result.labels[3]
