"""The embedding contract: text in, L2-normalised float32 vectors out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt


class Embedder(Protocol):
    # Stable identity of the vector space ("minilm-int8@1.0.0", "tfidf-char-3-5@1").
    # Vectors from different spaces are never compared; the store keys cached
    # vectors on (name, sha256(text)).
    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Return an array of shape (len(texts), dim), each row L2-normalised."""
        ...
