"""Which instruction files a session loaded, where a record of it exists.

Two records, read apart from the session view (only the outcomes of rules in
place ask, and only about the sessions since a rule):

- learn's plugin: Claude Code fires `InstructionsLoaded` (2.1.69+) for every
  CLAUDE.md and `.claude/rules/*.md` it loads, with the file, the session and
  why (`session_start`, `nested_traversal`, `path_glob_match`, `include`,
  `compact`); `learn hook instructions-loaded` appends each to
  `<data dir>/instructions/<session id>.jsonl` (RECORD_DIR).
- the transcript itself: Claude Code writes an `instructions` attachment listing
  every file loaded at start with the text as loaded (AGENTS.md and the auto
  memory's MEMORY.md too, which the hook does not report: measured on 2.1.332,
  where a MEMORY.md of 250 lines reached the model cut after line 200 and only
  the attachment said so), and a `nested_memory` attachment for each file loaded
  later (a nested CLAUDE.md, a `paths:` rule). Codex puts the AGENTS.md text it
  sends in a user-role message headed "# AGENTS.md instructions for <dir>".

A record covers only what its writer reports: the hook reports CLAUDE.md and
rules files, never AGENTS.md or memory, so a file of another kind missing from
hook records says nothing (`Records.covers`).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Literal

from learn.hook_input import event_fields, hook_object, safe_session_id

Source = Literal["hook", "transcript"]

RECORD_DIR: Final = "instructions"
MAX_RECORD_BYTES: Final = 1 << 20  # one session's hook records; more is not a session
# The kinds of file each record reports (by file name); a file of another kind is
# not evidence of absence in that record.
HOOK_REPORTS: Final = ("CLAUDE.md", "CLAUDE.local.md", ".claude/rules/")


@dataclass(frozen=True, slots=True)
class Load:
    """One instruction file reaching the agent in one session."""

    file: str
    reason: str  # session_start | nested_traversal | path_glob_match | include | compact | ...
    source: Source
    trigger: str | None = None  # the file whose reading loaded it (path rules, nested files)
    # The text as loaded, when the record carries it (transcripts do; the hook does
    # not): a rule cut at a size limit is absent from it.
    text: str | None = None


@dataclass(frozen=True, slots=True)
class Records:
    """A session's loads by source; None for a source with no record of this session."""

    hook: tuple[Load, ...] | None = None
    transcript: tuple[Load, ...] | None = None

    def covers(self, file: str) -> tuple[Load, ...] | None:
        """The loads that say whether `file` was loaded (None: no record reports files
        of its kind). The transcript reports every kind; the hook CLAUDE.md and rules."""
        if self.transcript is not None:
            return self.transcript + (self.hook or ())
        if self.hook is not None and reported_by_hook(file):
            return self.hook
        return None


def reported_by_hook(file: str) -> bool:
    p = file.replace("\\", "/")
    return p.endswith(("/CLAUDE.md", "/CLAUDE.local.md")) or p in ("CLAUDE.md", "CLAUDE.local.md") \
        or "/.claude/rules/" in p


# ------------------------------------------------------------------ the plugin's records


def record_dir(root: Path | None = None) -> Path:
    from learn.paths import data_dir

    return (root if root is not None else data_dir()) / RECORD_DIR


class BadLoadRecord(ValueError):
    pass


