"""Render + chunk: a session as the miner reads it, redacted and cut on turn boundaries."""

from learn.render.chunk import chunk_chars_for_model, chunk_transcript
from learn.render.redact import redact
from learn.render.render import render_transcript
from learn.render.spoken import spoken_text

__all__ = ["chunk_chars_for_model", "chunk_transcript", "redact", "render_transcript", "spoken_text"]
