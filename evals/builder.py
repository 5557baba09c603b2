"""Write realistic Claude Code and Codex transcripts from a short script.

The demo and the eval corpora are authored with this, not copied from anyone's
disk: each session is a few lines of Python that say what the person typed and
what the agent did, and the builder writes the JSONL exactly as the current
clients do (Claude Code 2.x field names; Codex rollout `{timestamp, type,
payload}` lines). Everything is deterministic (uuids derive from the session id
and a counter, times from a start time), so a rebuilt corpus is byte-identical
and the replay fixtures recorded against it stay valid.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

DENIAL_PREFIX = "The user doesn't want to proceed with this tool use. The tool use was rejected"
DENIAL_FULL = (
    DENIAL_PREFIX
    + " (eg. if it was a file edit, the new_string was NOT written to the file). "
    "To tell you how to proceed, the user said:\n{reason}\n\n"
    "Note: The user's next message may contain a correction or preference. "
    "Pay close attention and adjust your approach accordingly."
)
DENIAL_BARE = (
    DENIAL_PREFIX
    + " (eg. if it was a file edit, the new_string was NOT written to the file). "
    "STOP what you are doing and wait for the user to tell you how to proceed."
)
INTERRUPT = "[Request interrupted by user]"
INTERRUPT_TOOL = "[Request interrupted by user for tool use]"
COMPACT_SUMMARY = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The conversation is summarized below:\n{summary}"
)


def _uuid(*parts: str) -> str:
    return str(uuid.UUID(bytes=hashlib.sha256("\0".join(parts).encode()).digest()[:16], version=4))


def _ts(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def fresh_root(root: Path) -> None:
    """Empty `root` for a rebuild, refusing any non-empty directory that is not a
    corpus learn built (one without gold.json): a wrong path must not be wiped."""
    if root.exists() and any(root.iterdir()):
        if not (root / "gold.json").exists():
            raise ValueError(f"{root} is not empty and is not a corpus learn built; refusing to replace it")
        shutil.rmtree(root)


def encode_cwd(cwd: str) -> str:
    """Claude Code's project directory name: every non-alphanumeric becomes '-'."""
    return "".join(c if c.isalnum() else "-" for c in cwd)


