"""What a transcript says about itself, read from a few KB of it: its head and its tail.

Discovery decides scope for thousands of files, so it never parses one: the
head gives the cwd (the project filter), the session id and, for Codex, whether
the rollout is a subagent's; the tail gives the last activity (`--since`). Both
read whatever era's shape the file has, and `.jsonl.zst` files by streaming.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import msgspec

from learn.lazy import lazy_pattern
from learn.transcripts.files.compressed import ZST_SUFFIX, read_prefix, read_suffix
from learn.transcripts.files.sources import open_regular, regular_fd, source_stat
from learn.transcripts.ids import Provider
from learn.transcripts.mend import UTF8_BOM, mended

__all__ = ["HEAD_VERSION", "Head", "Provider", "last_activity", "read_head"]

# The version of what `read_head` returns, kept with each head the session index stores
# (learn.index.indexed.CachedHeads, migration 0028): a stored head is used only when an
# equal version stored it, so a head read wrong by an older reader is read again once,
# not kept until its file changes (a finished session's never does). Bump it with any
# change that reads a file's head differently. 1: a first line two records a crash
# spliced together gives its cwd and session id (`_spliced_fields`); before, such a
# session was stored with no cwd and listed in no project.
HEAD_VERSION: Final = 1


# The cwd is on the first user/system line of a Claude transcript and on the
# session_meta line of a Codex rollout; both sit in the first few lines. A first
# prompt with a huge paste can push past this, which the regex fallback covers.
_HEAD_BYTES: Final = 64 * 1024
# Read first: the line with the cwd ends within it in most files (the first line of
# 814 of the tree home's 1,018, the fifth at the latest; ~2.3 kB a line there). Reading
# the whole 64 kB window of every file was 0.027-0.048 s of a listing of 1,000 sessions
# against 0.017-0.025 s for this (fresh processes, alternating; one-off). When the cwd
# is not in its complete lines, the window is read whole and scanned as before.
_HEAD_FIRST_BYTES: Final = 8 * 1024
_HEAD_MAX_BYTES: Final = 1024 * 1024
_CWD_RE: Final = lazy_pattern(rb'"cwd"\s*:\s*("(?:[^"\\]|\\.)*")')
_SESSION_ID_RE: Final = lazy_pattern(rb'"sessionId"\s*:\s*("(?:[^"\\]|\\.)*")')
_TIMESTAMP_RE: Final = lazy_pattern(rb'"timestamp"\s*:\s*"([0-9][^"\\]{9,40})"')
# The tail read for last activity: the last lines of a session are small
# (summary, title, a reply), but a final huge tool result can hide the last
# timestamp; the window doubles up to the cap before falling back to mtime.
_TAIL_BYTES: Final = 16 * 1024
_TAIL_MAX_BYTES: Final = 4 * 1024 * 1024


class Head(msgspec.Struct, frozen=True):
    cwd: str | None
    session_id: str | None
    # Codex: the agent kind when the rollout is a subagent's (`codex_meta.subagent_kind`),
    # and the session it was spawned from when the meta names it.
    subagent: str | None = None
    parent_id: str | None = None
    # What the client recorded of the cwd's repository, for the project's identity
    # when the folder is gone (learn.projects): Claude Code's `gitBranch`; Codex's
    # `git` (branch, commit, and the repository URL reduced to a repository id, so
    # no credential in a URL is kept).
    branch: str | None = None
    repository: str | None = None
    commit: str | None = None


def read_head(path: Path, provider: Provider) -> Head:
    """The cwd (and session id) from the first lines of a transcript. Raises OSError."""
    if provider in ("gemini", "copilot", "opencode"):
        return _agent_head(path, provider)
    if path.name.endswith(ZST_SUFFIX):
        data = read_prefix(path, _HEAD_BYTES)
        head, complete = _scan_lines(data, provider)
        if head.cwd is None and not complete:
            data = read_prefix(path, _HEAD_MAX_BYTES)
            head, complete = _scan_lines(data, provider)
    else:
        # Never a FIFO named like a session (`sources`); the fd's own reads, no file
        # object: every file's head is read on a first listing.
        fd, _ = regular_fd(path)
        try:
            data = _read_full(fd, _HEAD_FIRST_BYTES)
            head, complete = _scan_lines(data, provider)
            if head.cwd is None and len(data) == _HEAD_FIRST_BYTES:
                # The rest of the window: what follows is what one read of it gave.
                data += _read_full(fd, _HEAD_BYTES - _HEAD_FIRST_BYTES)
                head, complete = _scan_lines(data, provider)
            # Keep reading while the only thing we have is an unfinished giant line.
            while head.cwd is None and not complete and len(data) < _HEAD_MAX_BYTES:
                more = _read_full(fd, _HEAD_BYTES)
                if not more:
                    break
                data += more
                head, complete = _scan_lines(data, provider)
        finally:
            os.close(fd)
    if head.cwd is None:
        # Last resort on a truncated line: the envelope's "cwd" key appears
        # unescaped only at object level, never inside a string value.
        match = _CWD_RE.search(data)
        if match:
            head = msgspec.structs.replace(head, cwd=_json_str(match.group(1)))
    if head.session_id is None and provider == "claude":
        match = _SESSION_ID_RE.search(data)
        if match:
            head = msgspec.structs.replace(head, session_id=_json_str(match.group(1)))
    if head.cwd is not None and "\x00" in head.cwd:
        # No folder of any system has a NUL in its name: a damaged or forged line, no
        # project (its realpath raised, and every command that listed it exited).
        head = msgspec.structs.replace(head, cwd=None)
    return head


def _read_full(fd: int, size: int) -> bytes:
    """Up to `size` bytes from `fd`, fewer only at the file's end (a file object's read)."""
    data = os.read(fd, size)
    while 0 < len(data) < size:
        more = os.read(fd, size - len(data))
        if not more:
            break
        data += more
    return data


def _scan_lines(data: bytes, provider: Provider) -> tuple[Head, bool]:
    """(head so far, done): done means stop reading (found, or the head ran out of lines)."""
    if data[:3] == UTF8_BOM:  # a copy a Windows tool saved again (parser.parse_buffer)
        data = data[3:]
    tail_partial = not data.endswith(b"\n")
    session_id: str | None = None
    meta: dict[str, Any] = {}
    first = True
    count = 0
    for raw in _lines(data):
        count += 1
        if count > 200:
            break
        if not raw.strip():
            continue
        try:
            obj = msgspec.json.decode(raw)
        except msgspec.DecodeError:
            # One invalid byte or half an emoji must not hide the line's cwd
            # (transcripts.mend). Mended here, not through `mend.decoded` on every line:
            # a call more per head line was 0.5% of a first listing's instructions.
            fixed = mended(raw)
            try:
                obj = msgspec.json.decode(fixed) if fixed is not None else None
            except (msgspec.DecodeError, RecursionError):
                obj = None
            if obj is None and provider == "claude":
                # Two records a crash spliced on one line (claude.decode.unspliced):
                # the whole one names the cwd, where the regex below read it out of
                # the cut one (a cwd cut mid-path, or another writer's).
                for found in _spliced_fields(raw):
                    session_id, head = _claude_head(found, session_id)
                    if head is not None:
                        return head, True
                continue
        except RecursionError:  # nested too deep to read (claude.decode)
            continue
        if not isinstance(obj, dict):
            continue
        if provider == "codex":
            cwd, sid, meta = _codex_line(obj, first, meta)
            first = False
            session_id = sid or session_id
            if cwd:
                return _codex_head(cwd, session_id, meta), True
        else:
            session_id, head = _claude_head(obj, session_id)
            if head is not None:
                return head, True
    done = not tail_partial or count >= 200
    return _codex_head(None, session_id, meta), done


def _claude_head(fields: Mapping[str, Any],
                 session_id: str | None) -> tuple[str | None, Head | None]:
    """A Claude Code record's part of the head: the session id so far (the first one
    named), and the head when the record names the cwd (None: read on)."""
    sid = fields.get("sessionId")
    if session_id is None and isinstance(sid, str) and sid:
        session_id = sid
    cwd = fields.get("cwd")
    if not (isinstance(cwd, str) and cwd):
        return session_id, None
    branch = fields.get("gitBranch")
    return session_id, Head(cwd, session_id,
                            branch=branch if isinstance(branch, str) and branch else None)


def _spliced_fields(raw: bytes) -> list[Mapping[str, Any]]:
    """The head fields of each whole record on a Claude Code line two records were
    spliced on, in order; none when it is no such line (`claude.decode.unspliced`
    decides, for every reader)."""
    from learn.transcripts.claude.decode import unspliced
    from learn.transcripts.claude.wire import Env
    from learn.transcripts.models import OtherEvent

    spliced = unspliced(raw)
    out: list[Mapping[str, Any]] = []
    for record in spliced or ():
        if isinstance(record, Env):
            out.append({"cwd": record.cwd, "sessionId": record.session_id,
                        "gitBranch": record.git_branch})
        elif isinstance(record, OtherEvent):
            out.append(record.raw)
    return out


def _lines(data: bytes) -> Iterator[bytes]:
    """The complete lines of `data`, as found: the cwd is on one of the first few, and
    splitting the whole 64 kB window first was a third of reading a head."""
    start = 0
    while True:
        end = data.find(b"\n", start)
        if end < 0:
            return
        yield data[start:end]
        start = end + 1


def _codex_line(
    obj: dict[str, Any], first: bool, meta: dict[str, Any]
) -> tuple[str | None, str | None, dict[str, Any]]:
    """(cwd, session id, session_meta payload) from one rollout line, in any era's shape."""
    from learn.transcripts.codex.meta import environment_cwd

    payload = obj.get("payload")
    kind = obj.get("type")
    if not isinstance(payload, dict):
        payload = obj  # flattened records and bare-era lines
    is_meta = kind == "session_meta" or (first and kind is None and "id" in obj)
    sid: str | None = None
    if is_meta:
        meta = payload
        value = payload.get("id") or payload.get("session_id")
        sid = value if isinstance(value, str) and value else None
    cwd = payload.get("cwd")
    if isinstance(cwd, str) and cwd:
        return cwd, sid, meta
    if payload.get("type") == "message" and payload.get("role") == "user":
        # Bare era: the cwd is only in the injected <environment_context>.
        content = payload.get("content")
        texts = [c.get("text") for c in content if isinstance(c, dict)] if isinstance(
            content, list) else [content]
        for text in texts:
            if isinstance(text, str) and (found := environment_cwd(text)):
                return found, sid, meta
    return None, sid, meta


