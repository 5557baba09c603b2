"""Recorded model answers: replay them offline, or record them from a real backend.

Answers are keyed on the tool name and the user message only, never on the
system prompt or the model. Editing a prompt or switching models must not
orphan every fixture in `cache/` and every eval; when a prompt change should
invalidate answers, re-record with `--record`. The user message is what the
answer is *about* (the chunk, the items), so it is the part that must match.

One JSON file per answer, `<dir>/<tool>/<key[:2]>/<key>.json`, pretty-printed
with sorted keys so a re-recorded fixture diffs cleanly in review.

Replayed usage keeps the recorded token counts (a demo still shows how big the
calls are) but costs 0: nothing was paid for this run.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from learn.models.base import (
    Backend,
    CallUsage,
    ModelError,
    ModelRequest,
    ModelResponse,
    ReplayMissError,
)
from learn.paths import atomic_write_text, ensure_private_dir

USER_EXCERPT_CHARS = 200


def replay_key(tool_name: str, user: str) -> str:
    return hashlib.sha256(f"{tool_name}\0{user}".encode()).hexdigest()


def answer_path(cache_dir: Path, tool_name: str, key: str) -> Path:
    return cache_dir / tool_name / key[:2] / f"{key}.json"


def _usage_json(usage: CallUsage) -> dict[str, Any]:
    return {
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cache_read_tokens": usage.cache_read_tokens,
        "cache_write_tokens": usage.cache_write_tokens,
        "cost_usd": usage.cost_usd,
    }


def _prompt_tag(system: str) -> str | None:
    """"<step>.v<N>" of the prompt `system` is, or None for a prompt not on file."""
    from learn.prompts import identify

    found = identify(system)
    return None if found is None else f"{found[0]}.v{found[1]}"


def stale_prompt(cache_dir: Path, request: ModelRequest) -> str | None:
    """Why the recording answering `request` was made with other prompts, or None
    when it was made with the current ones (or there is no recording)."""
    key = replay_key(request.tool.name, request.user)
    try:
        record = json.loads(answer_path(cache_dir, request.tool.name, key).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    current = _prompt_tag(request.system)
    recorded = record.get("prompt") if isinstance(record, dict) else None
    if recorded == current:
        return None
    return f"recorded with {recorded or 'an unrecorded prompt version'}, running with {current or 'an unknown prompt'}"


def write_answer(cache_dir: Path, request: ModelRequest, response: ModelResponse) -> Path:
    """Store `response` as the answer to `request`; returns the file written."""
    key = replay_key(request.tool.name, request.user)
    path = answer_path(cache_dir, request.tool.name, key)
    record = {
        "tool": request.tool.name,
        "key": key,
        "user_excerpt": request.user[:USER_EXCERPT_CHARS],
        "tool_input": dict(response.tool_input),
        "model": response.model,
        "stop_reason": response.stop_reason,
        "usage": _usage_json(response.usage),
        "prompt": _prompt_tag(request.system),
    }
    for directory in (cache_dir, path.parent.parent, path.parent):
        ensure_private_dir(directory)
    atomic_write_text(path, json.dumps(record, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    return path


def read_answer(cache_dir: Path, request: ModelRequest) -> ModelResponse:
    """The recorded answer to `request`; ReplayMissError when there is none."""
    key = replay_key(request.tool.name, request.user)
    path = answer_path(cache_dir, request.tool.name, key)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ReplayMissError(key, request.tool.name) from None
    except OSError as exc:
        raise ModelError(f"replay: cannot read {path}: {exc}") from exc
    try:
        record = json.loads(text)
    except ValueError as exc:
        raise ModelError(f"replay: {path} is not valid JSON ({exc})") from exc
    tool_input = record.get("tool_input") if isinstance(record, dict) else None
    if not isinstance(tool_input, dict):
        raise ModelError(f"replay: {path} has no tool_input object")
    usage = record.get("usage") if isinstance(record.get("usage"), dict) else {}
    return ModelResponse(
        # Returned exactly as recorded, even when it would fail validation:
        # hand-written malformed answers are how evals exercise the fallbacks.
        tool_input=tool_input,
        model=str(record.get("model") or request.model),
        usage=CallUsage(
            int(usage.get("input_tokens") or 0),
            int(usage.get("output_tokens") or 0),
            int(usage.get("cache_read_tokens") or 0),
            int(usage.get("cache_write_tokens") or 0),
            0.0,
            1,
        ),
        stop_reason=record.get("stop_reason"),
    )


class ReplayBackend:
    """`Backend` answering only from recorded files; a miss is a `ReplayMissError`."""

    name = "replay"

    def __init__(self, cache_dir: Path) -> None:
        self.cache_dir = Path(cache_dir)
        # tool -> why its replayed answers were recorded with other prompts.
        self.stale_prompts: dict[str, str] = {}

    def call(self, request: ModelRequest) -> ModelResponse:
        response = read_answer(self.cache_dir, request)
        if request.tool.name not in self.stale_prompts:
            why = stale_prompt(self.cache_dir, request)
            if why is not None:
                self.stale_prompts[request.tool.name] = why
        return response


class RecordingBackend:
    """Answers from the recording when there is one, else asks `inner` and records.

    Filling only the misses makes `--record` resumable and cheap to re-run:
    an interrupted recording pays again only for what it had not finished.
    `overwrite=True` re-asks everything. Failures (ModelError) and answers cut
    at max_tokens are never recorded; a malformed-but-delivered answer is,
    since it is what the model said and the caller's validation decides what to
    do with it, and the repaired answer the caller then asks for replaces it.
    """

    def __init__(self, inner: Backend, cache_dir: Path, *, overwrite: bool = False) -> None:
        self.inner = inner
        self.cache_dir = Path(cache_dir)
        self.overwrite = overwrite
        self.name = f"record:{inner.name}"

    def call(self, request: ModelRequest) -> ModelResponse:
        # A request carrying corrections follows an answer that failed its
        # schema: that answer is the recording, so asking it again would
        # replay the same mistake. The repaired answer replaces it.
        if not self.overwrite and not request.corrections:
            try:
                return read_answer(self.cache_dir, request)
            except ModelError:
                pass  # a miss, or an unreadable recording: ask again and replace it
        response = self.inner.call(request)
        # A cut answer is never recorded: the retry with a larger budget is.
        if response.stop_reason != "max_tokens":
            write_answer(self.cache_dir, request, response)
        return response
