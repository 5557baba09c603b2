"""The dependency-free fallback embedder."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np

from learn.embed import CLUSTER_THRESHOLD, TFIDF_NAME, get_embedder
from learn.embed.tfidf import DIM, TfidfEmbedder, char_ngrams, normalise


def test_shape_dtype_and_unit_norm() -> None:
    v = TfidfEmbedder().embed(["use bun, not npm", "Ask before deleting files!", ""])
    assert v.shape == (3, DIM) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v[:2], axis=1), 1.0, atol=1e-6)
    assert not np.any(v[2])  # nothing to say: the zero vector, not NaN
    assert TfidfEmbedder().embed([]).shape == (0, DIM)


def test_paraphrases_are_closer_than_unrelated_sentences() -> None:
    v = TfidfEmbedder().embed([
        "run the tests before you commit",
        "make sure the test suite passes before committing",
        "keep your answers short",
    ])
    assert float(v[0] @ v[1]) > float(v[0] @ v[2]) + 0.2


def test_vectors_do_not_depend_on_the_batch_or_the_process() -> None:
    emb = TfidfEmbedder()
    alone = emb.embed(["never commit directly to main"])[0]
    batched = emb.embed(["something else entirely", "never commit directly to main"])[1]
    np.testing.assert_array_equal(alone, batched)
    # crc32, not the salted hash(): another process with another hash seed agrees
    code = ("from learn.embed.tfidf import TfidfEmbedder;import sys;"
            "sys.stdout.write(TfidfEmbedder().embed(['never commit directly to main'])[0]"
            ".tobytes().hex())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONHASHSEED": "12345"}).stdout
    np.testing.assert_array_equal(np.frombuffer(bytes.fromhex(out), dtype=np.float32), alone)


def test_normalise_keeps_negations_and_drops_function_words() -> None:
    assert normalise("Don't use the Black formatter, NOT ever") == [
        "dont", "use", "black", "formatter", "not", "ever"]
    grams = char_ngrams(["ok"])
    assert grams[" ok "] == 1 and grams[" ok"] == 1


def test_get_embedder_prefers_and_names() -> None:
    emb = get_embedder("tfidf")
    assert emb.name == TFIDF_NAME == "tfidf-char-3-5@1" and emb.dim == DIM
    assert TFIDF_NAME in CLUSTER_THRESHOLD