def _codex_head(cwd: str | None, session_id: str | None, meta: Mapping[str, Any]) -> Head:
    from learn.projects.remote import repository_id
    from learn.transcripts.codex.meta import subagent_kind, subagent_parent

    kind = subagent_kind(meta) if meta else None
    git = meta.get("git") if meta else None
    git = git if isinstance(git, Mapping) else {}

    def text(name: str) -> str | None:
        value = git.get(name)
        return value.strip() if isinstance(value, str) and value.strip() else None

    url = text("repository_url")
    return Head(cwd, session_id, kind, subagent_parent(meta) if kind is not None else None,
                branch=text("branch"), repository=repository_id(url) if url else None,
                commit=text("commit_hash"))


def _json_str(literal: bytes) -> str | None:
    try:
        value = msgspec.json.decode(literal)
    except (msgspec.DecodeError, RecursionError):
        return None
    return value if isinstance(value, str) and value else None


def _agent_head(path: Path, provider: Provider) -> Head:
    """Gemini CLI, Copilot CLI and OpenCode: each client's head reader says it."""
    if provider == "gemini":
        from learn.transcripts.gemini.logs import in_logs
        from learn.transcripts.gemini.places import head_of as gemini_head

        logged = in_logs(path)
        if logged is not None:  # a session of `logs.json`: its id is its name
            if source_stat(path) is None:
                raise FileNotFoundError(str(path))
            return Head(None, logged[1])
        got = gemini_head(path)
        # No Gemini record names a cwd: the folder does (`files.agent_listings`).
        return Head(None, got.session_id, got.kind if got.kind == "subagent" else None,
                    got.parent_id)
    if provider == "copilot":
        from learn.transcripts.copilot.places import head_of as copilot_head

        found = copilot_head(path)
        return Head(found.cwd, found.session_id)
    from learn.transcripts.opencode import database, storage
    from learn.transcripts.opencode.places import in_database

    where = in_database(path)
    if where is not None:
        row = database.session_row(*where)
        if row is None:
            raise FileNotFoundError(str(path))
        cwd, sid, parent = row.directory, row.id, row.parent_id
    else:
        stored = storage.session_of(path)
        cwd, sid, parent = stored.directory, stored.id, stored.parent_id
    return Head(cwd, sid, "subagent" if parent else None, parent)


