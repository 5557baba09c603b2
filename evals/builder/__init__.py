"""Write realistic Claude Code and Codex transcripts from a short script.

The demo and the eval corpora are authored with this, not copied from anyone's
disk: each session is a few lines of Python that say what the person typed and
what the agent did, and the builder writes the JSONL exactly as the current
clients do (Claude Code 2.x field names; Codex rollout `{timestamp, type,
payload}` lines). Everything is deterministic (uuids derive from the session id
and a counter, times from a start time), so a rebuilt corpus is byte-identical
and the replay fixtures recorded against it stay valid.
"""

from evals.builder.claude import (
    COMPACT_SUMMARY,
    DENIAL_BARE,
    DENIAL_FULL,
    DENIAL_PREFIX,
    INTERRUPT,
    INTERRUPT_TOOL,
    ClaudeSession,
)
from evals.builder.codex import CodexSession
from evals.builder.common import encode_cwd, fresh_root, session_id

__all__ = [
    "COMPACT_SUMMARY",
    "DENIAL_BARE",
    "DENIAL_FULL",
    "DENIAL_PREFIX",
    "INTERRUPT",
    "INTERRUPT_TOOL",
    "ClaudeSession",
    "CodexSession",
    "encode_cwd",
    "fresh_root",
    "session_id",
]