def load_from_hook(data: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """(session id, the line to record) from one InstructionsLoaded hook input."""
    try:
        sid, file = event_fields(dict(data), "InstructionsLoaded", "file_path")
    except ValueError as exc:
        raise BadLoadRecord(str(exc)) from exc

    def opt(name: str) -> Any:
        value = data.get(name)
        return value if isinstance(value, str | list) else None

    line = {"file": file, "reason": opt("load_reason") or "unknown",
            "memory_type": opt("memory_type"), "trigger": opt("trigger_file_path"),
            "parent": opt("parent_file_path"), "globs": opt("globs"), "cwd": opt("cwd"),
            "at": datetime.now(UTC).isoformat(timespec="seconds")}
    return sid, {k: v for k, v in line.items() if v is not None}


def append_hook_record(raw: bytes, root: Path | None = None) -> str:
    """Record one InstructionsLoaded hook input; the session id. One O_APPEND write
    of one line: hooks for one session may run at once, and appends of a line this
    small are not interleaved."""
    from learn.paths import ensure_private_dir, open_private_append

    try:
        data = hook_object(raw)
    except ValueError as exc:
        raise BadLoadRecord(str(exc)) from exc
    sid, line = load_from_hook(data)
    directory = ensure_private_dir(record_dir(root))
    path = directory / f"{sid}.jsonl"
    with contextlib.suppress(OSError):
        if path.stat().st_size > MAX_RECORD_BYTES:
            return sid
    fd = open_private_append(path)
    try:
        os.write(fd, (json.dumps(line, ensure_ascii=False) + "\n").encode("utf-8"))
    finally:
        os.close(fd)
    return sid


def hook_records(session_ids: Iterable[str], root: Path | None = None) -> dict[str, tuple[Load, ...]]:
    """The plugin's loads of each session that has a record (a session without one
    is absent from the result: the plugin was not installed then)."""
    directory = record_dir(root)
    out: dict[str, tuple[Load, ...]] = {}
    for sid in session_ids:
        if not safe_session_id(sid):
            continue
        try:
            raw = (directory / f"{sid}.jsonl").read_bytes()[:MAX_RECORD_BYTES]
        except OSError:
            continue
        loads: list[Load] = []
        for line in raw.decode("utf-8", errors="replace").splitlines():
            try:
                d = json.loads(line)
            except (ValueError, RecursionError):
                continue  # a torn last line, or one nested too deep to read: the rest stands
            if isinstance(d, dict) and isinstance(d.get("file"), str):
                trigger = d.get("trigger")
                loads.append(Load(d["file"], str(d.get("reason") or "unknown"), "hook",
                                  trigger if isinstance(trigger, str) else None))
        out[sid] = tuple(loads)
    return out


# ------------------------------------------------------------------ what transcripts say

_CODEX_HEAD = re.compile(r"^# AGENTS\.md instructions for (.+?)\s*$", re.MULTILINE)
_CODEX_BODY = re.compile(r"<INSTRUCTIONS>\n?(.*?)\n?</INSTRUCTIONS>", re.DOTALL)


def _claude_line(d: Mapping[str, Any]) -> list[Load]:
    a = d.get("attachment")
    if d.get("type") != "attachment" or not isinstance(a, dict):
        return []
    if a.get("type") == "instructions":
        out = []
        for f in a.get("files") or ():
            if isinstance(f, dict) and isinstance(f.get("path"), str):
                text = f.get("content")
                out.append(Load(f["path"], "session_start", "transcript",
                                text=text if isinstance(text, str) else None))
        return out
    if a.get("type") == "nested_memory":
        raw = a.get("content")
        content: Mapping[str, Any] = raw if isinstance(raw, dict) else {}
        path = a.get("path") or content.get("path")
        if not isinstance(path, str):
            return []
        text = content.get("content")
        reason = "path_glob_match" if content.get("globs") else "nested_traversal"
        return [Load(path, reason, "transcript", text=text if isinstance(text, str) else None)]
    return []


def _codex_line(d: Mapping[str, Any]) -> list[Load]:
    payload = d.get("payload")
    if d.get("type") != "response_item" or not isinstance(payload, dict) \
            or payload.get("role") != "user":
        return []
    out: list[Load] = []
    for block in payload.get("content") or ():
        text = block.get("text") if isinstance(block, dict) else None
        if not isinstance(text, str) or not text.startswith("# AGENTS.md instructions for "):
            continue
        head = _CODEX_HEAD.match(text)
        body = _CODEX_BODY.search(text)
        if head:
            out.append(Load(str(Path(head.group(1)) / "AGENTS.md"), "session_start", "transcript",
                            text=body.group(1) if body else text))
    return out


# Lines worth decoding: the bytes every record above contains.
_NEEDLES: Final = (b'"instructions"', b'"nested_memory"', b"# AGENTS.md instructions for ")


def transcript_records(path: Path | str, provider: str) -> tuple[Load, ...] | None:
    """The loads a transcript file records; None when it records none (a client that
    does not write them, a session with no instruction file: learn cannot tell
    apart, so neither is taken as evidence)."""
    read = _claude_line if provider == "claude" else _codex_line if provider == "codex" else None
    if read is None:
        return None
    loads: list[Load] = []
    for raw in _lines_with(_bytes(Path(path)), _NEEDLES):
        try:
            d = json.loads(raw)
        except (ValueError, RecursionError):
            # Nested past the recursion limit (json raises RecursionError at ~1,000
            # levels): the parser skips that line as "too_deep"; so does this.
            continue
        if isinstance(d, dict):
            loads.extend(read(d))
    return tuple(loads) or None


def _bytes(path: Path) -> bytes:
    """The file's bytes; a compressed rollout decompressed in memory, as the parser does.
    An unreadable file has none."""
    from learn.transcripts.files.compressed import ZST_SUFFIX, CorruptFile, decompress

    try:
        data = path.read_bytes()
    except OSError:
        return b""
    if path.name.endswith(ZST_SUFFIX):
        try:
            data = decompress(data).data  # bounded, like the parser (zstd bombs)
        except CorruptFile:
            return b""
    return data


def _lines_with(data: bytes, needles: Iterable[bytes]) -> list[bytes]:
    """The lines of `data` holding any of `needles`, in file order. Found with
    bytes.find (C speed), not line by line: a run asks this of every session since the
    oldest rule in place, and the records are a few lines among thousands."""
    starts: set[int] = set()
    for needle in needles:
        at = data.find(needle)
        while at >= 0:
            starts.add(data.rfind(b"\n", 0, at) + 1)
            at = data.find(needle, at + len(needle))
    out: list[bytes] = []
    for start in sorted(starts):
        end = data.find(b"\n", start)
        out.append(data[start:end if end >= 0 else len(data)])
    return out


def records_of(session_ids: Iterable[str], files: Mapping[str, tuple[Path | None, str]],
               root: Path | None = None) -> dict[str, Records]:
    """Every record of each session: the plugin's lines and its transcript's own
    (`files`: session id -> (transcript path, provider))."""
    ids = list(session_ids)
    hook = hook_records(ids, root)
    out: dict[str, Records] = {}
    for sid in ids:
        path, provider = files.get(sid, (None, ""))
        found = transcript_records(path, provider) if path is not None else None
        if sid in hook or found is not None:
            out[sid] = Records(hook=hook.get(sid), transcript=found)
    return out
