"""The mining call: the `record_candidates` tool and the request that forces it."""

from __future__ import annotations

from typing import Any, Final

from learn.models.base import ModelRequest, ToolSpec
from learn.prompts import load_prompt

TOOL_NAME: Final = "record_candidates"

_STRINGS: Final[dict[str, Any]] = {"type": "array", "items": {"type": "string"}}

INPUT_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "candidates": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "kind": {"type": "string", "enum": ["directive", "fix", "request"]},
                    "text": {
                        "type": "string",
                        "description": "directive/request: the user's words copied verbatim; "
                        "fix: one sentence describing the fix",
                    },
                    "rationale": {"type": "string"},
                    "command": {"type": "string", "description": "fix: the command that failed"},
                    "error_excerpt": {"type": "string"},
                    "intervening_commands": _STRINGS,
                    "edited_files": _STRINGS,
                },
                "required": ["kind", "text"],
            },
        }
    },
    "required": ["candidates"],
}

TOOL: Final = ToolSpec(
    name=TOOL_NAME,
    description="Record every directive, fix and request noticed in the transcript "
    "(an empty list when there is none).",
    input_schema=INPUT_SCHEMA,
)


def prompt_version() -> int:
    return load_prompt("mine").version


def system_prompt() -> str:
    return load_prompt("mine").text


def build_request(chunk: str, *, model: str, max_tokens: int) -> ModelRequest:
    """One mining call: the fixed prompt, the forced tool, the chunk as the only user message.

    The chunk goes in as it is, with nothing added: replay keys on the user
    message, so it must depend on the transcript alone.
    """
    return ModelRequest(
        step="mine", model=model, system=system_prompt(), tool=TOOL, user=chunk, max_tokens=max_tokens
    )
