"""Per-session cache of verified candidates.

Keyed by the sha256 of the transcript's bytes plus the render and prompt
versions, and never by the model: a cached candidate carries no label and no
model id, so changing the mining model does not fork the vocabulary (hoocode's
label-in-cache did, permanently: old and new sessions named the same thing
differently and neither reached the threshold). Content rather than mtime,
because resumed or copied files get a new mtime and live sessions change.

A cache rather than a cursor: reduce re-counts every cached session in the
window on every run, so cross-session counts stay exact. Only sessions that
mined cleanly are stored; a failed one is retried next run. A corrupt entry is
a miss, never an error.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from learn.mining.prompt import prompt_version
from learn.paths import atomic_write_text, cache_dir, ensure_private_dir
from learn.records.candidate import KINDS, MinedCandidate, SessionCandidates
from learn.redaction.redact import redact
from learn.render_version import RENDER_VERSION

DEFAULT_MAX_AGE_DAYS: Final = 180
# A temp file older than this is a write that was killed (paths.atomic_write_bytes).
_STALE_TEMP_SECONDS: Final = 3600
_FORMAT: Final = 1
# Claims of sessions being mined (`MineCache.claim`): one empty lock file per key, an
# hour old at the next prune (no session's mining holds one that long).
_CLAIMS: Final = "claims"
# Answers under what was sent (`rendered_key`, `MineCache.sent`).
_SENT: Final = "sent"
# How long a process waits for another that is mining the same session: longer than
# one session's calls with their retries take, shorter than forever.
CLAIM_WAIT_S: Final = 900.0


def mining_version() -> str:
    """What, besides the transcript, decides what the miner finds. Not the model."""
    return f"render{RENDER_VERSION}-mine{prompt_version()}"


def file_digest(path: Path) -> str:
    """sha256 of a session's bytes: a file's, or the export of one a store holds (an
    OpenCode database's, a Gemini CLI `logs.json`'s: `<file>/<id>`, no file to open).
    Raises OSError."""
    from learn.transcripts.files.sources import in_store, read_session

    if in_store(path):
        return hashlib.sha256(read_session(path)[0]).hexdigest()
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def cache_key(content_sha256: str, version: str | None = None) -> str:
    v = version if version is not None else mining_version()
    return hashlib.sha256(f"{content_sha256}\0{v}".encode()).hexdigest()


def rendered_key(blocks: Sequence[str]) -> str:
    """A second key of a session's answers: what the model is sent of it (its rendered
    blocks, redacted) under the mining prompt's version, and nothing of learn's versions.

    A new render or redaction version changes `cache_key` for every session, and every
    one was mined again at the next run, paid for: nine redaction versions, each one
    the person's whole history. Most sessions render the same text under a new rule
    set (a rule for a secret they never typed), and the same text sent under the same
    prompt is the same question: the answer kept under this key is reused, and only a
    session whose text did change is asked again. Not the model: as `cache_key`. Only
    the session that was answered reuses it (the miner checks the entry's id): another
    of the same text dates its quotes from its own turns."""
    h = hashlib.sha256(f"rendered\0mine{prompt_version()}\0".encode())
    for block in blocks:
        h.update(block.encode("utf-8", "surrogatepass") + b"\x1e")
    return h.hexdigest()


@dataclass(frozen=True, slots=True)
class CacheEntry:
    key: str
    candidates: SessionCandidates
    # What verification dropped when this was mined, for the funnel.
    dropped_unverified: int = 0
    chunks: int = 0
    mined_at: str | None = None
    # The same drops per reason (paraphrase, too_short, fix_command).
    dropped_by_reason: dict[str, int] = field(default_factory=dict)


# What a quote kept before the `[Image #N]` placeholders were cut from typed text (view
# version 22, learn.transcripts.view.typed.strip_image_placeholders; the `[Image: source:
# <path>]` blocks that name a picture's file, view 23): the token a client writes where a
# picture was pasted, quoted as if typed ("[Image #1] the header overlaps the logo").
# The render version was not bumped with either cut: that would mine every session of
# every home again, paid for, to remove a token from the few quotes that hold one. It is cut where a cached answer is read instead, and that is exact: a
# directive's or a request's text is a span of the person's typed turn (mining.verify
# re-anchors it there), today's typed turns hold no such token (the same function cuts
# it from them, and leaves a token that is an attribute's value alone in both), so a
# token in a cached quote is one the old reading left in, and cutting it from the quote
# leaves a span of the turn as it reads now. A quote that was only the token is no quote.
_QUOTE_KINDS: Final = frozenset({"directive", "request"})


def _quoted(kind: str, text: str) -> str:
    """A cached quote as today's typed text reads it (above)."""
    if kind not in _QUOTE_KINDS or "[Image" not in text:
        return text
    from learn.transcripts.view.typed import strip_image_placeholders

    bare = strip_image_placeholders(text)
    return bare if bare.strip() else ""


def _candidate_from(raw: Any) -> MinedCandidate | None:
    if not isinstance(raw, Mapping) or raw.get("kind") not in KINDS:
        return None
    text = raw.get("text")
    if not isinstance(text, str) or not text:
        return None
    text = _quoted(raw["kind"], text)
    if not text:
        return None

    def opt(name: str) -> str | None:
        v = raw.get(name)
        return v if isinstance(v, str) else None

    def strs(name: str) -> tuple[str, ...]:
        v = raw.get(name)
        return tuple(s for s in v if isinstance(s, str)) if isinstance(v, list) else ()

    return MinedCandidate(
        kind=raw["kind"],
        text=text,
        rationale=opt("rationale"),
        command=opt("command"),
        error_excerpt=opt("error_excerpt"),
        intervening_commands=strs("intervening_commands"),
        edited_files=strs("edited_files"),
        source=opt("source") or "miner",
        at=opt("at"),
    )


def _counts(raw: Any) -> dict[str, int]:
    if not isinstance(raw, Mapping):
        return {}
    return {str(k): v for k, v in raw.items() if isinstance(v, int)}


class MineCache:
    """Verified candidates per session under `<root>/mined/<key>.json` (0600, atomic)."""

    def __init__(self, root: Path | None = None, *, max_age_days: int = DEFAULT_MAX_AGE_DAYS) -> None:
        self.dir = (root if root is not None else cache_dir()) / "mined"
        self.max_age_days = max_age_days
        # The first write that failed ("<dir>: Not a directory"), for the run to
        # say: callers go on without the cache, and every session it could not
        # keep is mined, and paid for, again by the next run.
        self.write_failure: str | None = None

    def sent(self) -> MineCache:
        """The same answers kept under what was sent (`rendered_key`), in a folder of
        their own beside the entries (`mined/sent/`), pruned with them."""
        inner = MineCache(max_age_days=self.max_age_days)
        inner.dir = self.dir / _SENT
        return inner

    def as_sent(self, session_id: str, blocks: Sequence[str]) -> CacheEntry | None:
        """The answer kept under `blocks` (the session's text as sent, `rendered_key`) when
        it answered `session_id`: another session of the same text dates its quotes from
        its own turns. The one test the miner, the plan and a batch ask."""
        entry = self.sent().get(rendered_key(blocks))
        return entry if entry is not None and entry.candidates.session_id == session_id else None

    def path_for(self, key: str) -> Path:
        return self.dir / f"{key}.json"

    def key_for_file(self, transcript: Path) -> str:
        return cache_key(file_digest(transcript))

    def get(self, key: str) -> CacheEntry | None:
        try:
            data = json.loads(self.path_for(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("format") != _FORMAT or data.get("key") != key:
            return None
        rows, session_id = data.get("candidates"), data.get("session_id")
        if not isinstance(rows, list) or not isinstance(session_id, str):
            return None
        candidates = tuple(c for c in (_candidate_from(r) for r in rows) if c is not None)

        def opt(name: str) -> str | None:
            v = data.get(name)
            return v if isinstance(v, str) else None

        def num(name: str) -> int:
            v = data.get(name)
            return v if isinstance(v, int) else 0

        return CacheEntry(
            key=key,
            candidates=SessionCandidates(
                session_id=session_id,
                provider=opt("provider") or "claude",
                project=opt("project"),
                last_activity=opt("last_activity"),
                candidates=candidates,
            ),
            dropped_unverified=num("dropped_unverified"),
            chunks=num("chunks"),
            mined_at=opt("mined_at"),
            dropped_by_reason=_counts(data.get("dropped_by_reason")),
        )

    def put(
        self, key: str, entry: SessionCandidates, *, dropped_unverified: int = 0, chunks: int = 0,
        dropped_by_reason: Mapping[str, int] | None = None,
    ) -> None:
        """Keep `entry` under `key`. An OSError is raised (and the first one kept
        in `write_failure`): the caller decides whether the run goes on."""
        rows = []
        for c in entry.candidates:
            row = asdict(c)
            # Redacted at verification already; again here because this is disk.
            for name in ("text", "rationale", "command", "error_excerpt"):
                if isinstance(row.get(name), str):
                    row[name] = redact(row[name])
            for name in ("intervening_commands", "edited_files"):
                row[name] = [redact(s) for s in row[name]]
            rows.append(row)
        data = {
            "format": _FORMAT,
            "key": key,
            "version": mining_version(),
            "session_id": entry.session_id,
            "provider": entry.provider,
            "project": entry.project,
            "last_activity": entry.last_activity,
            "candidates": rows,
            "dropped_unverified": dropped_unverified,
            "dropped_by_reason": dict(dropped_by_reason or {}),
            "chunks": chunks,
            "mined_at": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        try:
            ensure_private_dir(self.dir)
            atomic_write_text(self.path_for(key), json.dumps(data, ensure_ascii=False, indent=1))
        except OSError as exc:
            if self.write_failure is None:
                self.write_failure = f"{self.dir}: {exc.strerror or exc}"
            raise

    @contextlib.contextmanager
    def claim(self, key: str, *, wait: float = CLAIM_WAIT_S) -> Iterator[None]:
        """Mine `key` alone: hold its claim while the model is asked, so another
        process about to mine the same session (the SessionEnd hook's worker and a
        `learn run` that started while it was mining) waits for this one and finds
        the entry instead of paying for the same calls again. The worker yields to
        a run before it starts a session, but a run started after that found the
        session uncached and mined it too.

        A file lock (`filelock`: flock, or Windows' own locking) the system lets go of
        when its holder dies. Waits at most `wait` seconds (a holder stuck past every
        retry budget), then goes on unclaimed: at worst paying twice, as before. A
        folder that cannot hold the lock file claims nothing (the cache's own write
        then fails and says so)."""
        from filelock import FileLock, Timeout

        try:
            ensure_private_dir(self.dir / _CLAIMS)
        except OSError:
            yield
            return
        lock = FileLock(str(self.dir / _CLAIMS / f"{key}.lock"), mode=0o600)
        try:
            lock.acquire(timeout=wait, poll_interval=0.2)
        except (Timeout, OSError):
            yield
            return
        try:
            yield
        finally:
            lock.release()

    def prune(self, *, now: float | None = None) -> int:
        """Delete entries written more than max_age_days ago, and what a write killed
        half-way left (its temp file, an hour old: no write takes that long); returns
        how many went. A SIGKILL during a write left `.<key>.json.*.tmp` files that
        no prune removed."""
        if not self.dir.is_dir():
            return 0
        removed = self.sent().prune(now=now) if self.dir.name != _SENT else 0
        at = now if now is not None else time.time()
        cutoff = at - self.max_age_days * 86400
        for pattern, before in (("*.json", cutoff), (".*.json.*.tmp", at - _STALE_TEMP_SECONDS),
                                (f"{_CLAIMS}/*.lock", at - _STALE_TEMP_SECONDS)):
            for path in self.dir.glob(pattern):
                with contextlib.suppress(OSError):
                    if path.stat().st_mtime < before:
                        path.unlink()
                        removed += 1
        return removed
