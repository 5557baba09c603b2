"""What a personal run writes to the store besides its result (learn.reduce.stored
records that): the scan (sessions and their verified candidates) and the labels
the run gave them; and what an earlier run stored, read back for a session whose
mining failed this time.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from learn.isotime import now_iso as _now
from learn.store.label_tables import text_hash
from learn.store.scan_tables import CandidateRow, ScannedSession

if TYPE_CHECKING:
    from learn.embed.base import Embedder
    from learn.records.candidate import MinedCandidate, SessionCandidates
    from learn.reduce.naming import NamingResult
    from learn.store.api import Store
    from learn.transcripts.view.model import Session



def _digest(path: Path | None) -> str:
    if path is None or not path.is_file():
        return ""
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def record_scan(
    store: Store, sessions: Sequence[Session], session_cands: Sequence[SessionCandidates],
    digests: Mapping[Path, str] | None = None,
) -> None:
    """Sessions scanned and their verified candidates, in one transaction.

    `digests` are the files' content hashes when known (the session index
    keeps them): hashing again would open every unchanged transcript.
    """
    known = digests or {}
    by_id = {s.id: s for s in sessions}
    scanned_at = _now()
    with store.atomic():
        for sc in session_cands:
            session = by_id.get(sc.session_id)
            path = session.path if session is not None else None
            store.scans.record_session(ScannedSession(
                session_id=sc.session_id, provider=str(sc.provider), project=sc.project,
                path=str(path or ""),
                content_hash=known.get(path) or _digest(path) if path else _digest(path),
                last_activity=sc.last_activity, candidate_count=len(sc.candidates),
                scanned_at=scanned_at,
            ))
            rows = [
                CandidateRow(
                    session_id=sc.session_id, kind=c.kind, text=c.text, source=c.source,
                    project=sc.project, occurred_at=c.at or sc.last_activity,
                    payload={
                        "rationale": c.rationale, "command": c.command,
                        "error_excerpt": c.error_excerpt,
                        "intervening_commands": list(c.intervening_commands),
                        "edited_files": list(c.edited_files),
                    },
                )
                for c in sc.candidates
            ]
            store.scans.replace_session_candidates(sc.session_id, rows)


def stored_candidates(store: Store,
                      session_ids: Sequence[str]) -> dict[str, tuple[MinedCandidate, ...]]:
    """What an earlier run stored for these sessions from the model (source "miner").

    For a session whose mining failed this run: a transient failure must not
    take away what was already verified (issue 11), so the pipeline carries
    these forward instead of replacing them with nothing.
    """
    from learn.records.candidate import KINDS, MinedCandidate

    out: dict[str, list[MinedCandidate]] = {}
    for c in store.scans.candidates(session_ids=session_ids):
        if c.source != "miner" or c.kind not in KINDS:
            continue
        payload = c.payload or {}

        def opt(name: str, payload: dict[str, Any] = payload) -> str | None:
            v = payload.get(name)
            return v if isinstance(v, str) else None

        def strs(name: str, payload: dict[str, Any] = payload) -> tuple[str, ...]:
            v = payload.get(name)
            return tuple(x for x in v if isinstance(x, str)) if isinstance(v, list) else ()

        out.setdefault(c.session_id, []).append(MinedCandidate(
            kind=c.kind,  # checked against KINDS above
            text=c.text, rationale=opt("rationale"), command=opt("command"),
            error_excerpt=opt("error_excerpt"),
            intervening_commands=strs("intervening_commands"), edited_files=strs("edited_files"),
            source=c.source,
        ))
    return {sid: tuple(cands) for sid, cands in out.items()}


def remember_labels(
    store: Store, run_id: int, naming: NamingResult, session_cands: Sequence[SessionCandidates],
    embedder: Embedder,
) -> None:
    """The run's label examples into the index and each stored candidate's label.

    naming.labels is aligned with the candidates of session_cands, flattened in order.
    """
    from learn.reduce.stored import StoreLabelIndex, name_prompt_version

    flat = [(sc.session_id, c) for sc in session_cands for c in sc.candidates]
    ids = {
        (c.session_id, c.kind, c.source, c.text_hash): c.id
        for c in store.scans.candidates(session_ids=[sc.session_id for sc in session_cands])
    }
    assign: dict[int, str] = {}
    for (sid, c), label in zip(flat, naming.labels, strict=False):
        cid = ids.get((sid, c.kind, c.source, text_hash(c.text)))
        if cid is not None and label:
            assign[cid] = label
    with store.atomic():
        naming.remember(StoreLabelIndex(store, embedder.name))
        store.scans.set_labels(assign, run_id=run_id)
        if naming.named:
            store.labels.put_named_labels(naming.named, name_prompt_version())
