"""What a Codex rollout says about itself: that it is one, who wrote it, where it ran.

Shared by the lowering (`codex.rollout`) and discovery's head reads (`files.heads`),
which must agree on every era's shape without discovery paying for the
lowering's imports. Shapes studied in public repositories' rollouts and
readers, Codex 0.2x-0.14x:

- `session_meta.payload.source` is a string for a person's client ("cli",
  "vscode", "exec", "mcp") and an object for machinery: {"subagent": "review" |
  "compact" | ... | {"thread_spawn": {parent_thread_id, depth, agent_role, ...}}
  | {"other": name}} or {"internal": job}. 0.14x adds `thread_source:
  "subagent"`, and `session_id` naming the conversation beside `id` naming the
  file's own thread.
- Bare-era rollouts (up to about September 2025) have no session_meta: a header
  `{"id", "timestamp", "instructions", "git"?}` and a cwd found only in the
  injected `<environment_context>`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec

from learn.transcripts.claude.literals import CODEX_ENVIRONMENT_CONTEXT, CODEX_USER_INSTRUCTIONS

__all__ = [
    "INJECTED_PREFIXES",
    "environment_cwd",
    "is_codex",
    "subagent_kind",
    "subagent_parent",
]

_ANY = msgspec.json.Decoder()


def is_codex(buf: bytes, path: Path | None = None) -> bool:
    """Whether a buffer is a Codex rollout, sniffed from its first line."""
    if path is not None and path.name.startswith("rollout-") and (
        ".codex" in path.parts or path.name.endswith((".jsonl", ".jsonl.zst"))
    ):
        return True
    # Every file a listing reads is asked this, and a Claude Code file's first line can
    # be a 40 kB generated prompt: it is searched in place, copied only to be decoded
    # (a copy and a stripped copy of each first line were 0.8% of a first listing of
    # the tree bench home, py-spy).
    size = len(buf)
    start = 0
    while True:
        end = buf.find(b"\n", start)
        if end < 0:
            end = size
        # A line opening with "{" is not blank (nearly every first line): no copy to tell.
        if buf.startswith(b"{", start) or buf[start:end].strip():
            break
        if end == size:
            return False
        start = end + 1
    # Cheap reject before decoding a (possibly large) first line.
    if buf.find(b'"session_meta"', start, end) < 0 and buf.find(b'"instructions"', start, end) < 0:
        return False
    try:
        first = _ANY.decode(buf[start:end])
    except (msgspec.DecodeError, RecursionError):
        return False
    if not isinstance(first, dict):
        return False
    if first.get("type") == "session_meta":
        return True
    # The bare-era header: {"id", "timestamp", "instructions", "git"?}, no type.
    return "type" not in first and isinstance(first.get("id"), str) and "instructions" in first


def subagent_kind(payload: Mapping[str, Any]) -> str | None:
    """What kind of agent wrote this rollout, from its session_meta payload; None for a person.

    `source` is a string for a person's client ("cli", "vscode", "exec", "mcp")
    and an object for machinery: {"subagent": "review" | "compact" | ... |
    {"thread_spawn": {...}} | {"other": name}} or {"internal": job}. Newer
    clients also say `thread_source: "subagent"`.
    """
    source = payload.get("source")
    if isinstance(source, Mapping):
        for key in ("subagent", "internal"):
            if key in source:
                kind = source[key]
                if isinstance(kind, str):
                    return kind
                if isinstance(kind, Mapping) and kind:
                    inner = next(iter(kind))
                    value = kind[inner]
                    return value if inner == "other" and isinstance(value, str) else str(inner)
                return key
    if payload.get("thread_source") == "subagent":
        return "subagent"
    return None


def subagent_parent(payload: Mapping[str, Any]) -> str | None:
    """The session a subagent rollout was spawned from, when the meta names it."""
    source = payload.get("source")
    if isinstance(source, Mapping):
        sub = source.get("subagent")
        if isinstance(sub, Mapping):
            spawn = sub.get("thread_spawn")
            if isinstance(spawn, Mapping) and isinstance(spawn.get("parent_thread_id"), str):
                return str(spawn["parent_thread_id"])
    for key in ("parent_thread_id", "forked_from_id"):
        value = payload.get(key)
        if isinstance(value, str) and value:
            return value
    # 0.14x: `session_id` names the conversation, `id` the file's own thread.
    sid, own = payload.get("session_id"), payload.get("id")
    if isinstance(sid, str) and sid and sid != own:
        return sid
    return None


_CWD_TAG_RE = re.compile(r"<cwd>\s*(.*?)\s*</cwd>", re.S)
# Harness text a bare-era client sent in the user role (no user_message event
# existed to tell them apart): the environment block and AGENTS.md.
INJECTED_PREFIXES = (CODEX_ENVIRONMENT_CONTEXT, CODEX_USER_INSTRUCTIONS, "# AGENTS.md instructions")


def environment_cwd(text: str) -> str | None:
    """The cwd inside an `<environment_context>` block (bare-era rollouts carry it nowhere else)."""
    if CODEX_ENVIRONMENT_CONTEXT not in text:
        return None
    match = _CWD_TAG_RE.search(text)
    return match.group(1) if match and match.group(1) else None
