"""The id aliases of the event model (`learn.transcripts.models`).
"""

from __future__ import annotations

from typing import Literal, TypeAlias

# Ids are plain strings at run time. NewType would force a call per field on the
# hot path and make every caller wrap literals; the aliases document intent.
EventUuid: TypeAlias = str
SessionId: TypeAlias = str
ToolUseId: TypeAlias = str
CcVersion: TypeAlias = str
Provider: TypeAlias = Literal["claude", "codex"]
