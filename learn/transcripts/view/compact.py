"""The session view and its detector candidates as compact bytes (the session index, the pool).

A view crosses two boundaries as bytes: from a parse worker back to the parent
(pickling every event cost about as much as parsing it, so workers build the
view and send this), and into the session index (learn.store.session_index).
msgpack via msgspec, positional tuples, timestamps as ISO strings (they keep
their own UTC offset; msgpack's timestamp extension would come back in UTC and
print differently).

A stored tool call keeps of its input only INPUT_KEYS, the keys anything
downstream of the view reads (mining.verify: the command that ran); the rest
(a Write's whole file, an Edit's strings) is what made redacting a stored view
cost 40% of a cold scan, and nothing reads it from here (`learn show` builds
its views from the file).

VIEW_VERSION is part of every index entry: bump it whenever a code change would
build a different view (or different detector candidates) from the same bytes,
and every stale entry is re-read. RENDER_VERSION is folded in too, because the
renderer's version already moves with view changes the miner sees.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import msgspec

if TYPE_CHECKING:
    from learn.records.candidate import MinedCandidate
from learn.transcripts.nesting import map_strings
from learn.transcripts.view.model import (
    Denial,
    HumanTurn,
    Interrupt,
    Session,
    TimelineItem,
    ToolCall,
    ToolFailure,
)

# v1: the first compact view (session.py and evidence.py as of issue 13).
# v2: the session's entrypoint and origin (issue 17).
# v3: detector candidates in any language (issue 19: unspaced word counts,
#     plan rejections gated on shape, not English words).
# v4: an entry keeps its redacted human turns, not hashes of long prompts
#     (learn.index.indexed_turns).
# v5: what the file says of its origin (`Session.signals`), skip counts by reason,
#     spec prompt bodies known by shape, new machine inputs and pasted reports cut.
# v6: a fork (`forkedFrom`) starts at its first entry of its own, and a turn it
#     copied keeps its original's uuid (one typed turn, one session).
# v7: detector candidates include the person's words rated over the threshold,
#     for offline runs (learn.detect.to_candidates.SAID).
# v9: a call's line and a failure's output cut between words, never inside one (a
#     secret's piece no redaction rule knew: learn.transcripts.view.calls).
# v10: a Gemini CLI reply's tool results on the branch its next message follows (a
#     failed call was no failure, its results a branch of their own).
# v11: a line holding half a surrogate pair is read, mended (learn.transcripts.mend): it
#     was skipped as undecodable, and the turns after it hung from nothing.
# v12: a transcript starting with a byte order mark keeps its first line (a copy saved
#     again on Windows lost its first prompt, or Codex's session_meta).
# v13: a Codex call the person declined (`exec command rejected by user`) is a denial, one a
#     policy refused a rule's (it read as a successful output); Codex's context blocks
#     sent as user messages (about 0.3x) are no typed turns.
# v14: Codex 0.171's typed prompts (`item_completed` UserMessage: it writes no
#     `user_message` any more) are typed turns, once where a rollout has both; a reply
#     like the last turn's is no copy of it once a new turn started.
#     Claude Code 2.1.332's untagged `/code-review args` record (its /review) is a
#     command's record, its arguments typed, not the words "/code-review".
# v15: a Codex call stopped by Esc or declined at 0.171's prompt ("aborted by user") is an
#     interrupted call the interrupt detector sees; 0.171's policy refusals are a rule's denials.
# v16: OpenCode: a command's body (its template in OpenCode's config) is not typed, a fork's
#     copies of earlier messages are not typed again, `opencode run` is headless and its
#     automatic rejections a rule's; Copilot CLI: a `--deny-tool` refusal is a rule's
#     denial (was a failure), `copilot -p` is headless.
# v17: Gemini CLI: a history the client writes again (`setHistory`: a cancelled turn, `/chat
#     resume`) is not typed again; a `!cmd` turn is a shell line; "Request cancelled." and a
#     call stopped by Esc are interrupts, not denials.
# v18: a bare value on a line of its own in a reply to a question naming a password or a key
#     is replaced like a one-line reply (learn.secret_answers). The render version is kept:
#     a session mined before was sent as it was, and asking again would send nothing less.
# v19: a Claude Code entry whose `timestamp` is missing, null, an epoch number or without
#     an offset is read (its time mended, or lent by its neighbour), not skipped as invalid
#     (learn.transcripts.claude.decode, crash audit 61 F3).
# v20: OpenCode: what `opencode run` appends from piped stdin is context, not typed, and the
#     quotes it puts round an argument are no part of it; a reply left unfinished (a `run`
#     killed mid-answer) is an interrupt. Gemini CLI: a logged `!cmd` a saved history names
#     (`/chat save`, checkpointing) is a shell line when `shell_history` no longer has it.
# v21: format-drift audit of late-2026 clients: a Claude Code line NUL padding surrounds (a
#     crash's zero-filled blocks) is read, as are both records of a line two writers
#     spliced; the `<pasted_content id=...>` lines Claude Code wraps a paste in are not
#     typed (the paste is); a `promptSource: "system"` prompt is the client's; a prompt
#     queued as content blocks (2.1.241 on) is a queued turn; Codex code mode's `exec`
#     scripts run the commands they name, and a failed script is a failure.
# v22: the `[Image #N]` tokens a client writes where a picture was pasted are not typed
#     (a prompt of only those is no typed turn), so a quote or a repeated prompt no
#     longer holds them.
# v23: Codex code mode: a command named through a variable bound once to a literal is the
#     command run, a patch applied from a script is an `apply_patch` call, a call declined
#     or refused inside a script is a denial (no longer a failure), and an interpolated
#     template is no command; the `[Image: source: ...]` / `[Image: original ...]` blocks
#     Claude Code writes for a picture are cut from typed text wherever they sit.
# v24: a review bot's pull-request comment pasted into a message (copied from the web page:
#     "<handle> bot", when it commented, a finding tag; or the markdown it posts) is not
#     typed; the person's words before it and after the page's end of it stay.
# v25: such a comment copied without the page's end no longer runs to the message's end:
#     the person's paragraphs at its foot (their voice, nothing of the comment's shape) stay.
# v26: Gemini CLI: a tool call stopped while it ran (Esc) is an interrupt, not a decline
#     (gemini.lower._stopped); a VS Code Copilot prompt is its <userRequest> (copilot); a
#     Codex custom prompt's turn names its command (prompt_bodies.prompt_body).
VIEW_VERSION: Final = 26
INPUT_KEYS: Final = ("command", "cmd")

_TURN, _CALL, _FAIL = 0, 1, 2
_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder()


@cache
def _candidates() -> msgspec.msgpack.Decoder[tuple[MinedCandidate, ...]]:
    """Made on first use: the candidate record's module took 2.5 ms to import in
    `learn show`, which decodes none (issue 32)."""
    from learn.records.candidate import MinedCandidate

    return msgspec.msgpack.Decoder(tuple[MinedCandidate, ...])


def view_version() -> str:
    """The version an index entry must carry to be used (view and render versions)."""
    from learn.render_version import RENDER_VERSION

    return f"view{VIEW_VERSION}-render{RENDER_VERSION}"


def _iso(at: datetime | None) -> str | None:
    return at.isoformat() if at is not None else None


def _dt(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value is not None else None


Clean = Callable[[str], str]


def _same(text: str) -> str:
    return text


def _opt(text: str | None, clean: Clean) -> str | None:
    return clean(text) if text is not None else None


def _turn(t: HumanTurn, clean: Clean) -> tuple[Any, ...]:
    return (_TURN, clean(t.text), t.origin, _iso(t.at), t.event_index, t.uuid,
            _opt(t.command, clean), t.on_branch, t.filled)


def _item(item: TimelineItem, clean: Clean) -> tuple[Any, ...]:
    if isinstance(item, HumanTurn):
        return _turn(item, clean)
    if isinstance(item, ToolCall):
        kept = {k: item.input[k] for k in INPUT_KEYS if k in item.input}
        return (_CALL, item.id, item.name, clean(item.summary), map_strings(kept, clean),
                _iso(item.at), item.event_index)
    return (_FAIL, item.tool_use_id, item.tool_name, clean(item.excerpt), _iso(item.at),
            item.event_index)


def encode_view(session: Session, clean: Clean = _same) -> bytes:
    """The view as compact bytes; human turns on the timeline are stored once.

    `clean` is applied to every text the person or a tool wrote (the session
    index passes `redact`: the index is on disk).
    """
    on_timeline = {id(item): i for i, item in enumerate(session.timeline)}

    def ref(item: TimelineItem) -> int | tuple[Any, ...]:
        # Items on the timeline are stored once and referenced by position; an
        # off-branch turn (or an item of a hand-built view) is stored whole.
        at = on_timeline.get(id(item))
        return at if at is not None else _item(item, clean)

    return _encoder.encode((
        session.id, session.provider, str(session.path) if session.path else None,
        session.project, _iso(session.started_at), _iso(session.last_activity),
        [_item(i, clean) for i in session.timeline], [ref(t) for t in session.human_turns],
        [ref(c) for c in session.tool_calls], [ref(f) for f in session.failures],
        [(d.tool_use_id, d.tool_name, d.kind, _opt(d.reason, clean), _iso(d.at), d.event_index)
         for d in session.denials],
        [(_iso(i.at), i.event_index) for i in session.interrupts],
        session.turns, session.size_bytes, session.skipped_lines,
        [str(p) for p in session.subagent_paths],
        session.entrypoint, session.origin, list(session.origin_evidence),
        [clean(s) for s in session.signals], dict(session.skipped),
    ))


def _decode_item(row: Sequence[Any]) -> TimelineItem:
    tag = row[0]
    if tag == _TURN:
        return HumanTurn(row[1], row[2], _dt(row[3]), row[4], row[5], row[6], row[7], row[8])
    if tag == _CALL:
        return ToolCall(row[1], row[2], row[3], row[4], _dt(row[5]), row[6])
    return ToolFailure(row[1], row[2], row[3], _dt(row[4]), row[5])


def decode_view(blob: bytes) -> Session:
    """The inverse of encode_view. Raises ValueError on bytes it did not write."""
    try:
        (sid, provider, path, project, started, last, timeline_rows, turns, calls, failures,
         denials, interrupts, turn_count, size, skipped, subagents, entrypoint, origin,
         evidence, signals, skipped_by_reason) = _decoder.decode(blob)
        timeline = tuple(_decode_item(r) for r in timeline_rows)

        def deref(ref: int | Sequence[Any]) -> Any:
            return timeline[ref] if isinstance(ref, int) else _decode_item(ref)

        return Session(
            id=sid, provider=provider, path=Path(path) if path is not None else None,
            project=project, started_at=_dt(started), last_activity=_dt(last),
            timeline=timeline,
            human_turns=tuple(deref(t) for t in turns),
            tool_calls=tuple(deref(c) for c in calls),
            failures=tuple(deref(f) for f in failures),
            denials=tuple(Denial(a, b, c, d, _dt(e), f) for a, b, c, d, e, f in denials),
            interrupts=tuple(Interrupt(_dt(a), b) for a, b in interrupts),
            turns=turn_count, size_bytes=size, skipped_lines=skipped,
            subagent_paths=tuple(Path(p) for p in subagents),
            entrypoint=entrypoint, origin=origin, origin_evidence=tuple(evidence),
            signals=tuple(signals), skipped=skipped_by_reason,
        )
    except (msgspec.DecodeError, TypeError, ValueError, IndexError) as exc:
        raise ValueError(f"not a compact session view: {exc}") from exc


def encode_candidates(found: Sequence[MinedCandidate]) -> bytes:
    return _encoder.encode(tuple(found))


def decode_candidates(blob: bytes) -> tuple[MinedCandidate, ...]:
    try:
        return _candidates().decode(blob)
    except msgspec.DecodeError as exc:
        raise ValueError(f"not compact candidates: {exc}") from exc
