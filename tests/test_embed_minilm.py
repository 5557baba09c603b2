"""The MiniLM int8 ONNX embedder and the fallback when it cannot load."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

import learn.embed
import learn.embed.minilm as minilm
from learn.embed import CLUSTER_THRESHOLD, MINILM_NAME, TFIDF_NAME, get_embedder
from learn.embed.minilm import EmbedderUnavailable, MiniLMEmbedder


@pytest.fixture(scope="module")
def emb() -> MiniLMEmbedder:
    return MiniLMEmbedder()


def test_shape_dtype_and_unit_norm(emb: MiniLMEmbedder) -> None:
    v = emb.embed(["use bun, not npm", "a much longer sentence " * 80, ""])
    assert (emb.name, emb.dim) == (MINILM_NAME, 384)
    assert v.shape == (3, 384) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert emb.embed([]).shape == (0, 384)


def test_padding_does_not_change_a_vector(emb: MiniLMEmbedder) -> None:
    # mean pooling must ignore [PAD]: a short text embedded next to a long one
    # (padded to the long one's length) gets the same vector as alone
    alone = emb.embed(["never commit directly to main"])[0]
    padded = emb.embed(["never commit directly to main", "word " * 200])[0]
    np.testing.assert_allclose(alone, padded, atol=1e-4)


def test_paraphrases_are_closer_than_look_alikes(emb: MiniLMEmbedder) -> None:
    v = emb.embed([
        "keep your answers short",
        "too verbose, just give me the gist",
        "ask me before deleting any files",
        "never remove files without my confirmation",
    ])
    assert float(v[0] @ v[1]) > float(v[0] @ v[2]) + 0.1
    assert float(v[2] @ v[3]) > float(v[2] @ v[1]) + 0.2


def test_batches_larger_than_the_batch_size(emb: MiniLMEmbedder) -> None:
    texts = [f"sentence number {i}" for i in range(70)]
    v = emb.embed(texts)
    np.testing.assert_allclose(v[65], emb.embed([texts[65]])[0], atol=1e-4)


def test_checksum_mismatch_falls_back_to_tfidf_with_a_reason(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(minilm, "ONNX_SHA256", "0" * 64)
    with caplog.at_level(logging.WARNING, logger="learn.embed"):
        e = get_embedder()
    assert e.name == TFIDF_NAME
    reason = learn.embed.fallback_reason()
    assert reason is not None and "sha256" in reason
    assert "sha256" in caplog.text


def test_missing_model_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(EmbedderUnavailable, match="not found"):
        MiniLMEmbedder(model_path=tmp_path / "absent.onnx")


def test_get_embedder_loads_minilm_when_available() -> None:
    e = get_embedder()
    assert e.name == MINILM_NAME and learn.embed.fallback_reason() is None
    assert CLUSTER_THRESHOLD[MINILM_NAME] == 0.64
