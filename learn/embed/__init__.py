"""Local, offline sentence embeddings: MiniLM int8 ONNX, or hashed char n-grams without a model.

Nothing here imports numpy, onnxruntime or tokenizers at import time; the CLI
imports this package on paths that never embed anything.
"""

from __future__ import annotations

import logging
from typing import Literal

from learn.embed.base import Embedder

log = logging.getLogger(__name__)

MINILM_NAME = "minilm-int8@1.0.0"
TFIDF_NAME = "tfidf-char-3-5@1"

# Cosine-distance thresholds for AgglomerativeClustering(linkage="average"), measured by
# benchmarks/paraphrase.py on 14 groups x 5 paraphrased directives + 8 look-alike decoys.
# MiniLM at 0.65: ARI 0.69 with decoys, 0.75 on the groups alone (V 0.90 / 0.92); its
# sweep best (0.74) merges one more decoy pair, and the feasibility probe found a wide
# good band (0.57-0.77). (With the wording penalty below it moves to 0.64.) Hashed n-grams only see shared letters, so
# paraphrases sit far apart and need a looser cut with a narrow band: 0.88 is the sweep
# best, ARI 0.58 with decoys, 0.67 on the groups alone. On plain cosine neither reaches
# 0.8 on this set; both merge the negation decoys ("add comments" vs "don't add comments").
CLUSTER_THRESHOLD: dict[str, float] = {
    MINILM_NAME: 0.64,
    TFIDF_NAME: 0.88,
}

# Wording penalty (negation, topic, number) added to the cosine distance before that
# cut; see learn/reduce/contrast.py. MiniLM at 0.65: ARI 0.69 -> 0.79 (V 0.90 -> 0.93),
# decoy pairs merged 7 -> 1 of 11, groups alone 0.75 -> 0.82; held out (groups halved,
# threshold and weights tuned on the other half) 0.72 -> 0.81. Its good band narrows
# to 0.62-0.66; the threshold is that sweep's best, 0.64 (ARI 0.81 on the whole set,
# which is optimistic since it was chosen there; the held-out 0.805, min 0.66 over
# 20 splits, is the estimate to quote). The weights sit mid-plateau: 0.2-0.4 each scored
# 0.75-0.82 at 0.62-0.65. The n-gram space gets none: its paraphrases are held
# together by shared words, which the penalty weighs against them (0.58 -> 0.50).
CLUSTER_CONTRAST: dict[str, tuple[float, float, float]] = {
    MINILM_NAME: (0.3, 0.3, 0.3),
    TFIDF_NAME: (0.0, 0.0, 0.0),
}

Prefer = Literal["minilm", "tfidf"]

_fallback_reason: str | None = None


def get_embedder(prefer: Prefer = "minilm") -> Embedder:
    """The preferred embedder, or the TF-IDF fallback with the reason logged.

    The reason is also kept in `fallback_reason()` so a run can report that its
    clustering was lexical only.
    """
    global _fallback_reason
    from learn.embed.tfidf import TfidfEmbedder

    if prefer == "tfidf":
        _fallback_reason = None
        return TfidfEmbedder()
    try:
        from learn.embed.minilm import EmbedderUnavailable, MiniLMEmbedder
    except ImportError as exc:  # pragma: no cover - minilm.py itself imports nothing heavy
        _fallback_reason = f"minilm module unavailable: {exc}"
    else:
        try:
            embedder = MiniLMEmbedder()
        except EmbedderUnavailable as exc:
            _fallback_reason = str(exc)
        else:
            _fallback_reason = None
            return embedder
    log.warning("embeddings: using %s instead of %s: %s", TFIDF_NAME, MINILM_NAME, _fallback_reason)
    return TfidfEmbedder()


def fallback_reason() -> str | None:
    """Why the last get_embedder(prefer="minilm") fell back, or None."""
    return _fallback_reason


__all__ = [
    "CLUSTER_CONTRAST",
    "CLUSTER_THRESHOLD",
    "MINILM_NAME",
    "TFIDF_NAME",
    "Embedder",
    "fallback_reason",
    "get_embedder",
]
