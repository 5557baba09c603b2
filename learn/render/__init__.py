"""Render + chunk: a session as the miner reads it, redacted and cut on turn boundaries.

Names other than `redact` are imported on first use (PEP 562): `learn show` needs
only the redaction (`learn.render.redacted_view`), and importing the chunker, the
renderer and the spoken text with it was ~7 ms of its start (the chunker's regexes).
`redact` is learn.redaction's, named here as before for the renderers that read it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from learn.lazy import lazy_getattr
from learn.redaction.redact import redact

if TYPE_CHECKING:
    from learn.render.chunk import chunk_chars_for_model, chunk_transcript
    from learn.render.render import render_transcript
    from learn.render.spoken import spoken_text

__all__ = ["chunk_chars_for_model", "chunk_transcript", "redact", "render_transcript", "spoken_text"]

__getattr__ = lazy_getattr(__name__, {
    "chunk_chars_for_model": "learn.render.chunk",
    "chunk_transcript": "learn.render.chunk",
    "render_transcript": "learn.render.render",
    "spoken_text": "learn.render.spoken",
}, globals())
