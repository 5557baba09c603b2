"""Deterministic generator of a realistic mixed transcript corpus for benchmarks.

    python benchmarks/corpus.py [OUT_DIR] [--mb 50] [--seed 1417]

Writes a HOME-shaped tree, so OUT_DIR can stand in for a user's home:

    OUT_DIR/.claude/projects/-home-dev-proj<N>/<session>.jsonl
    OUT_DIR/.claude/projects/-home-dev-proj<N>/<session>/subagents/agent-<id>.jsonl
    OUT_DIR/.claude/projects/-home-dev-proj<N>/<session>/subagents/agent-aside_question-<hex>.jsonl
    OUT_DIR/.claude/projects/-home-dev-proj<N>/agent-<id>.jsonl          (1.0.x layout)
    OUT_DIR/.codex/sessions/2026/01/<DD>/rollout-2026-01-<DD>T10-00-00-<uuid>.jsonl

Shaped like real disks (issue 10: several hundred public transcripts, Claude Code
1.0.53 to 2.1.x, Codex 0.40 to 0.13x): many sessions, most of them small and a
few very large; a third written by 1.0.x clients (no entrypoint or slug,
summary lines, compaction as a bare new root, subagents beside the parent);
subagent and `/btw` aside files; tool results up to a megabyte; and among the
Codex rollouts, bare-era files without session_meta and subagent rollouts.

Every Claude Code entry shape appears: user prompts (string and block
content), assistant turns with thinking / text / tool_use, tool results (string
and list content, successes and failures), denials with and without a typed
reason, permission-rule blocks, interrupts (marker and interruptedMessageId),
agent-injected relays, meta and compact-summary lines, sidechain subagent
files, compact_boundary / stop_hook_summary / turn_duration / other system
entries, hook and queued-command attachments, mode lines, progress,
file-history-snapshot, queue-operation, summary, ai-title. About a tenth of the
bytes are Codex rollouts.

Sizes follow the feasibility probe's real-looking mix (median line ~1.4 KB,
p99 ~17 KB, a few 100 KB tool outputs). Same seed and size -> same bytes.
"""

from __future__ import annotations

import json
import random
import sys
import uuid as uuidlib
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

__all__ = ["generate"]

_WORDS = ["the", "a", "to", "of", "and", "in", "that", "is", "for", "it", "with", "as", "on", "be", "this", "by", "are", "from", "at", "or", "an", "file", "test", "function", "error", "module", "config", "database", "query", "cache", "request", "response", "user", "session", "branch", "commit", "merge", "rebase", "lint", "format", "type", "check", "build", "deploy", "install", "package", "import", "export", "return", "value", "string", "integer", "list", "dict", "class", "method", "async", "await", "thread", "process", "pipe", "socket", "server", "client", "handler", "route", "please", "use", "uv", "never", "pip", "always", "run", "pytest", "before", "commit", "keep", "small", "diffs", "stop", "don't", "why", "did", "you", "change", "that", "wrong", "file", "revert", "this", "instead", "prefer", "ruff", "mypy", "strict", "typing", "dataclass", "struct", "msgspec", "json", "parse", "stream", "event"]

_DIRECTIVES = (
    "please use uv, never pip",
    "always run the tests before you commit",
    "don't add comments that restate the code",
    "use pathlib instead of os.path",
    "keep functions small and pure",
    "never push to main directly",
    "stop creating new files, edit the existing one",
    "prefer msgspec over pydantic for the hot path",
)

_TOOLS = ("Bash", "Read", "Edit", "Write", "Grep", "Glob", "Task", "AskUserQuestion")

_DENIAL = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected "
    "(eg. if it was a file edit, the new_string was NOT written to the file). "
)
_SAID = "To tell you how to proceed, the user said:\n"
_TRAILER = "\n\nNote: The user's next message may contain a correction or preference."


