"""Slugs and pre-clustering."""

from __future__ import annotations

import numpy as np
from _reduce_helpers import TopicEmbedder
from hypothesis import given
from hypothesis import strategies as st

from learn.reduce.cluster import cluster_ids, medoid, threshold_for
from learn.reduce.slug import (
    SLUG_PATTERN,
    canonical_slug,
    fallback_slug,
    normalize_label,
)
from learn.textfold import fold


def test_normalize_label() -> None:
    assert normalize_label("Use Bun, Not Npm!") == "use-bun-not-npm"
    assert normalize_label("  --never__force   push-- ") == "never-force-push"
    assert normalize_label("one two three four five six seven") == "one-two-three-four-five"
    assert normalize_label("testing") is None
    assert normalize_label("!!!") is None
    assert normalize_label("") is None
    long = normalize_label("a" * 50 + " " + "b" * 50)
    assert long is not None and len(long) <= 60


def test_canonical_slug_allows_six_words() -> None:
    assert canonical_slug("Use UV, not pip!") == "use-uv-not-pip"
    assert canonical_slug("a b c d e f g") == "a-b-c-d-e-f"
    assert canonical_slug(None) is None and canonical_slug("x") is None


def test_fallback_slug() -> None:
    assert fallback_slug("Please always use bun", "directive") == "always-use-bun"
    assert fallback_slug("ok", "directive") == "ok-directive"
    assert fallback_slug("!!!", "fix").startswith("fix-")
    assert fallback_slug("日本語で書いて", "directive") != fallback_slug("テストを先に", "directive")


@given(st.text(max_size=200))
def test_labels_are_valid_slugs_or_none(raw: str) -> None:
    label = normalize_label(raw)
    assert label is None or (SLUG_PATTERN.match(label) and len(label) <= 60 and label.count("-") <= 4)
    assert SLUG_PATTERN.match(fallback_slug(raw, "request"))


def test_fold_makes_case_and_whitespace_variants_one_key() -> None:
    assert fold("  Use\n BUN  ") == fold("use bun")


def test_clusters_follow_topics_and_are_numbered_by_first_appearance() -> None:
    emb = TopicEmbedder()
    vectors = emb.embed(["use bun", "never force push", "bun please", "force push no", "be concise"])
    assert cluster_ids(vectors, 0.5) == [0, 1, 0, 1, 2]
    assert cluster_ids(vectors[:1], 0.5) == [0]
    assert cluster_ids(np.zeros((0, emb.dim), dtype=np.float32), 0.5) == []


def test_medoid_is_the_most_central_member() -> None:
    v = np.array([[1, 0], [0.8, 0.6], [0.6, 0.8]], dtype=np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    assert medoid([0, 1, 2], v) == 1


def test_threshold_per_embedder() -> None:
    from learn.embed.tfidf import TfidfEmbedder

    assert threshold_for(TfidfEmbedder()) == 0.88
    assert threshold_for(TopicEmbedder()) == 0.65


def test_fallback_slug_folds_contractions_and_keeps_negations() -> None:
    from learn.reduce.slug import fallback_slug

    assert fallback_slug("don't mock the database in tests", "directive") == "dont-mock-database-tests"
    assert fallback_slug("we're on bun now, not npm", "directive") == "bun-not-npm"
    # "do" and "don't" must not fall back to the same label.
    assert fallback_slug("do mock the database", "directive") != fallback_slug(
        "don't mock the database", "directive")


def test_labels_are_ascii_in_every_language() -> None:
    assert fallback_slug("Keine neue Abhängigkeit für den Export", "directive") == (
        "keine-neue-abhangigkeit-fur-den"
    )
    assert fallback_slug("Не используй моки в тестах", "directive") == "ne-ispolzuy-moki-v-testakh"
    assert normalize_label("Straße sperren") == "strasse-sperren"
    # Chinese has no short transliteration: its ASCII words and a digest, never a bare
    # "pdf-directive" that every Chinese quote naming PDF would share.
    one = fallback_slug("导出 PDF 不要加新的依赖", "directive")
    two = fallback_slug("PDF 导出要快一点", "directive")
    assert one.startswith("pdf-") and two.startswith("pdf-") and one != two
    assert SLUG_PATTERN.match(one)