# ---------------------------------------------------------------- last activity


def last_activity(path: Path) -> float | None:
    """Epoch seconds of the newest timestamp near the end of a transcript, or None.

    Reads only the tail (16 KB, doubling while no timestamp is found, up to
    4 MB): the newest line is the last one written. A `"timestamp": "..."`
    key is matched on the raw bytes; inside a JSON string its quotes would be
    escaped, so only real keys match (an envelope's, or a nested record's,
    which is activity too). None when unreadable or no timestamp is found:
    bare-era Codex rollouts have none past their header.
    """
    from learn.transcripts.files.sources import in_store

    if in_store(path):
        # A store's stamp is its newest update (`sources`): no tail to read.
        stat = source_stat(path)
        return stat.mtime if stat is not None and stat.mtime_ns > 0 else None
    try:
        if path.name.endswith(ZST_SUFFIX):
            # No seeking in a zstd stream: one pass keeps the largest window.
            return _newest_timestamp(read_suffix(path, _TAIL_MAX_BYTES))
        # One open for every window, its fstat the size (a stat of the name and an
        # open a window were what this took before).
        fh, st = open_regular(path)
        with fh:
            size = st.st_size
            window = _TAIL_BYTES
            while True:
                fh.seek(max(0, size - window))
                found = _newest_timestamp(fh.read(window))
                if found is not None or window >= min(size, _TAIL_MAX_BYTES):
                    return found
                window *= 2
    except OSError:
        return None


def _newest_timestamp(data: bytes) -> float | None:
    newest: float | None = None
    for match in _TIMESTAMP_RE.finditer(data):
        try:
            value = datetime.fromisoformat(match.group(1).decode("ascii"))
        except (ValueError, UnicodeDecodeError):
            continue
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)  # the clients write UTC
        stamp = value.timestamp()
        if newest is None or stamp > newest:
            newest = stamp
    return newest
