"""A Codex rollout file (`{timestamp, type, payload}` lines), written from a short
script (evals.builder)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from evals.builder.common import stamp, write_jsonl


@dataclass
class CodexSession:
    session_id: str
    cwd: str
    start: datetime
    cli_version: str = "0.58.0"
    model: str = "gpt-5-codex"
    # session_meta's `git` (commit_hash, branch, repository_url), when recorded.
    git: dict[str, str] | None = None
    lines: list[dict[str, Any]] = field(default_factory=list)
    _t: datetime | None = None
    _calls: int = 0

    def __post_init__(self) -> None:
        self._emit("session_meta", {
            "id": self.session_id, "timestamp": stamp(self.start), "cwd": self.cwd,
            "originator": "codex_cli_rs", "cli_version": self.cli_version, "instructions": None,
            "source": "cli", "model_provider": "openai",
            **({"git": self.git} if self.git else {}),
        }, seconds=0)
        self._emit("response_item", {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": f"<environment_context>\n  <cwd>{self.cwd}</cwd>\n"
             "  <approval_policy>on-request</approval_policy>\n</environment_context>"}]}, seconds=0)
        self._emit("turn_context", {"cwd": self.cwd, "approval_policy": "on-request",
                                    "sandbox_policy": {"mode": "workspace-write"},
                                    "model": self.model, "effort": "medium", "summary": "auto"})

    def _emit(self, kind: str, payload: dict[str, Any], seconds: int = 20) -> None:
        self._t = (self._t or self.start) + timedelta(seconds=seconds)
        self.lines.append({"timestamp": stamp(self._t), "type": kind, "payload": payload})

    def user(self, text: str) -> None:
        self._emit("response_item", {"type": "message", "role": "user",
                                     "content": [{"type": "input_text", "text": text}]}, seconds=60)
        self._emit("event_msg", {"type": "user_message", "message": text, "images": []}, seconds=0)

    def instructions(self, text: str) -> None:
        """AGENTS.md / user instructions the client injects as a user message (not typed)."""
        self._emit("response_item", {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": f"<user_instructions>\n{text}\n</user_instructions>"}]})

    def assistant(self, text: str) -> None:
        self._emit("event_msg", {"type": "agent_message", "message": text})
        self._emit("response_item", {"type": "message", "role": "assistant",
                                     "content": [{"type": "output_text", "text": text}]}, seconds=0)

    def shell(self, command: str, output: str, exit_code: int = 0) -> None:
        self._calls += 1
        call_id = f"call_{self.session_id[:8]}_{self._calls}"
        self._emit("response_item", {"type": "reasoning", "summary": [], "encrypted_content": "gAAAA"})
        self._emit("response_item", {"type": "function_call", "name": "shell", "call_id": call_id,
                                     "arguments": json.dumps({"command": ["bash", "-lc", command]})})
        self._emit("response_item", {"type": "function_call_output", "call_id": call_id,
                                     "output": json.dumps({"output": output, "metadata": {
                                         "exit_code": exit_code, "duration_seconds": 1.2}})})

    def token_count(self) -> None:
        self._emit("event_msg", {"type": "token_count", "info": None}, seconds=1)

    @property
    def last_time(self) -> datetime:
        return self._t or self.start

    def write(self, codex_dir: Path) -> Path:
        t = self.start
        day = codex_dir / "sessions" / f"{t:%Y}" / f"{t:%m}" / f"{t:%d}"
        day.mkdir(parents=True, exist_ok=True)
        path = day / f"rollout-{t:%Y-%m-%dT%H-%M-%S}-{self.session_id}.jsonl"
        write_jsonl(path, self.lines, self.last_time)
        return path
