"""The store as the pipeline sees it: one LearnStore for a run's store steps and books.

`open_learn_store(path)` yields a LearnStore whose methods are the pipeline's
store steps (learn/pipeline.py): record the scan, cache embeddings, offer the
label index, remember labels, tell what was shown, keep verdicts, record the run.
The implementations of learn.reduce.protocols it hands out live in
learn.store.reduce_protocols.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from learn.records.proposal import RunResult
from learn.store.feedback import FeedbackStore
from learn.store.feedback_rows import PROPOSAL_SOURCE_KIND as PROPOSAL_SOURCE_KIND
from learn.store.learn_tables import CandidateRow, LearnTables, ScannedSession, text_hash
from learn.store.proposals import ProposalBook

# learn.reduce's protocols over the store (learn.store.reduce_protocols), re-exported.
from learn.store.reduce_protocols import CachedEmbedder as CachedEmbedder
from learn.store.reduce_protocols import StoreLabelIndex as StoreLabelIndex
from learn.store.reduce_protocols import StoreShownState as StoreShownState
from learn.store.reduce_protocols import StoreVerdictMemory as StoreVerdictMemory
from learn.store.runs import default_store_target, result_to_full_json

if TYPE_CHECKING:
    from learn.embed.base import Embedder
    from learn.records.candidate import MinedCandidate, SessionCandidates
    from learn.reduce.naming import NamingResult
    from learn.transcripts.view.model import Session


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _digest(path: Path | None) -> str:
    if path is None or not path.is_file():
        return ""
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class LearnStore:
    """The pipeline's view of the store for one run."""

    def __init__(self, store: FeedbackStore) -> None:
        self.store = store
        self.tables = LearnTables(store)
        self.book = ProposalBook(store)
        self.run_id: int | None = None
        # The project the run is for (a root, learn.projects), None for every project:
        # what is declined and pending is per project.
        self.project: str | None = None

    def _ensure_run(self) -> int:
        if self.run_id is None:
            self.run_id = self.tables.start_run({})
        return self.run_id

    def record_scan(
        self, sessions: Sequence[Session], session_cands: Sequence[SessionCandidates],
        digests: Mapping[Path, str] | None = None,
    ) -> None:
        """Sessions scanned and their verified candidates, in one transaction.

        `digests` are the files' content hashes when known (the session index
        keeps them): hashing again would open every unchanged transcript.
        """
        known = digests or {}
        self._ensure_run()
        by_id = {s.id: s for s in sessions}
        scanned_at = _now()
        with self.store.atomic():
            for sc in session_cands:
                session = by_id.get(sc.session_id)
                path = session.path if session is not None else None
                self.tables.record_session(ScannedSession(
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
                self.tables.replace_session_candidates(sc.session_id, rows)

    def stored_candidates(self, session_ids: Sequence[str]) -> dict[str, tuple[MinedCandidate, ...]]:
        """What an earlier run stored for these sessions from the model (source "miner").

        For a session whose mining failed this run: a transient failure must not
        take away what was already verified (issue 11), so the pipeline carries
        these forward instead of replacing them with nothing.
        """
        from learn.records.candidate import KINDS, MinedCandidate

        out: dict[str, list[MinedCandidate]] = {}
        for c in self.tables.candidates(session_ids=session_ids):
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

    def cached_embedder(self, embedder: Embedder) -> Embedder:
        return CachedEmbedder(embedder, self.tables)

    def label_index(self, embedder: Embedder) -> StoreLabelIndex:
        return StoreLabelIndex(self.tables, embedder.name)

    def named_labels(self) -> Callable[[str, str], str | None]:
        """The label a model already gave an exact (kind, text) under the current
        naming prompt, for `name_candidates(labelled=...)`: loaded once, looked
        up per candidate."""
        cached = self.tables.named_labels(_name_prompt_version())

        def lookup(kind: str, text: str) -> str | None:
            return cached.get((kind, text_hash(text)))

        return lookup

    def remember_labels(
        self, naming: NamingResult, session_cands: Sequence[SessionCandidates], embedder: Embedder
    ) -> None:
        """The run's label examples into the index and each stored candidate's label.

        naming.labels is aligned with the candidates of session_cands, flattened in order.
        """
        run_id = self._ensure_run()
        flat = [(sc.session_id, c) for sc in session_cands for c in sc.candidates]
        ids = {
            (c.session_id, c.kind, c.source, c.text_hash): c.id
            for c in self.tables.candidates(session_ids=[sc.session_id for sc in session_cands])
        }
        assign: dict[int, str] = {}
        for (sid, c), label in zip(flat, naming.labels, strict=False):
            cid = ids.get((sid, c.kind, c.source, text_hash(c.text)))
            if cid is not None and label:
                assign[cid] = label
        with self.store.atomic():
            naming.remember(self.label_index(embedder))
            self.tables.set_labels(assign, run_id=run_id)
            if naming.named:
                self.tables.put_named_labels(naming.named, _name_prompt_version())

    def shown_state(self) -> StoreShownState:
        return StoreShownState(self.tables, self.book, self.project)

    def pending_summary(self, exclude: Sequence[str] = ()) -> list[dict[str, Any]]:
        """What `learn run` says is still pending in its project (ProposalBook.summary)."""
        return self.book.summary(self.project, exclude)

    def verdict_memory(self, embedder: Embedder) -> StoreVerdictMemory:
        return StoreVerdictMemory(self.store, embedder.name)

    def record_run(self, result: RunResult, *, remember_shown: bool = True) -> int:
        """Finish the run with its result; with remember_shown, mark its judged proposals shown."""
        run_id = self._ensure_run()
        with self.store.atomic():
            if remember_shown:
                for p in result.proposals:
                    if p.verdict is None and not result.offline:
                        # Never judged (the judge failed): not "shown", so the
                        # next run judges and shows it instead of holding it back.
                        continue
                    self.tables.mark_shown(
                        p.key, last_occurrence=p.last_seen, covered=p.status != "new",
                        text=p.text,
                        verdict=None if p.verdict is None else dataclasses.asdict(p.verdict),
                    )
            # Pending until decided: recorded even when "shown" is not (a failed
            # coverage check), so nothing proposed is lost; never-judged ones wait
            # for the judge. A team run's proposals (people counted) are the team's,
            # kept in its shared database only as the run's result, which `share
            # --forget` can remove: no personal lifecycle there.
            self.book.record(
                [p for p in result.proposals
                 if (p.verdict is not None or result.offline) and p.people is None],
                run_id=run_id, fallback_project=self.project)
            self.tables.finish_run(
                run_id, usage=result.usage.to_json(), result=result.to_json(),
                result_full=result_to_full_json(result),
            )
        return run_id


@contextlib.contextmanager
def open_learn_store(path: Path | str | None = None) -> Iterator[LearnStore]:
    """The store at `path` (a file or a `postgresql://` URL; default
    default_store_target()), closed on exit."""
    store = FeedbackStore.open(path or default_store_target())
    try:
        yield LearnStore(store)
    finally:
        store.close()


def _name_prompt_version() -> int:
    """A new naming prompt names afresh: cached labels are kept per its version."""
    from learn.prompts import load_prompt

    return load_prompt("name").version