@dataclass
class ClaudeSession:
    session_id: str
    cwd: str
    start: datetime
    version: str = "2.1.30"
    git_branch: str = "main"
    model: str = "claude-sonnet-4-5-20250929"
    lines: list[dict[str, Any]] = field(default_factory=list)
    subagents: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    _n: int = 0
    _t: datetime | None = None
    _parent: str | None = None

    # -- plumbing -----------------------------------------------------------
    def _next(self, seconds: int = 20) -> tuple[str, str]:
        self._n += 1
        self._t = (self._t or self.start) + timedelta(seconds=seconds)
        return _uuid(self.session_id, str(self._n)), _ts(self._t)

    def _envelope(self, kind: str, seconds: int = 20, **extra: Any) -> dict[str, Any]:
        uid, ts = self._next(seconds)
        entry: dict[str, Any] = {
            "parentUuid": self._parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": self.version,
            "gitBranch": self.git_branch,
            "type": kind,
        }
        entry.update(extra)
        entry["uuid"] = uid
        entry["timestamp"] = ts
        self._parent = uid
        self.lines.append(entry)
        return entry

    @property
    def last_uuid(self) -> str | None:
        return self._parent

    # -- what the person does -------------------------------------------------
    def user(self, text: str, *, seconds: int = 60, **extra: Any) -> str:
        """A prompt the person typed."""
        e = self._envelope(
            "user",
            seconds,
            message={"role": "user", "content": text},
            promptId=_uuid(self.session_id, "prompt", str(self._n)),
            **extra,
        )
        return str(e["uuid"])

    def user_blocks(self, texts: list[str], *, seconds: int = 60) -> str:
        e = self._envelope(
            "user",
            seconds,
            message={"role": "user", "content": [{"type": "text", "text": t} for t in texts]},
        )
        return str(e["uuid"])

    def slash_command(self, name: str, args: str, body: str, *, meta: bool = False) -> None:
        """`/name args`: the command tags, then the expanded template body as a user
        message (older clients wrote it with no isMeta flag: indistinguishable from typing)."""
        self._envelope(
            "user",
            30,
            message={
                "role": "user",
                "content": f"<command-message>{name} is running…</command-message>\n"
                f"<command-name>/{name}</command-name>\n<command-args>{args}</command-args>",
            },
        )
        extra: dict[str, Any] = {"isMeta": True} if meta else {}
        self._envelope(
            "user", 1, message={"role": "user", "content": [{"type": "text", "text": body}]}, **extra
        )

    def local_command(self, name: str, stdout: str) -> None:
        self._envelope(
            "user",
            10,
            message={
                "role": "user",
                "content": "Caveat: The messages below were generated by the user while running "
                "local commands. DO NOT respond to these messages or otherwise consider them in "
                "your response unless the user explicitly asks you to.",
            },
            isMeta=True,
        )
        self._envelope(
            "user",
            1,
            message={
                "role": "user",
                "content": f"<command-name>/{name}</command-name>\n<command-message>{name}</command-message>\n<command-args></command-args>",
            },
        )
        self._envelope(
            "user",
            1,
            message={"role": "user", "content": f"<local-command-stdout>{stdout}</local-command-stdout>"},
        )

    def interrupt(self, *, for_tool: bool = False) -> None:
        self._envelope(
            "user",
            5,
            message={
                "role": "user",
                "content": [{"type": "text", "text": INTERRUPT_TOOL if for_tool else INTERRUPT}],
            },
        )

    def compact(self, summary: str) -> None:
        """A compaction: the boundary marker, then the summary as a user line."""
        boundary = self._envelope(
            "system",
            30,
            subtype="compact_boundary",
            content="Conversation compacted",
            level="info",
            isMeta=False,
            compactMetadata={"trigger": "auto", "preTokens": 158_000},
            logicalParentUuid=self._parent,
        )
        boundary["parentUuid"] = None
        self._envelope(
            "user",
            1,
            message={"role": "user", "content": COMPACT_SUMMARY.format(summary=summary)},
            isCompactSummary=True,
            isVisibleInTranscriptOnly=True,
        )

    def relay(self, text: str) -> None:
        """An agent-injected relay: it arrives as a user message but nobody typed it."""
        self._envelope("user", 30, message={"role": "user", "content": text})

    def queued(self, prompt: str) -> None:
        self._envelope(
            "attachment",
            5,
            attachment={"type": "queued_command", "prompt": prompt, "commandMode": "prompt"},
        )

    # -- what the agent does ----------------------------------------------------
    def assistant(self, text: str | None = None, *, thinking: str | None = None) -> None:
        content: list[dict[str, Any]] = []
        if thinking:
            content.append({"type": "thinking", "thinking": thinking, "signature": "sig"})
        if text:
            content.append({"type": "text", "text": text})
        self._assistant_entry(content, "end_turn")

    def _assistant_entry(self, content: list[dict[str, Any]], stop: str) -> None:
        self._envelope(
            "assistant",
            15,
            message={
                "id": "msg_" + _uuid(self.session_id, "msg", str(self._n + 1)).replace("-", "")[:24],
                "type": "message",
                "role": "assistant",
                "model": self.model,
                "content": content,
                "stop_reason": stop,
                "stop_sequence": None,
                "usage": {
                    "input_tokens": 1200,
                    "output_tokens": 180,
                    "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": 9000,
                },
            },
            requestId="req_" + _uuid(self.session_id, "req", str(self._n + 1)).replace("-", "")[:24],
        )

    def tool(
        self,
        name: str,
        tool_input: dict[str, Any],
        result: str = "",
        *,
        is_error: bool = False,
        text: str | None = None,
    ) -> str:
        """The agent calls a tool and gets `result` back."""
        tool_id = "toolu_" + _uuid(self.session_id, "tool", str(self._n + 1)).replace("-", "")[:24]
        content: list[dict[str, Any]] = []
        if text:
            content.append({"type": "text", "text": text})
        content.append({"type": "tool_use", "id": tool_id, "name": name, "input": tool_input})
        self._assistant_entry(content, "tool_use")
        tur: dict[str, Any] | str
        if name == "Bash":
            tur = {"stdout": "" if is_error else result, "stderr": result if is_error else "",
                   "interrupted": False, "isImage": False}
        else:
            tur = {"type": "text", "file": {"filePath": tool_input.get("file_path", "")}}
        self._envelope(
            "user",
            5,
            message={
                "role": "user",
                "content": [
                    {"tool_use_id": tool_id, "type": "tool_result", "content": result, "is_error": is_error}
                ],
            },
            toolUseResult=tur if not is_error else f"Error: {result}",
        )
        return tool_id

    def denied_tool(self, name: str, tool_input: dict[str, Any], reason: str | None,
                    *, kind: str = "user-rejected", with_kind_field: bool = True) -> None:
        """The agent asks for a tool; the person rejects it (and maybe says why)."""
        tool_id = "toolu_" + _uuid(self.session_id, "tool", str(self._n + 1)).replace("-", "")[:24]
        self._assistant_entry(
            [{"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}], "tool_use"
        )
        if kind == "permission-rule":
            content = f"Permission to use {name} has been denied by a hook: {reason}"
        else:
            content = DENIAL_FULL.format(reason=reason) if reason else DENIAL_BARE
        extra: dict[str, Any] = {"toolUseResult": "User rejected tool use"}
        if with_kind_field:
            extra["toolDenialKind"] = kind
        self._envelope(
            "user",
            20,
            message={
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": content,
                             "is_error": True}],
            },
            **extra,
        )

    def ask(self, question: str, options: list[str], answer: str, *, notes: str | None = None) -> None:
        """AskUserQuestion; `answer` is an option label or free text the person typed."""
        tool_id = "toolu_" + _uuid(self.session_id, "tool", str(self._n + 1)).replace("-", "")[:24]
        questions = [{"question": question, "header": "Choice", "multiSelect": False,
                      "options": [{"label": o, "description": ""} for o in options]}]
        self._assistant_entry(
            [{"type": "tool_use", "id": tool_id, "name": "AskUserQuestion",
              "input": {"questions": questions}}],
            "tool_use",
        )
        annotations: dict[str, Any] = {}
        if notes:
            annotations[question] = {"notes": notes}
        banner = f'Your questions have been answered: "{question}"="{answer}"'
        if notes:
            banner += f" notes: {notes}"
        banner += ". You can now continue with these answers in mind."
        self._envelope(
            "user",
            40,
            message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_id,
                                                  "content": banner}]},
            toolUseResult={"questions": questions, "answers": {question: answer},
                           "annotations": annotations},
        )

    def mode(self, value: str) -> None:
        self.lines.append({"type": "permission-mode", "permissionMode": value,
                           "sessionId": self.session_id})

    def sidechain(self, agent_id: str, prompt: str, reply: str) -> None:
        """A subagent run, written to `<session>/subagents/agent-<id>.jsonl`."""
        base = {"isSidechain": True, "userType": "external", "cwd": self.cwd,
                "sessionId": self.session_id, "version": self.version,
                "gitBranch": self.git_branch, "agentId": agent_id}
        t = (self._t or self.start) + timedelta(seconds=5)
        u1 = _uuid(self.session_id, agent_id, "1")
        u2 = _uuid(self.session_id, agent_id, "2")
        self.subagents[agent_id] = [
            {**base, "parentUuid": None, "type": "user", "message": {"role": "user", "content": prompt},
             "uuid": u1, "timestamp": _ts(t)},
            {**base, "parentUuid": u1, "type": "assistant",
             "message": {"id": "msg_sub" + agent_id, "type": "message", "role": "assistant",
                         "model": "claude-haiku-4-5-20251001",
                         "content": [{"type": "text", "text": reply}], "stop_reason": "end_turn",
                         "stop_sequence": None,
                         "usage": {"input_tokens": 10, "output_tokens": 10,
                                   "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}},
             "uuid": u2, "timestamp": _ts(t + timedelta(seconds=9))},
        ]

    def resume_from(self, earlier: ClaudeSession) -> None:
        """`claude --resume`: the new session file starts with a copy of the earlier
        conversation (same entries, same uuids and times, this session's id)."""
        for line in earlier.lines:
            copy = json.loads(json.dumps(line))
            if "sessionId" in copy:
                copy["sessionId"] = self.session_id
            self.lines.append(copy)
        self._parent = earlier.last_uuid
        self._t = earlier.last_time

    def rewind_to(self, uuid_: str | None) -> None:
        """Continue from an earlier entry: what was written after it becomes a dead branch."""
        self._parent = uuid_

    def title(self, text: str) -> None:
        self.lines.append({"type": "ai-title", "aiTitle": text, "sessionId": self.session_id})

    # -- output -------------------------------------------------------------------
    @property
    def last_time(self) -> datetime:
        return self._t or self.start

    def write(self, claude_dir: Path) -> Path:
        project_dir = claude_dir / "projects" / encode_cwd(self.cwd)
        project_dir.mkdir(parents=True, exist_ok=True)
        path = project_dir / f"{self.session_id}.jsonl"
        _write_jsonl(path, self.lines, self.last_time)
        for agent_id, lines in self.subagents.items():
            sub = project_dir / self.session_id / "subagents" / f"agent-{agent_id}.jsonl"
            sub.parent.mkdir(parents=True, exist_ok=True)
            _write_jsonl(sub, lines, self.last_time)
        return path


@dataclass
class CodexSession:
    session_id: str
    cwd: str
    start: datetime
    cli_version: str = "0.58.0"
    model: str = "gpt-5-codex"
    lines: list[dict[str, Any]] = field(default_factory=list)
    _t: datetime | None = None
    _calls: int = 0

    def __post_init__(self) -> None:
        self._emit("session_meta", {
            "id": self.session_id, "timestamp": _ts(self.start), "cwd": self.cwd,
            "originator": "codex_cli_rs", "cli_version": self.cli_version, "instructions": None,
            "source": "cli", "model_provider": "openai",
        }, seconds=0)
        self._emit("response_item", {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": f"<environment_context>\n  <cwd>{self.cwd}</cwd>\n"
             "  <approval_policy>on-request</approval_policy>\n</environment_context>"}]}, seconds=0)
        self._emit("turn_context", {"cwd": self.cwd, "approval_policy": "on-request",
                                    "sandbox_policy": {"mode": "workspace-write"},
                                    "model": self.model, "effort": "medium", "summary": "auto"})

    def _emit(self, kind: str, payload: dict[str, Any], seconds: int = 20) -> None:
        self._t = (self._t or self.start) + timedelta(seconds=seconds)
        self.lines.append({"timestamp": _ts(self._t), "type": kind, "payload": payload})

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
        _write_jsonl(path, self.lines, self.last_time)
        return path


def _write_jsonl(path: Path, lines: list[dict[str, Any]], mtime: datetime) -> None:
    text = "".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines)
    path.write_text(text, encoding="utf-8")
    stamp = mtime.timestamp()
    os.utime(path, (stamp, stamp))


def session_id(name: str) -> str:
    """A stable uuid-shaped session id from a readable name."""
    return _uuid("session", name)
