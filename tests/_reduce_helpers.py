"""Shared builders for the reduce tests: a deterministic embedder and a scripted backend."""

from __future__ import annotations

import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from learn.models.base import CallUsage, ModelError, ModelRequest, ModelResponse
from learn.records.candidate import CandidateKind, MinedCandidate, SessionCandidates

# Each topic word owns one dimension: texts that mention the same topic are
# near (cosine distance ~0.01), different topics are orthogonal (distance ~1).
TOPICS = ("bun", "push", "tests", "concise", "commit", "docs", "mock", "types")


class TopicEmbedder:
    name = "topic-test@1"
    dim = len(TOPICS) + 16

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            low = text.lower()
            for i, topic in enumerate(TOPICS):
                if topic in low:
                    out[row, i] = 1.0
            # A small text-specific component so distinct texts are not identical.
            out[row, len(TOPICS) + zlib.crc32(low.encode()) % 16] += 0.15
            out[row] /= np.linalg.norm(out[row])
        return out


def directive(text: str, **kw: Any) -> MinedCandidate:
    return MinedCandidate(kind="directive", text=text, **kw)


def cand(kind: CandidateKind, text: str, **kw: Any) -> MinedCandidate:
    return MinedCandidate(kind=kind, text=text, **kw)


def session(sid: str, at: str | None, *cands: MinedCandidate, project: str | None = "/p") -> SessionCandidates:
    return SessionCandidates(session_id=sid, provider="claude", project=project, last_activity=at, candidates=cands)


@dataclass
class ScriptedBackend:
    """An in-process Backend: `answer(request) -> tool input`, or raise ModelError."""

    answer: Callable[[ModelRequest], Mapping[str, Any]]
    name: str = "scripted"
    requests: list[ModelRequest] = field(default_factory=list)
    stop_reason: str | None = "tool_use"

    def call(self, request: ModelRequest) -> ModelResponse:
        self.requests.append(request)
        return ModelResponse(
            tool_input=self.answer(request), model="scripted-model",
            usage=CallUsage(input_tokens=10, output_tokens=5, calls=1), stop_reason=self.stop_reason,
        )


def failing(request: ModelRequest) -> Mapping[str, Any]:
    raise ModelError("boom")


def items_of(user: str) -> list[tuple[int, str, str]]:
    _, _, tail = user.partition("ITEMS:\n")
    out = []
    for line in tail.splitlines():
        num, _, rest = line.partition(". [")
        kind, _, text = rest.partition("] ")
        out.append((int(num), kind, text))
    return out


def section(user: str, heading: str) -> list[str]:
    """The lines of a numbered section (without their numbers), [] if absent."""
    head, _sep, _ = user.partition("ITEMS:\n")
    lines = head.splitlines()
    if f"{heading}:" not in lines:
        return []
    out: list[str] = []
    for line in lines[lines.index(f"{heading}:") + 1 :]:
        if not line.strip():
            break
        out.append(line.split(". ", 1)[1])
    return out
