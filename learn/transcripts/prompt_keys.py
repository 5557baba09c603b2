"""A project's repeated prompts from the session index: `learn show` without reading every head.

`learn show` cuts the prompts a harness (or a person, pasting) repeats across
the project's sessions out of the view it prints (`scripted.without_prompts`),
so it shows a session as a run reads it. Finding them read the first 64 kB of
up to 300 of the project's sessions and built a view of each, every time
(issue 17: over a second in a project of hundreds of sessions).

The session index keeps, per file, hashes of its long typed prompts instead
(`encode_prompt_keys`): the folded text's hash, and the hashes of the keys
`resume.own_turns` dedups a resumed session's copies by. Derived and one-way:
no prompt text is stored (issue 20). From those, `without_repeated_prompts`
counts in how many sessions each long prompt is the session's own, the way
`scripted.repeated_prompts` does over views. The text to cut comes from the
shown view itself, or, for a repeated prompt it holds only in part (a
paragraph, or a paste with words around it), from the head of one file that
holds it: a few heads, one per prompt the project repeats. A file the index
has no fresh entry for is read as before (its head).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Final

import msgspec

from learn.textfold import fold
from learn.transcripts.replay import REPLAY_FINGERPRINT_CHARS
from learn.transcripts.resume import _keys as turn_keys
from learn.transcripts.scripted import (
    HEAD_BYTES,
    REPEATED_MIN_CHARS,
    REPEATED_MIN_SESSIONS,
    RepeatedPrompt,
    with_prompts,
    without_prompts,
)
from learn.transcripts.view import Session

if TYPE_CHECKING:
    from learn.store.session_index import SessionIndex
    from learn.transcripts.discover import HeadReader

_SPOKEN: Final = ("typed", "queued")
# One session's long prompts: (folded-text hash, own-turn key hashes) each.
Keys = list[tuple[str, list[str]]]


def _h(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def prompt_keys(view: Session) -> Keys:
    """The hashes of `view`'s typed turns of at least REPEATED_MIN_CHARS (folded)."""
    out: Keys = []
    for turn in view.human_turns:
        if turn.origin not in _SPOKEN:
            continue
        key = fold(turn.text)
        if len(key) >= REPEATED_MIN_CHARS:
            out.append((_h(key), [_h(k) for k in turn_keys(turn)]))
    return out


def encode_prompt_keys(view: Session) -> str:
    return msgspec.json.encode(prompt_keys(view)).decode()


def repeated_keys(sessions: Iterable[tuple[datetime | None, str, Keys]],
                  min_sessions: int = REPEATED_MIN_SESSIONS) -> dict[str, int]:
    """folded-text hash -> sessions it is their own in, for those in `min_sessions` or more.

    Sessions are (started_at, id, keys); the oldest session owns a turn a
    later one copied (a resume), as in `resume.own_turns`.
    """
    order = sorted(sessions, key=lambda s: (s[0] or datetime.max.replace(tzinfo=UTC), s[1]))
    seen: set[str] = set()
    sessions_of: dict[str, set[str]] = {}
    for _, sid, keys in order:
        for text_key, own in keys:
            if own and any(k in seen for k in own):
                continue
            sessions_of.setdefault(text_key, set()).add(sid)
        for _, own in keys:
            seen.update(own)
    return {k: len(ids) for k, ids in sessions_of.items() if len(ids) >= min_sessions}


def without_repeated_prompts(view: Session, fingerprints: Sequence[str], *, index: SessionIndex,
                             heads: HeadReader, min_confidence: float) -> Session:
    """`view` without the prompts repeated across its project's sessions
    (`scripted.without_project_prompts`, from the index where it is fresh)."""
    from learn.transcripts.compact import view_version
    from learn.transcripts.discover import scan
    from learn.transcripts.indexed import ContextKeys, stamp

    # A prompt is cut from a turn by its fingerprints: paragraphs of 40 folded
    # chars or more (replay.replay_fingerprints). A view with no typed turn
    # that long has nothing to cut.
    if not view.project or not any(
            t.origin in _SPOKEN and len(fold(t.text)) >= REPLAY_FINGERPRINT_CHARS
            for t in view.human_turns):
        return view
    files = scan(project=Path(view.project), heads=heads).files
    rows = index.get_many([str(f.path) for f in files], views=False)
    version = view_version()
    contexts = ContextKeys(min_confidence)
    sessions: list[tuple[datetime | None, str, Keys]] = []
    where: dict[str, Path] = {}  # folded-text hash -> a file holding it
    for f in files:
        row = rows.get(str(f.path))
        st = stamp(f.path)
        if (row is not None and row.prompts is not None and st is not None
                and (row.size, row.mtime_ns, row.inode) == (st.size, st.mtime_ns, st.inode)
                and row.version == version
                and row.context == contexts.key(fingerprints, f.aside_paths)):
            summary = msgspec.json.decode(row.summary)
            started = summary.get("started_at")
            keys = msgspec.json.decode(row.prompts, type=Keys)
            sessions.append((datetime.fromisoformat(started) if started else None,
                             summary.get("id") or f.session_id, keys))
        else:
            # Not indexed (or changed): a scripted prompt opens its session, so the head does.
            other = _head_view(f.path, fingerprints)
            if other is None:
                continue
            keys = prompt_keys(other)
            sessions.append((other.started_at, other.id, keys))
        for text_key, _ in keys:
            where.setdefault(text_key, f.path)
    repeated = repeated_keys(sessions)
    prompts = {k: RepeatedPrompt(t, repeated[k], by_hand=False)
               for k, t in _texts(view).items() if k in repeated}
    # A repeated prompt the shown view does not hold as a whole turn may still
    # be cut from one (a paste with words typed around it, one paragraph of
    # it): its text comes from the head of one file holding it. A project
    # repeats few prompts, so this reads a few heads, not every one.
    for key in repeated.keys() - prompts.keys():
        other = _head_view(where[key], fingerprints)
        text = _texts(other).get(key) if other is not None else None
        if text is not None:
            prompts[key] = RepeatedPrompt(text, repeated[key], by_hand=False)
    if not prompts:
        return view
    return without_prompts(view, with_prompts(fingerprints, list(prompts.values())))


def _texts(view: Session) -> dict[str, str]:
    """folded-text hash -> text, of `view`'s long typed turns."""
    out: dict[str, str] = {}
    for turn in view.human_turns:
        if turn.origin in _SPOKEN and len(key := fold(turn.text)) >= REPEATED_MIN_CHARS:
            out.setdefault(_h(key), turn.text)
    return out


def _head_view(path: Path, fingerprints: Sequence[str]) -> Session | None:
    from learn.transcripts.parser import parse
    from learn.transcripts.session import build_session

    try:
        with path.open("rb") as fh:
            head = fh.read(HEAD_BYTES)
    except OSError:
        return None
    head = head[: head.rfind(b"\n") + 1]
    return build_session(parse(head), fingerprints=fingerprints) if head else None