class _Gen:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.clock = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
        # How a tool result's `toolUseResult` is written: "short", the corpus's first
        # shape (a Bash result's first 200 characters of output), or "full", as Claude
        # Code writes it: the tool's whole outcome again beside the content the model
        # read (a Bash result's stdout, a Read's file, an Edit's file before the edit).
        self.results = "short"

    def uid(self) -> str:
        return str(uuidlib.UUID(int=self.rng.getrandbits(128), version=4))

    def words(self, n: int) -> str:
        choice = self.rng.choice
        return " ".join(choice(_WORDS) for _ in range(n))

    def size(self) -> int:
        # Log-normal-ish: median ~1.2 KB with a long tail.
        r = self.rng.random()
        if r < 0.5:
            return self.rng.randint(40, 1200)
        if r < 0.9:
            return self.rng.randint(1200, 4000)
        if r < 0.99:
            return self.rng.randint(4000, 17000)
        if r < 0.997:
            return self.rng.randint(17000, 120000)
        # A whole file read or a build log: real disks hold tool results near 1 MB.
        return self.rng.randint(200_000, 1_000_000)

    def session_size(self) -> int:
        """Bytes of one session: most are short, a few run for hours."""
        r = self.rng.random()
        if r < 0.45:
            return self.rng.randint(5_000, 60_000)
        if r < 0.80:
            return self.rng.randint(60_000, 400_000)
        if r < 0.95:
            return self.rng.randint(400_000, 2_000_000)
        return self.rng.randint(2_000_000, 6_000_000)

    def text_of(self, nbytes: int) -> str:
        return self.words(max(1, nbytes // 6))

    def ts(self) -> str:
        self.clock += timedelta(seconds=self.rng.randint(1, 40))
        return self.clock.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.rng.randint(0, 999):03d}Z"


def _dump(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def _tool_use_result(g: _Gen, tool: str, inp: dict[str, Any], out: str) -> dict[str, Any]:
    """A tool result's `toolUseResult` in the generator's `results` shape."""
    if g.results != "full":
        return {"stdout": out[:200], "stderr": "", "interrupted": False, "isImage": False}
    if tool in ("Read", "Write"):
        return {"type": "text", "file": {"filePath": inp["file_path"], "content": out,
                                         "numLines": out.count("\n") + 1, "startLine": 1,
                                         "totalLines": out.count("\n") + 1}}
    if tool == "Edit":
        return {"filePath": inp["file_path"], "oldString": inp["old_string"],
                "newString": inp["new_string"], "originalFile": out,
                "structuredPatch": [{"oldStart": 1, "oldLines": 2, "newStart": 1, "newLines": 3,
                                     "lines": ["-" + out[:80], "+" + inp["new_string"][:80]]}],
                "userModified": False, "replaceAll": False}
    if tool in ("Grep", "Glob"):
        return {"mode": "files_with_matches", "filenames": out.split()[:50],
                "numFiles": min(50, len(out.split()))}
    return {"stdout": out, "stderr": "", "interrupted": False, "isImage": False}


def _claude_session(g: _Gen, session_id: str, cwd: str, target: int, sidechain: bool,
                    agent_id: str | None, legacy: bool = False) -> list[str]:
    """One Claude Code transcript; `legacy` writes the 1.0.x shape."""
    rng = g.rng
    lines: list[str] = []
    size = 0
    parent: str | None = None
    slug = f"{rng.choice(_WORDS)}-{rng.choice(_WORDS)}"

    def env(kind: str, **extra: Any) -> dict[str, Any]:
        nonlocal parent
        uid = g.uid()
        entry: dict[str, Any] = {
            "parentUuid": parent, "isSidechain": sidechain, "userType": "external",
            "cwd": cwd, "sessionId": session_id, "version": "2.1.3", "gitBranch": "main",
            "entrypoint": "cli", "slug": slug, "type": kind,
        }
        if legacy:
            del entry["entrypoint"], entry["slug"]
            entry["version"] = "1.0.53"
        if agent_id is not None:
            entry["agentId"] = agent_id
        entry.update(extra)
        entry["uuid"] = uid
        entry["timestamp"] = g.ts()
        parent = uid
        return entry

    def emit(obj: dict[str, Any]) -> None:
        nonlocal size
        line = _dump(obj)
        lines.append(line)
        size += len(line) + 1

    if legacy:
        # 1.0.x opened a continued file with summary lines of earlier conversations.
        for _ in range(rng.randint(0, 3)):
            emit({"type": "summary", "summary": g.words(6), "leafUuid": g.uid()})
    else:
        emit({"type": "file-history-snapshot", "messageId": g.uid(),
              "snapshot": {"trackedFileBackups": {}, "timestamp": g.ts()},
              "isSnapshotUpdate": False})
    msg_counter = 0
    while size < target:
        r = rng.random()
        if legacy and 0.70 <= r < 0.90:
            # No progress, attachment, mode or queue lines before 2.x: a 1.0.x
            # compaction (a new root, no compact_boundary) or more conversation.
            if r < 0.705:
                parent = None
                emit(env("user", isCompactSummary=True, message={
                    "role": "user", "content": "This session is being continued from a previous "
                    "conversation that ran out of context. " + g.text_of(6000)}))
                continue
            r = rng.random() * 0.70
        # A user prompt.
        if r < 0.12:
            text = rng.choice(_DIRECTIVES) + ". " + g.words(rng.randint(3, 60))
            content: Any = text if rng.random() < 0.6 else [{"type": "text", "text": text}]
            emit(env("user", promptId=g.uid(), message={"role": "user", "content": content}))
        elif r < 0.14:
            emit(env("user", message={"role": "user", "content": [
                {"type": "text", "text": "[Request interrupted by user for tool use]"}]}))
        elif r < 0.15:
            emit(env("user", interruptedMessageId=f"msg_{msg_counter}",
                     message={"role": "user", "content": "no, stop. " + g.words(8)}))
        elif r < 0.16:
            emit(env("user", isMeta=True, message={"role": "user", "content":
                 "<command-name>/clear</command-name>\n<command-message>clear</command-message>"}))
        elif r < 0.165:
            emit(env("user", message={"role": "user", "content":
                 "<teammate-message from=\"bob\">" + g.words(20) + "</teammate-message>"}))
        # An assistant turn with a tool call and its result.
        elif r < 0.70:
            msg_counter += 1
            tool = rng.choice(_TOOLS)
            tool_id = f"toolu_{g.uid().replace('-', '')[:24]}"
            blocks: list[dict[str, Any]] = []
            if rng.random() < 0.5:
                blocks.append({"type": "thinking", "thinking": g.text_of(g.size() // 2),
                               "signature": "EqQB" + g.uid()})
            if rng.random() < 0.6:
                blocks.append({"type": "text", "text": g.text_of(rng.randint(40, 600))})
            inp: dict[str, Any]
            if tool == "Bash":
                inp = {"command": "uv run pytest -q " + g.words(3), "description": g.words(5)}
            elif tool in ("Edit", "Write", "Read"):
                inp = {"file_path": f"{cwd}/src/{rng.choice(_WORDS)}.py",
                       "old_string": g.text_of(g.size() // 3), "new_string": g.text_of(200)}
            elif tool == "AskUserQuestion":
                inp = {"questions": [{"question": "Which approach?", "header": "Approach",
                                      "multiSelect": False,
                                      "options": [{"label": "A"}, {"label": "B"}]}]}
            else:
                inp = {"pattern": g.words(2), "path": cwd}
            blocks.append({"type": "tool_use", "id": tool_id, "name": tool, "input": inp})
            usage = {"input_tokens": rng.randint(1, 9000), "output_tokens": rng.randint(1, 4000),
                     "cache_read_input_tokens": rng.randint(0, 90000),
                     "cache_creation_input_tokens": rng.randint(0, 5000),
                     "cache_creation": {"ephemeral_5m_input_tokens": 0,
                                        "ephemeral_1h_input_tokens": rng.randint(0, 5000)},
                     "service_tier": "standard"}
            emit(env("assistant", requestId=f"req_{g.uid()[:20]}", message={
                "id": f"msg_{msg_counter}", "type": "message", "role": "assistant",
                "model": "claude-opus-4-5", "content": blocks, "stop_reason": "tool_use",
                "usage": usage}))
            roll = rng.random()
            if roll < 0.05:
                reason = rng.choice(_DIRECTIVES)
                emit(env("user", toolUseResult="User rejected tool use", message={
                    "role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_id,
                                                 "is_error": True,
                                                 "content": _DENIAL + _SAID + reason + _TRAILER}]}))
            elif roll < 0.07:
                emit(env("user", toolDenialKind="permission-rule", message={
                    "role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_id,
                                                 "is_error": True,
                                                 "content": "Blocked by PreToolUse hook: "
                                                 + g.words(10)}]}))
            else:
                failed = rng.random() < 0.12
                out = g.text_of(g.size())
                result: Any = out if rng.random() < 0.7 else [{"type": "text", "text": out}]
                emit(env("user", sourceToolAssistantUUID=parent,
                         toolUseResult=_tool_use_result(g, tool, inp, out),
                         message={"role": "user", "content": [{
                             "type": "tool_result", "tool_use_id": tool_id,
                             "is_error": failed, "content": result}]}))
        elif r < 0.80:
            emit({"type": "progress", "data": {"type": "hook_progress", "hookEvent": "PostToolUse",
                                               "command": "ruff check"},
                  "uuid": g.uid(), "timestamp": g.ts(), "sessionId": session_id,
                  "parentToolUseID": "toolu_x"})
        elif r < 0.84:
            kind = rng.choice(("hook_success", "hook_non_blocking_error", "queued_command",
                               "skill_listing", "hook_additional_context"))
            payload: dict[str, Any] = {"type": kind}
            if kind == "queued_command":
                payload.update(prompt=rng.choice(_DIRECTIVES), commandMode="prompt")
            elif kind == "skill_listing":
                payload.update(content=g.text_of(800), skillCount=12)
            elif kind == "hook_additional_context":
                payload.update(hookName="SessionStart", hookEvent="SessionStart",
                               content=[g.words(12)])
            else:
                payload.update(hookName="PostToolUse:Bash", hookEvent="PostToolUse",
                               toolUseID="toolu_x", command="ruff check", stdout=g.words(10),
                               stderr="", exitCode=0 if kind == "hook_success" else 1,
                               durationMs=rng.randint(5, 900))
            emit(env("attachment", attachment=payload))
        elif r < 0.88:
            sub = rng.choice(("stop_hook_summary", "turn_duration", "local_command", "api_error"))
            extra: dict[str, Any] = {"subtype": sub, "level": "info"}
            if sub == "stop_hook_summary":
                extra.update(hookCount=1, hookInfos=[{"command": "ruff", "durationMs": 80}],
                             hookErrors=[], preventedContinuation=False, stopReason="",
                             hasOutput=False, toolUseID="toolu_x")
            elif sub == "turn_duration":
                extra.update(durationMs=rng.randint(1000, 90000), messageCount=6)
            else:
                extra.update(content="<local-command-stdout>" + g.words(10)
                             + "</local-command-stdout>")
            emit(env("system", **extra))
        elif r < 0.885:
            emit(env("system", subtype="compact_boundary", content="Conversation compacted",
                     level="info", logicalParentUuid=parent,
                     compactMetadata={"trigger": "auto", "preTokens": 160000}))
            parent = None
            emit(env("user", isCompactSummary=True, isVisibleInTranscriptOnly=True, message={
                "role": "user", "content": "This session is being continued from a previous "
                "conversation that ran out of context. " + g.text_of(6000)}))
        elif r < 0.89:
            emit({"type": "permission-mode", "permissionMode": "acceptEdits",
                  "sessionId": session_id})
        elif r < 0.90:
            emit({"type": "queue-operation", "operation": "enqueue", "timestamp": g.ts(),
                  "sessionId": session_id, "content": rng.choice(_DIRECTIVES)})
        else:
            emit({"type": "file-history-snapshot", "messageId": g.uid(),
                  "snapshot": {"trackedFileBackups": {f"src/{w}.py": {"version": 1}
                                                      for w in g.words(5).split()},
                               "timestamp": g.ts()},
                  "isSnapshotUpdate": True})
    emit({"type": "summary", "summary": g.words(6), "leafUuid": parent})
    emit({"type": "ai-title", "aiTitle": g.words(4), "sessionId": session_id})
    return lines


def _codex_rollout(g: _Gen, session_id: str, cwd: str, target: int,
                   source: Any = "cli") -> list[str]:
    rng = g.rng
    lines: list[str] = []
    size = 0

    def emit(kind: str, payload: dict[str, Any]) -> None:
        nonlocal size
        line = _dump({"timestamp": g.ts(), "type": kind, "payload": payload})
        lines.append(line)
        size += len(line) + 1

    emit("session_meta", {"id": session_id, "timestamp": g.ts(), "cwd": cwd,
                          "originator": "codex_cli_rs", "cli_version": "0.50.0",
                          "source": source, "git": {"branch": "main"}})
    emit("response_item", {"type": "message", "role": "user", "content": [
        {"type": "input_text", "text": "<environment_context>\n  <cwd>" + cwd
         + "</cwd>\n</environment_context>"}]})
    n = 0
    while size < target:
        n += 1
        emit("turn_context", {"cwd": cwd, "approval_policy": "on-request", "model": "gpt-5-codex"})
        prompt = rng.choice(_DIRECTIVES) + ". " + g.words(rng.randint(3, 40))
        emit("response_item", {"type": "message", "role": "user",
                               "content": [{"type": "input_text", "text": prompt}]})
        emit("event_msg", {"type": "user_message", "message": prompt, "images": []})
        for _ in range(rng.randint(1, 5)):
            call = f"call_{n}_{rng.getrandbits(32):08x}"
            emit("response_item", {"type": "reasoning", "summary": [],
                                   "encrypted_content": g.text_of(400)})
            emit("response_item", {"type": "function_call", "name": "shell", "call_id": call,
                                   "arguments": _dump({"command": ["bash", "-lc", g.words(4)]})})
            code = 0 if rng.random() < 0.85 else 1
            emit("response_item", {"type": "function_call_output", "call_id": call,
                                   "output": _dump({"output": g.text_of(g.size()),
                                                    "metadata": {"exit_code": code}})})
            emit("event_msg", {"type": "token_count",
                               "info": {"total_token_usage": {"input_tokens": n * 100}}})
        reply = g.words(30)
        emit("event_msg", {"type": "agent_message", "message": reply})
        emit("response_item", {"type": "message", "role": "assistant",
                               "content": [{"type": "output_text", "text": reply}]})
        if rng.random() < 0.05:
            emit("event_msg", {"type": "turn_aborted", "reason": "interrupted"})
    return lines


def _write(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _legacy_rollout(g: _Gen, session_id: str, cwd: str, target: int) -> list[str]:
    """A bare-era Codex rollout: header without type, state markers, unwrapped items."""
    rng = g.rng
    lines = [_dump({"id": session_id, "timestamp": g.ts(), "instructions": None,
                    "git": {"commit_hash": g.uid().replace("-", ""), "branch": "main"}}),
             _dump({"record_type": "state"}),
             _dump({"type": "message", "role": "user", "content": [{"type": "input_text",
                    "text": f"<environment_context>\n  <cwd>{cwd}</cwd>\n</environment_context>"}]})]
    size = sum(len(line) + 1 for line in lines)
    n = 0
    while size < target:
        n += 1
        out = [{"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": rng.choice(_DIRECTIVES) + ". " + g.words(20)}]},
            {"record_type": "state"}]
        for _ in range(rng.randint(1, 4)):
            call = f"call_{n}_{rng.getrandbits(32):08x}"
            out.append({"type": "reasoning", "id": f"rs_{n}", "summary": [],
                        "encrypted_content": g.text_of(400)})
            out.append({"type": "function_call", "name": "shell", "call_id": call,
                        "arguments": _dump({"command": ["bash", "-lc", g.words(4)]})})
            out.append({"type": "function_call_output", "call_id": call,
                        "output": _dump({"output": g.text_of(g.size()),
                                         "metadata": {"exit_code": 0}})})
        out.append({"type": "message", "role": "assistant",
                    "content": [{"type": "output_text", "text": g.words(30)}]})
        for obj in out:
            line = _dump(obj)
            lines.append(line)
            size += len(line) + 1
    return lines


