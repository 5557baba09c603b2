"""The LLM miner: one forced-tool call per chunk of one session, then verification.

Chunks of one session are mined in order, one after another; sessions run in
a small thread pool that shares one rate limiter (the backend applies it).
Firing every chunk of every session at once is how a cold backfill trips the
provider's rate limit on exactly the run that has the most to do.

Every call goes through `learn.models.call.call_checked`: a malformed or
schema-invalid answer is repaired (the error sent back) up to twice, a cut one
asked again with a larger budget; a chunk whose answer is still cut is split in
two on a turn boundary and each half asked. A chunk that still fails is
counted and skipped: one bad chunk must not lose a whole run. A session is
failed when every chunk failed or the error cannot get better by retrying
(auth, unknown model); a session with any failed chunk is not cached, so it is
mined again next run rather than frozen with a hole in it.

A key the endpoint refuses (HTTP 401/403 after the preflight took it: `KeyRefused`)
stops the whole run at the first refusal (`RunStopped`, exit 3): it sent one refused
request per session and stage (8 for 7 sessions in the network audit, hundreds on a
large home) and ended with exit 1 and "failed after retries" for calls never retried.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import IO, Any, Final

import click

from learn.mining.cache import CacheEntry, MineCache, rendered_key
from learn.mining.parse import check_answer
from learn.mining.prompt import build_request, system_prompt
from learn.mining.sent import SentViews
from learn.mining.verify import quote_found, session_commands, still_typed, verify_candidates
from learn.models.base import (
    Backend,
    CallUsage,
    KeyRefused,
    ModelError,
    PromptTooLong,
    TruncatedAnswer,
    abort_calls,
)
from learn.models.call import call_checked
from learn.models.catalog import model_info
from learn.records.candidate import MinedCandidate, SessionCandidates
from learn.redaction.redact import redact
from learn.render.chunk import (
    as_sent,
    chunk_chars_for_model,
    chunk_groups,
    halve_group,
    mine_max_tokens,
)
from learn.render.render import render_blocks, user_turns
from learn.render.spoken import spoken_turns
from learn.transcripts.view.model import Session

# Errors no retry on the next chunk can fix; the session stops at the first.
# "Not logged in" is what `claude -p` answers without a login (Claude Code 2.1.332).
_FATAL_MARKERS: Final = ("HTTP 401", "HTTP 403", "HTTP 404", "no Anthropic API key",
                         "Not logged in")


@dataclass(frozen=True, slots=True)
class SessionMineResult:
    session_id: str
    candidates: tuple[MinedCandidate, ...] = ()
    dropped_unverified: int = 0  # quotes not found in what the user typed
    dropped_fix_command: int = 0  # fixes whose command never ran, or never failed
    chunks: int = 0
    failed_chunks: int = 0
    # Chunks whose answer was still cut at max_tokens after a larger budget;
    # each was split in two and asked again (split_chunks), never kept partial.
    truncated_chunks: int = 0
    split_chunks: int = 0
    usage: CallUsage = field(default_factory=CallUsage)
    error: str | None = None  # set when the session failed as a whole
    cached: bool = False  # served from the cache, no model call
    session: SessionCandidates | None = None
    # Candidates verification threw away this run (not kept in the cache).
    dropped: tuple[MinedCandidate, ...] = ()
    # Verification's drops by reason (see learn.mining.verify.REASONS).
    dropped_by_reason: dict[str, int] = field(default_factory=dict)
    # The last chunk failure of a session that still completed in part.
    chunk_error: str | None = None

    @property
    def failed(self) -> bool:
        return self.error is not None

    @property
    def complete(self) -> bool:
        """Every chunk answered: safe to cache."""
        return self.error is None and self.failed_chunks == 0


class RunStopped(click.ClickException):
    """The endpoint refused the key mid-run: nothing more is asked, and the run ends as
    one whose key the preflight refused does (exit 3, learn.errors.EXIT_UNAVAILABLE;
    not imported: learn.errors reaches doctor, above this layer)."""

    exit_code = 3

    def __init__(self, refused: KeyRefused, *, done: int, total: int) -> None:
        left = total - done
        super().__init__(
            f"{refused} (the run stopped at this refusal, asking nothing more: {done} of "
            f"{total} session(s) done; the next run mines the other {left})")
        self.refused = refused

    def show(self, file: IO[Any] | None = None) -> None:
        click.echo(f"learn run: {self.format_message()}", err=True)


def _is_fatal(exc: ModelError) -> bool:
    return bool(getattr(exc, "fatal", False)) or any(m in str(exc) for m in _FATAL_MARKERS)


def default_chunk_chars(model: str, *, context_window: int | None = None) -> int:
    info = model_info(model, context_window=context_window)
    return chunk_chars_for_model(info.context_window, info.max_output_tokens, len(system_prompt()))


def session_candidates(session: Session, candidates: Sequence[MinedCandidate]) -> SessionCandidates:
    last = session.last_activity or session.started_at
    return SessionCandidates(
        session_id=session.id,
        provider=session.provider,
        project=session.project,
        last_activity=last.isoformat() if last is not None else None,
        candidates=typed_times(candidates, session),
    )


def typed_times(candidates: Sequence[MinedCandidate], session: Session,
                fingerprints: Sequence[str] = ()) -> tuple[MinedCandidate, ...]:
    """Each quote dated with the turn it was typed in: a quote said on Monday in a
    session that went on until Friday is Monday's, not the session's last activity.

    A kept quote is the person's exact span of one (redacted) turn, so a substring
    test finds its turn; verification's matcher is the fallback (fragments joined
    by an ellipsis). A fix (a description, not a quote) and a quote already dated
    keep their time; one found nowhere keeps None (the session's time stands in).
    Runs on every cached session of a warm run, hence the cheap test first.
    """
    if all(c.at is not None or c.kind == "fix" for c in candidates):
        return tuple(candidates)
    turns = [t for t in user_turns(session, fingerprints) if t.at is not None]
    redacted: list[str] | None = None

    def typed(text: str) -> str | None:
        nonlocal redacted
        for t in turns:
            if text in t.text:
                return t.at.isoformat() if t.at else None
        if redacted is None:  # a quote holding a redaction placeholder
            redacted = [redact(t.text) for t in turns]
        for found in (str.__contains__, lambda said, q: quote_found(q, said)):
            for t, said in zip(turns, redacted, strict=True):
                if found(said, text):
                    return t.at.isoformat() if t.at else None
        return None

    return tuple(c if c.at is not None or c.kind == "fix" else replace(c, at=typed(c.text))
                 for c in candidates)


def mine_session(
    session: Session,
    backend: Backend,
    *,
    model: str,
    fingerprints: Sequence[str] = (),
    chunk_chars: int | None = None,
    context_window: int | None = None,
) -> SessionMineResult:
    """Mine one session: render, chunk, one call per chunk in order, verify."""
    info = model_info(model, context_window=context_window)
    budget = chunk_chars if chunk_chars is not None else default_chunk_chars(
        model, context_window=context_window
    )
    # A session with nothing the user said and nothing that failed has nothing
    # to notice; it costs no call.
    if not session.human_turns and not session.failures:
        return SessionMineResult(session.id, session=session_candidates(session, ()))
    groups = chunk_groups(render_blocks(session, fingerprints), budget)
    max_tokens = mine_max_tokens(info.context_window, info.max_output_tokens)
    raw: list[MinedCandidate] = []
    usage = CallUsage()
    failed = truncated = split = 0
    last_error: str | None = None
    fatal = False

    def ask(blocks: Sequence[str]) -> list[MinedCandidate]:
        nonlocal usage
        request = build_request(as_sent("\n".join(blocks), budget), model=model,
                                max_tokens=max_tokens)
        try:
            checked = call_checked(backend, request, check_answer)
        except ModelError as exc:
            usage = usage + exc.usage
            raise
        usage = usage + checked.response.usage
        return checked.value

    for group in groups:
        try:
            try:
                raw.extend(ask(group))
            except (TruncatedAnswer, PromptTooLong) as cut:
                # Still cut with the larger budget: half the transcript needs
                # about half the answer. Refused as too long for the model (an
                # endpoint whose window is smaller than the catalog says): half
                # the transcript is half the prompt. A half that fails again
                # fails the chunk.
                truncated += isinstance(cut, TruncatedAnswer)
                halves = halve_group(group)
                if halves is None:
                    raise ModelError(f"{cut}; the chunk is one turn and cannot be split") from cut
                split += 1
                found: list[MinedCandidate] = []
                for half in halves:
                    found.extend(ask(half))
                raw.extend(found)
        except KeyRefused:
            raise  # the run stops (mine_sessions), not only this session
        except ModelError as exc:
            failed += 1
            last_error = str(exc)
            if _is_fatal(exc):
                fatal = True
                break
    if groups and (fatal or failed == len(groups)):
        return SessionMineResult(
            session.id, chunks=len(groups), failed_chunks=failed, truncated_chunks=truncated,
            split_chunks=split, usage=usage, error=last_error or "every chunk failed",
        )
    verified = verify_candidates(
        raw, spoken_turns(session, fingerprints), commands=session_commands(session),
        failed=session_commands(session, failed=True),
    )
    kept = typed_times(verified.kept, session, fingerprints)  # on the turns verification saw
    return SessionMineResult(
        session_id=session.id,
        candidates=kept,
        dropped_unverified=verified.dropped_unquoted + verified.dropped_short,
        dropped_fix_command=verified.dropped_fix_command,
        chunks=len(groups),
        failed_chunks=failed,
        truncated_chunks=truncated,
        split_chunks=split,
        usage=usage,
        chunk_error=last_error,
        session=session_candidates(session, kept),
        dropped=verified.rejected,
        dropped_by_reason=verified.by_reason(),
    )


def _cached(session: Session, cache: MineCache | None,
            fingerprints: Sequence[str] = ()) -> tuple[str | None, SessionMineResult | None]:
    if cache is None or session.path is None:
        return None, None
    try:
        key = cache.key_for_file(session.path)
    except OSError:
        return None, None
    return key, _entry(session, cache.get(key), fingerprints)


def _entry(session: Session, entry: CacheEntry | None,
           fingerprints: Sequence[str] = ()) -> SessionMineResult | None:
    """A cached answer as this session's."""
    if entry is None:
        return None
    # Identity and dates come from the session as read now; the candidates from the
    # cache, less any quote the view no longer has the person type (`still_typed`: a
    # later session made it a cross-session template).
    kept, gone = still_typed(entry.candidates.candidates, session, fingerprints)
    by_reason = entry.dropped_by_reason
    if gone:
        by_reason = {**by_reason, "paraphrase": by_reason.get("paraphrase", 0) + len(gone)}
    fresh = session_candidates(session, kept)
    return SessionMineResult(
        session.id, candidates=fresh.candidates,
        dropped_unverified=entry.dropped_unverified + len(gone), chunks=entry.chunks,
        cached=True, session=fresh, dropped=gone, dropped_by_reason=by_reason,
    )


def mine_sessions(
    sessions: Sequence[Session],
    backend: Backend,
    *,
    model: str,
    cache: MineCache | None = None,
    concurrency: int = 4,
    fingerprints: Sequence[str] = (),
    chunk_chars: int | None = None,
    context_window: int | None = None,
    on_progress: Callable[[SessionMineResult], None] | None = None,
    older: Sequence[Session] = (),
) -> list[SessionMineResult]:
    """Mine many sessions (cache first), `concurrency` at a time; results in input order.

    Each is sent without what it copied from another (`sent.SentViews`), of those given
    or of `older`, sessions not mined here (the hook's worker: those a resume copied).
    `on_progress` is called once per session as it finishes, from worker
    threads but never concurrently.
    """
    budget = chunk_chars if chunk_chars is not None else default_chunk_chars(
        model, context_window=context_window
    )
    progress_lock = threading.Lock()
    if cache is not None:
        # Once per run: entries for transcripts long gone (or re-keyed by a
        # version bump) would otherwise pile up forever.
        with contextlib.suppress(OSError):
            cache.prune()

    def keep(where: MineCache | None, key: str, hit: SessionMineResult) -> None:
        if where is None or not hit.complete or hit.session is None:
            return
        # An unwritable cache costs a re-mine next run, not this run.
        with contextlib.suppress(OSError):
            where.put(key, hit.session, dropped_unverified=hit.dropped_unverified,
                      chunks=hit.chunks, dropped_by_reason=hit.dropped_by_reason)

    refused: list[KeyRefused] = []
    sent = SentViews(sessions, older)

    def mined(session: Session) -> SessionMineResult:
        if refused:  # the key was refused: no session is asked after that
            return SessionMineResult(session.id, error=f"not mined: {refused[0]}")
        try:
            return mine_session(
                session, backend, model=model, fingerprints=fingerprints,
                chunk_chars=budget, context_window=context_window,
            )
        except KeyRefused as exc:
            with progress_lock:
                refused.append(exc)
            return SessionMineResult(session.id, error=str(exc))
        except Exception as exc:  # a bug in one session must not lose the others
            return SessionMineResult(session.id, error=f"{type(exc).__name__}: {exc}")

    def one(session: Session) -> SessionMineResult:
        key, hit = _cached(session, cache, fingerprints)
        if hit is None and cache is not None and key is not None:
            # Claimed while asked (MineCache.claim): the hook's worker and a run mining
            # the same session at once paid for it twice.
            with cache.claim(key):
                hit = _entry(session, cache.get(key), fingerprints)  # mined by the holder waited for
                if hit is None:
                    asked = sent.of(session)
                    # The same text sent under another of learn's versions (rendered_key).
                    blocks = render_blocks(asked, fingerprints)
                    hit = _entry(session, cache.as_sent(session.id, blocks), fingerprints)
                    if hit is not None:
                        keep(cache, key, hit)
                    else:
                        hit = mined(asked)
                        keep(cache, key, hit)
                        keep(cache.sent(), rendered_key(blocks), hit)
        elif hit is None:
            hit = mined(sent.of(session))
        if on_progress is not None:
            with progress_lock:
                on_progress(hit)
        return hit

    if concurrency <= 1 or len(sessions) <= 1:
        return _unless_refused([one(s) for s in sessions], refused)
    from learn.waiting import results as results_of

    pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="learn-mine")
    try:
        # In slices, not pool.map's untimed wait: a Ctrl-C the kernel handed to a
        # worker thread is raised here within a slice (learn.waiting).
        results = results_of([pool.submit(one, s) for s in sessions])
    except BaseException:
        # Ctrl-C (or an error) reaches this thread only. Waiting for the pool here
        # waited for every session already taken: a worker that started `claude -p`
        # just after the terminal's SIGINT went on for its full call (a 60 s stub
        # call: tests/test_interrupted_mining.py), and one waiting out a 529 slept
        # on. So the calls are ended (abort: claude processes killed, retry waits
        # woken) and the pool is not waited for; what a worker finished is already
        # in the cache, and the CLI ends the process (learn.cli.main).
        abort_calls(backend)
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return _unless_refused(results, refused)


def _unless_refused(results: list[SessionMineResult], refused: Sequence[KeyRefused]) -> list[SessionMineResult]:
    """`results`, or RunStopped when the key was refused on the way."""
    if not refused:
        return results
    done = sum(1 for r in results if not r.failed)
    # The refusal itself, not a later call's "not sent" (workers race to report).
    first = next((r for r in refused if r.sent), refused[0])
    raise RunStopped(first, done=done, total=len(results))
