"""The id aliases of the event model (`learn.transcripts.models`).
"""

from __future__ import annotations

from typing import Final, Literal, TypeAlias

# Ids are plain strings at run time. NewType would force a call per field on the
# hot path and make every caller wrap literals; the aliases document intent.
EventUuid: TypeAlias = str
SessionId: TypeAlias = str
ToolUseId: TypeAlias = str
CcVersion: TypeAlias = str
# The agent that wrote a session file: Claude Code, Codex, Gemini CLI, GitHub
# Copilot CLI, OpenCode. One spelling, here; everything else imports it.
Provider: TypeAlias = Literal["claude", "codex", "gemini", "copilot", "opencode"]
PROVIDERS: Final[tuple[Provider, ...]] = ("claude", "codex", "gemini", "copilot", "opencode")
# How each agent is named to a person (the digest, `learn apply`): the five whose
# sessions learn reads, and the ones it writes instruction files for too.
AGENT_NAMES: Final[dict[str, str]] = {
    "claude": "Claude Code", "codex": "Codex", "gemini": "Gemini CLI",
    "copilot": "Copilot CLI", "opencode": "OpenCode",
    "cursor": "Cursor", "windsurf": "Windsurf", "kiro": "Kiro",
}