def generate(out_dir: Path, total_mb: int = 50, seed: int = 1417) -> list[Path]:
    """Write the corpus under out_dir and return the transcript paths written."""
    rng = random.Random(seed)
    g = _Gen(rng)
    total = total_mb * 1024 * 1024
    codex_budget = total // 10
    claude_budget = total - codex_budget
    written: list[Path] = []
    done = 0
    i = 0
    while done < claude_budget:
        i += 1
        project = f"proj{i % 6}"
        cwd = f"/home/dev/{project}"
        projdir = out_dir / ".claude" / "projects" / cwd.replace("/", "-")
        session_id = g.uid()
        legacy = rng.random() < 0.3
        lines = _claude_session(g, session_id, cwd, g.session_size(), sidechain=False,
                                agent_id=None, legacy=legacy)
        path = _write(projdir / f"{session_id}.jsonl", lines)
        written.append(path)
        done += path.stat().st_size
        if rng.random() < 0.3:
            agent = g.uid().replace("-", "")[:8]
            sub = _claude_session(g, session_id, cwd, rng.randint(20_000, 400_000),
                                  sidechain=True, agent_id=agent, legacy=legacy)
            # 1.0.x wrote subagents beside the parent; 2.x under <session>/subagents/.
            where = (projdir / f"agent-{agent}.jsonl" if legacy
                     else projdir / session_id / "subagents" / f"agent-{agent}.jsonl")
            path = _write(where, sub)
            written.append(path)
            done += path.stat().st_size
        if not legacy and rng.random() < 0.1:
            agent = "aside_question-" + g.uid().replace("-", "")[:16]
            aside = _claude_session(g, session_id, cwd, rng.randint(5_000, 60_000),
                                    sidechain=True, agent_id=agent)
            path = _write(projdir / session_id / "subagents" / f"agent-{agent}.jsonl", aside)
            written.append(path)
            done += path.stat().st_size
    done = 0
    day = 0
    while done < codex_budget:
        day += 1
        session_id = g.uid()
        dd = f"{(day % 28) + 1:02d}"
        path = (out_dir / ".codex" / "sessions" / "2026" / "01" / dd
                / f"rollout-2026-01-{dd}T10-00-00-{session_id}.jsonl")
        cwd = f"/home/dev/proj{day % 6}"
        target = g.session_size() // 2
        if rng.random() < 0.3:
            lines = _legacy_rollout(g, session_id, cwd, target)
        else:
            source: Any = "cli" if rng.random() < 0.85 else {"subagent": "review"}
            lines = _codex_rollout(g, session_id, cwd, target, source)
        _write(path, lines)
        written.append(path)
        done += path.stat().st_size
    return written


def main(argv: list[str]) -> int:
    args = list(argv)
    mb, seed = 50, 1417
    if "--mb" in args:
        k = args.index("--mb")
        mb = int(args[k + 1])
        del args[k:k + 2]
    if "--seed" in args:
        k = args.index("--seed")
        seed = int(args[k + 1])
        del args[k:k + 2]
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from benchmarks.outdir import out_dir

    out = out_dir(args, Path(__file__).parent / "out" / "corpus")
    paths = generate(out, mb, seed)
    total = sum(p.stat().st_size for p in paths)
    print(f"wrote {len(paths)} files, {total / 1e6:.1f} MB under {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
