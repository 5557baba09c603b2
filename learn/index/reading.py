"""One file's index row (`read_row`): read, parse and view it, its turns redacted and keyed.

Apart from `learn.index.indexed`, which every listing imports (a warm one reads no
file), so that what reading a file needs is imported here at the top, once. In the
functions, their nine `from … import` statements ran for every file, ~8 k instructions
each in CPython 3.11 (a function-level import looks `__path__` up on the module and
formats, then clears, an AttributeError). With those of the index's turns, of a
session's answers and of the judgement, 15 imports a session: callgrind, 0.991x the
instructions of a first listing of the spread bench home at 250 sessions, 0.990x the tree's.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import replace

import msgspec

from learn.index.indexed_turns import encode_turns_and_keys
from learn.index.job import Job, Unread
from learn.render.session_values import SessionValues, note_answers
from learn.store.session_index import IndexRow
from learn.transcripts import parser
from learn.transcripts.files.sources import SourceStat, read_session, unread_detail
from learn.transcripts.models import Transcript
from learn.transcripts.view.bounded import bounded_turns
from learn.transcripts.view.compact import encode_candidates, encode_view
from learn.transcripts.view.many import read_asides
from learn.transcripts.view.model import Session
from learn.transcripts.view.serialise import session_to_dict
from learn.transcripts.view.session import build_session


def read_row(job: Job) -> IndexRow | Unread:
    """Read, parse and view one file (in a pool worker): its index row, or why there is none.

    A file learn's own reader fails on is skipped and said (an "unreadable" skip naming
    the error), never the end of the listing: a Codex line whose payload `type` was a
    list raised TypeError, and the exception ended `learn sessions` over the whole home
    rather than leaving one rollout out. The error's type only, not its message: a
    message can quote the file, and the skip is printed and kept with a run's records.
    """
    try:
        buf, st = read_session(job.path, job.provider)
        transcript = parser.parse_buffer(buf, path=job.path, mtime=st.mtime)
        return _row(job, st, buf, transcript)
    except Exception as exc:  # one file's failure is its skip, said
        return Unread(unread_detail(exc))


def _row(job: Job, st: SourceStat, buf: bytes, transcript: Transcript) -> IndexRow:
    """The index row of one parsed file: derived data only, redacted where it holds text."""
    # A listing stores counts of tool calls and failures, never their summaries.
    session = bounded_turns(build_session(transcript, fingerprints=job.fingerprints,
                                          size_bytes=len(buf), asides=read_asides(job.aside_paths),
                                          detail=job.views))
    # The turns and the view hold the same texts: each is redacted once (`redactor`'s
    # memo), and the session as one (learn.render.session_values): a value a rule caught
    # in a tool line is out of the turns and the signals too.
    values = SessionValues()
    note_answers(values, session, transcript.events)

    def redacted(clean: Callable[[str], str]) -> tuple[Session, str, bytes, bytes | None]:
        # A signal can quote a command body (machine_signals): the summary is on disk too.
        cleaned = msgspec.structs.replace(session, signals=tuple(clean(s) for s in session.signals))
        prompts, keys = encode_turns_and_keys(cleaned, clean)
        return cleaned, prompts, keys, encode_view(cleaned, clean) if job.views else None

    session, prompts, keys, view = values.together(redacted)
    row = IndexRow(
        path=str(job.path), size=st.size, mtime_ns=st.mtime_ns, inode=st.inode,
        version=job.version, context=job.context,
        summary=msgspec.json.encode(session_to_dict(session, timeline=False)).decode(),
        prompts=prompts, keys=keys,
    )
    if not job.views:
        return row
    from learn.detect import MiningSpec, mine
    from learn.detect.to_candidates import is_typed_reason, signals_to_candidates
    from learn.textfold import fold, occurring

    signals = mine(transcript.events, MiningSpec(), provider=transcript.provider,
                   fingerprints=job.fingerprints)
    found = signals_to_candidates(signals, min_confidence=job.min_confidence)
    # The person's plain words count only as the view has them: what the view
    # leaves out (a password typed in answer to the agent, machinery) is not theirs
    # to propose (learn.secret_answers; tests/test_secrets_e2e.py).
    typed = [fold(t.text) for t in session.human_turns]
    said = occurring([fold(c.text) for c in found], typed)
    found = [c for c, in_typed in zip(found, said, strict=True) if is_typed_reason(c) or in_typed]
    detected = [replace(c, text=values.clean(c.text)) for c in found]
    return msgspec.structs.replace(
        row, digest=hashlib.sha256(buf).hexdigest(), view=view,
        detected=encode_candidates(detected))
