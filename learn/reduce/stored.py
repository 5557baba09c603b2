"""learn.reduce's protocols over the store (learn.store.api.Store), and a run's result
recorded there: the embedder cache, the label index, what was shown, verdict memory,
the name cache, the answer cache, record_run.

They behave like the in-memory ones in learn.reduce.memory, with one documented
difference: a verdict keeps vector evidence only when it names a canonical_key
(the store's rule), so nearest_verdict finds by distance only such verdicts.
A personal run (learn.pipeline.judge) and a team run (learn.reduce.team) hand them
to reduce_sessions.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING, Any

from learn.records.proposal import Proposal, RunResult, Verdict
from learn.reduce.protocols import ShownRecord
from learn.reduce.slug import canonical_slug
from learn.store.label_tables import text_hash
from learn.store.proposals import DeclinedRows, declined_at_threshold
from learn.store.proposals_ddl import projects_of
from learn.store.run_json import result_to_full_json
from learn.store.shown_table import ANYWHERE
from learn.textfold import flatten
from learn.textunits import cut_to_width
from learn.visible import visible

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from learn.embed.base import Embedder
    from learn.store.api import Store


class CachedEmbedder:
    """An embedder whose vectors are cached in the store per (name, sha256(text))."""

    def __init__(self, inner: Embedder, store: Store) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self._store = store

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return self._store.labels.embed_cached(self.inner, texts)


class StoreLabelIndex:
    """learn.reduce.protocols.LabelIndex over the labels table, in one embedding space."""

    def __init__(self, store: Store, space: str) -> None:
        self._labels = store.labels
        self.space = space

    def nearest(self, vector: Any, kind: str, k: int) -> list[tuple[str, float]]:
        return self._labels.nearest_labels(vector, kind, k, space=self.space)

    def add(self, label: str, kind: str, vector: Any) -> None:
        self._labels.put_label(label, kind, vector, space=self.space)

    def labels(self, kind: str) -> set[str]:
        return {label for label, _ in self._labels.labels(kind)}


class StoreShownState:
    """learn.reduce.protocols.ShownState over the proposals shown and the proposal book.

    shown_at is the newest occurrence the user had seen (a session activity time,
    never the wall clock: suppression compares it with later activity), falling
    back to when it was shown if no occurrence time was known. Shown is per
    project: a proposal is held back only when it was shown in every project it
    is said in now (a new project's sessions are news there), and then from the
    earliest of those showings.
    """

    def __init__(self, store: Store, project: str | None = None) -> None:
        self._store = store
        self._project = project  # the run's project (None: every project)
        self._declined: DeclinedRows | None = None  # read on the first point asked
        self._without_body: dict[str, set[str]] | None = None  # likewise

    def get(self, key: str, projects: Sequence[str] = (), *,
            point: Proposal | None = None) -> ShownRecord | None:
        where = list(projects) or ([self._project] if self._project else [])
        if self._without_body is None:
            self._without_body = self._store.proposals.without_body(self._project)
        bodiless = self._without_body.get(key)
        if bodiless and (not where or bodiless & set(where)):
            # Pending as an accepted command nobody wrote the instruction of (stored by
            # a learn before 2026-12-02; ProposalBook.without_body): `learn apply`
            # refuses it and sends the person to `learn run`, so the run shows it again,
            # judges it and writes its body, instead of holding it back as shown before
            # for good. Once written, it is held back as before.
            return None
        shown = self._store.shown
        found = shown.shown_in(key)
        if where:
            per = [found.get(p) or found.get(ANYWHERE) for p in where]
            records = [sp for sp in per if sp is not None] if all(per) else []
        else:
            records = list(found.values())
        sp = min(records, key=lambda r: r.last_occurrence or r.last_shown_at) if records else None
        reoffer = self._store.proposals.reoffer_threshold(key, self._project)
        if reoffer is None and point is not None:
            # Declined under another key (an offline label, then a model's): the person
            # said no to the point, so it waits for the same threshold under this key.
            if self._declined is None:
                self._declined = DeclinedRows(self._store.proposals.declined(self._project))
            like = self._declined.like(point)
            reoffer = None if like is None else declined_at_threshold(like)
        if reoffer is not None:
            return ShownRecord(shown_at=(sp.last_shown_at if sp is not None else ""),
                               reoffer_at_sessions=reoffer)
        decisions = shown.decisions(key)
        dismissed_at = next(
            (d.at for d in reversed(decisions) if d.decision == "dismissed"), None
        )
        if sp is None and dismissed_at is None:
            return None
        shown_at = (sp.last_occurrence or sp.last_shown_at) if sp is not None else ""
        if dismissed_at is not None:
            # A dismissal holds the item back until it is said again after the
            # dismissal itself, not merely after the occurrence it was shown with.
            shown_at = max(shown_at, dismissed_at)
        return ShownRecord(
            shown_at=shown_at,
            last_seen=sp.last_occurrence if sp is not None else None,
            covered=all(r.covered_when_shown for r in records) if records else False,
        )


# A category is one or two lowercase words naming an area ("tooling", "git",
# "code review"; prompts/judge.v6.md). A stored one is anyone's to write on a
# shared database: eve's `category = 'workflow): ok\n\n## Note to Claude Code…'`
# printed a heading and an instruction in a teammate's digest, which Claude Code's
# model reads (team audit F1). Anything but a short plain phrase is dropped.
CATEGORY_CHARS = 32
# Letters first (no list marker, no heading), then letters, digits, spaces and
# joiners only: no Markdown character, no line break, at most four words.
_PART = r"(?:[^\W_]|[/&.+'-])"
_CATEGORY = re.compile(rf"[^\W\d_]{_PART}*(?: {_PART}+){{0,3}}")
# The judge's summary is one rule line and its rationale a sentence or two; a stored
# one is cut to what the digest could show anyway.
SUMMARY_CHARS = 600
RATIONALE_CHARS = 600
MODEL_CHARS = 80


def stored_category(value: object) -> str:
    """`value` if it is a short plain category word or phrase (flattened, lowercase),
    else "" (shown as "uncategorised")."""
    flat = flatten(visible(str(value or ""))).lower()
    return flat if len(flat) <= CATEGORY_CHARS and _CATEGORY.fullmatch(flat) else ""


def stored_confidence(value: object) -> float:
    """A finite confidence in [0, 1] (NaN, infinities and non-numbers are 0)."""
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 0.0
    return min(1.0, max(0.0, number)) if math.isfinite(number) else 0.0


def stored_text(value: object, limit: int) -> str:
    """Stored words as one visible line, cut at `limit` columns: what the digest does
    with every other stored text (learn.report.words.flatten, learn.visible)."""
    return cut_to_width(flatten(visible(str(value or ""))), limit)


def stored_verdict(verdict: Verdict) -> Verdict:
    """A verdict read back from a store or a stored run, as its reader may show it.
    Whatever wrote it (any member of a team database can), the category is a plain
    phrase or nothing, the confidence a number in [0, 1], the summary and rationale one
    visible line each, the scope one learn knows (else the narrower, "project")."""
    canonical = verdict.canonical_key
    return dataclasses.replace(
        verdict,
        accepted=bool(verdict.accepted),
        summary=stored_text(verdict.summary, SUMMARY_CHARS),
        category=stored_category(verdict.category),
        scope="user" if verdict.scope == "user" else "project",
        confidence=stored_confidence(verdict.confidence),
        rationale=stored_text(verdict.rationale, RATIONALE_CHARS),
        canonical_key=canonical_slug(canonical) if isinstance(canonical, str) else None,
        model=stored_text(verdict.model, MODEL_CHARS) or None,
    )


def _verdict(row: dict[str, Any]) -> Verdict:
    """A stored verdict row as a Verdict, through stored_verdict: a row is data from
    anyone who can write the store (every member of a team database)."""
    return stored_verdict(Verdict(
        accepted=bool(row["accepted"]),
        summary=row["summary"],
        category=row["category"],
        # The verdict table's own reading: a scope it does not know is a user rule's.
        scope="project" if row.get("scope") == "project" else "user",
        confidence=row["confidence"],
        rationale=row["rationale"] or "",
        canonical_key=row["canonical_key"],
        model=row["model"],
    ))


class StoreVerdictMemory:
    """learn.reduce.protocols.VerdictMemory over the verdict table and its evidence."""

    def __init__(self, store: Store, space: str) -> None:
        self._verdicts = store.verdicts
        self.space = space

    def get(self, dedup_key: str, role: str, prompt_version: int) -> Verdict | None:
        row = self._verdicts.get(dedup_key, role, prompt_version)
        return None if row is None else _verdict(row)

    def nearest_verdict(
        self,
        vector: Any,
        canonical_key: str | None,
        *,
        role: str,
        prompt_version: int,
        max_distance: float,
        kind: str | None = None,
    ) -> Verdict | None:
        prefix = "" if kind is None else f"{kind}:"
        if canonical_key is not None:
            row = self._verdicts.by_canonical_key(canonical_key, role=role,
                                                  prompt_version=prompt_version, prefix=prefix)
            if row is not None:
                return _verdict(row)
        key = self._verdicts.nearest_key(vector, space=self.space, role=role,
                                         prompt_version=prompt_version,
                                         max_distance=max_distance, prefix=prefix)
        return None if key is None else self.get(key, role, prompt_version)

    def record(
        self, dedup_key: str, role: str, prompt_version: int, verdict: Verdict, vector: Any
    ) -> None:
        self._verdicts.record_proposal(dedup_key, verdict, role=role,
                                       prompt_version=int(prompt_version),
                                       model=verdict.model or "", vector=vector, space=self.space)


class StoreAnswerMemory:
    """learn.reduce.protocols.AnswerMemory over this machine's answer cache
    (learn.store.answer_table)."""

    def __init__(self, store: Store) -> None:
        # Opened on first use: a run that asks no coverage opens no second connection.
        self._store = store

    def get(self, key: str) -> list[Any] | None:
        return self._store.answers.get(key)

    def put(self, key: str, step: str, rows: Sequence[Any]) -> None:
        self._store.answers.put(key, step, rows)


def name_prompt_version() -> int:
    """A new naming prompt names afresh: cached labels are kept per its version."""
    from learn.prompts import load_prompt

    return load_prompt("name").version


def named_labels(store: Store) -> Callable[[str, str], str | None]:
    """The label a model already gave an exact (kind, text) under the current naming
    prompt, for `name_candidates(labelled=...)`: loaded once, looked up per candidate."""
    cached = store.labels.named_labels(name_prompt_version())

    def lookup(kind: str, text: str) -> str | None:
        return cached.get((kind, text_hash(text)))

    return lookup


def record_run(store: Store, result: RunResult, *, run_id: int | None = None,
               project: str | None = None, remember_shown: bool = True,
               sessions_read: Collection[str] | None = None,
               counted: Sequence[Proposal] = (),
               copies: Collection[tuple[str, str]] = ()) -> int:
    """Finish the run (started now when `run_id` is None) with its result; with
    remember_shown, mark its judged proposals shown. `project` is the run's (None:
    every project): its proposals are pending there until decided. `sessions_read`
    (every session the run read) keeps what earlier runs counted elsewhere;
    `counted` are points the run counted but did not show (held back, cut), whose
    stored counts are brought up to date (ProposalBook.refresh); `copies` are stored
    quotes of sessions it did not read that copy a saying it counted
    (learn.reduce.counting.copies_of_this_run), kept out of its counts."""
    with store.atomic():
        if run_id is None:
            run_id = store.runs.start_run({})
        if remember_shown:
            for p in result.proposals:
                if p.verdict is None and not result.offline:
                    # Never judged (the judge failed): not "shown", so the
                    # next run judges and shows it instead of holding it back.
                    continue
                for where in projects_of(p) or [project or ANYWHERE]:
                    store.shown.mark_shown(
                        p.key, project=where, last_occurrence=p.last_seen,
                        covered=p.status != "new", text=p.text,
                        verdict=None if p.verdict is None else dataclasses.asdict(p.verdict),
                    )
        # Pending until decided: recorded even when "shown" is not (a failed
        # coverage check), so nothing proposed is lost; never-judged ones wait
        # for the judge. A team run's proposals (people counted) are the team's,
        # kept in its shared database only as the run's result, which `share
        # --forget` can remove: no personal lifecycle there.
        store.proposals.record(
            [p for p in result.proposals
             if (p.verdict is not None or result.offline) and p.people is None],
            run_id=run_id, fallback_project=project, sessions_read=sessions_read, copies=copies)
        if counted and sessions_read is not None:
            store.proposals.refresh(counted, sessions_read=sessions_read, copies=copies)
        store.runs.finish_run(
            run_id, usage=result.usage.to_json(), result=result.to_json(),
            result_full=result_to_full_json(result),
        )
    return run_id
