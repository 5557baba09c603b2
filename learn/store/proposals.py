"""Proposals until the person decides, per project, and what `apply` wrote (migration 0011).

`proposal_states` holds one row per (project, key): the same proposal in a later
run is the same row (its key, `kind:label`, is stable across runs: labels are
reused from the store). A row is `pending` until the person applies it
(`applied`, or `edited` when they reworded it), declines it (`declined`), or a
later run proposes the same rule under another key (same judge canonical_key:
`superseded`). The project is the repository the quotes were said in
(learn.projects.project_of: one for its worktrees, sub-folders and spellings),
so two projects never see each other's proposals.

A declined proposal is not offered again unless its evidence grows
substantially: REOFFER_FACTOR times the distinct sessions it had when declined
(declined at 3 sessions, it comes back at 6). One more session is noise; twice
as many is a habit the person may want to look at again. That holds for the
point, not its key: the same point under a new key (an offline run's label, then
a model's; `same_point`) is declined too, with the same threshold.

`applied_rules` records every write: project, key, canonical_key, the rule text
as written, the file, the backup, when, and the evidence at that time (sessions,
last occurrence). It is append-only: it is the baseline for "did the rule work?"
(a correction said again in sessions that started after `applied_at`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from learn.isotime import now_iso
from learn.projects import key_within
from learn.records.proposal import Proposal, rank_key
from learn.store.connection import Connection, where
from learn.store.feedback import FeedbackStore
from learn.store.points import Points
from learn.store.points import same_point as same_point

# The tables (migration 0011) and the row helpers its backfill shares, in a leaf.
from learn.store.proposals_ddl import STATES as STATES
from learn.store.proposals_ddl import State as State
from learn.store.proposals_ddl import accepted_of, proposal_from_json, proposal_json
from learn.store.proposals_ddl import create_tables as create_tables
from learn.store.proposals_ddl import projects_of as projects_of

# "check": learn's check (learn.guard) installed for a rule in place.
Form = Literal["rule", "command", "permission", "codex-rule", "path-rule", "check"]
REOFFER_FACTOR = 2


def widest(new: Proposal, stored: Proposal, sessions_read: Collection[str] | None, *,
           keep: Proposal | None = None, copies: Collection[tuple[str, str]] = ()) -> Proposal:
    """`new` as this run counted it, with what `stored` (an earlier run's count) said
    of the sessions this run did not read: the newest count over the widest scope.
    `keep` gives the fields other than the evidence (a point not shown this run keeps
    its stored verdict and wording). `copies`: stored quotes (session id, text) that
    copy a saying this run counted (a fan-out read in the other order, found by the
    pipeline: learn.reduce.counting.copies_of_this_run), never added to it."""
    base = keep if keep is not None else new
    if sessions_read is None:
        return dataclasses.replace(base, quotes=new.quotes, sessions=new.sessions,
                                   count=new.count, last_seen=new.last_seen)
    earlier = tuple(q for q in stored.quotes if q.session_id not in sessions_read
                    and (q.session_id, q.text) not in copies)
    if not earlier:
        return dataclasses.replace(base, quotes=new.quotes, sessions=new.sessions,
                                   count=new.count, last_seen=new.last_seen)
    quotes = tuple(sorted((*new.quotes, *earlier), key=lambda q: q.at or "", reverse=True))
    dated = [q.at for q in quotes if q.at]
    last = max([*dated, *(x for x in (new.last_seen,) if x)], default=None)
    return dataclasses.replace(
        base, quotes=quotes, sessions=len({q.session_id for q in quotes}),
        count=new.count + len(earlier), last_seen=last)


def reoffer_at(sessions_when_declined: int) -> int:
    """Distinct sessions at which a declined proposal is offered again."""
    return REOFFER_FACTOR * max(1, sessions_when_declined)


def declined_like(point: Proposal, rows: Iterable[ProposalState]) -> ProposalState | None:
    """The declined row (of another key) that holds the same point as `point`
    (`same_point`), the one with the highest threshold when several do (declined
    twice, it waits for the larger count); None when none does. Asked of many
    points, `DeclinedRows` folds the rows' quotes once."""
    return DeclinedRows(rows).like(point)


class DeclinedRows:
    """The declined rows among `rows`, indexed once (learn.store.points.Points) for
    `like`, which answers as `declined_like` does: a run asks it for every point it
    counts, a run's record for every new key."""

    def __init__(self, rows: Iterable[ProposalState]) -> None:
        self._points: Points[ProposalState] = Points(
            (r.proposal, r) for r in rows if r.state == "declined")

    def like(self, point: Proposal) -> ProposalState | None:
        found = [r for r in self._points.holding(point) if r.key != point.key]
        return max(found, key=declined_at_threshold, default=None)


def declined_at_threshold(row: ProposalState) -> int:
    """The distinct sessions declined `row`'s point needs to be offered again."""
    return reoffer_at(row.decided_sessions or row.sessions)


@dataclass(frozen=True, slots=True)
class ProposalState:
    id: int
    project: str
    key: str
    canonical_key: str | None
    kind: str
    accepted: bool  # the judge accepted it, or nobody judged it (offline)
    state: State
    sessions: int
    proposal: Proposal  # as last proposed, every field
    first_proposed_at: str
    last_proposed_at: str
    decided_at: str | None
    decided_sessions: int | None
    superseded_by: str | None


@dataclass(frozen=True, slots=True)
class AppliedRule:
    id: int
    project: str
    key: str
    canonical_key: str | None
    decision: str  # accepted | edited | written (the person's own, found by coverage)
    form: Form
    rule_text: str
    target_file: str
    backup_file: str | None
    sessions: int
    last_seen: str | None
    applied_at: str


class ProposalBook:
    """Typed access to proposal_states and applied_rules over an open FeedbackStore."""

    def __init__(self, store: FeedbackStore) -> None:
        self.store = store

    def _row(self, r: dict[str, Any]) -> ProposalState:
        return ProposalState(
            id=int(r["id"]), project=r["project"], key=r["key"], canonical_key=r["canonical_key"],
            kind=r["kind"], accepted=bool(r["accepted"]), state=r["state"],
            sessions=int(r["sessions"]), proposal=proposal_from_json(r["proposal_json"]),
            first_proposed_at=r["first_proposed_at"], last_proposed_at=r["last_proposed_at"],
            decided_at=r["decided_at"],
            decided_sessions=None if r["decided_sessions"] is None else int(r["decided_sessions"]),
            superseded_by=r["superseded_by"],
        )

    def record(self, proposals: Sequence[Proposal], *, run_id: int | None,
               fallback_project: str | None, at: str | None = None,
               sessions_read: Collection[str] | None = None,
               copies: Collection[tuple[str, str]] = ()) -> None:
        """Remember a run's proposals: new ones pending, known ones refreshed.

        A new key holding a point declined under another key (`declined_like`) is
        declined from the start, with that row's decided_sessions, until it reaches
        the same threshold.

        A declined row comes back to pending only when its sessions reached
        reoffer_at(); an applied or edited row stays so (whether the rule worked is
        a question for the outcomes, not a new proposal); a superseded one that is
        proposed again under its own key is pending again.

        With `sessions_read` (every session the run read), a known row keeps what
        earlier runs counted in sessions this run did not read (`widest`): a run
        over one project, or the last week, does not shrink a count a run over
        every project made; nor adds the `copies` of what this run counted (`widest`).
        """
        when = at or now_iso()
        declined: dict[str, DeclinedRows] = {}

        def declined_in(conn: Connection, project: str) -> DeclinedRows:
            # Read once per project, in this transaction: every new key is checked against them.
            if project not in declined:
                declined[project] = DeclinedRows(self._row(r) for r in conn.query_dicts(
                    "SELECT * FROM proposal_states WHERE project = $1 AND state = 'declined'",
                    (project,)))
            return declined[project]

        def run(conn: Connection) -> None:
            for p in proposals:
                projects = projects_of(p) or ([fallback_project] if fallback_project else [])
                canonical = p.verdict.canonical_key if p.verdict else None
                for project in projects:
                    row = conn.execute(
                        "SELECT state, decided_sessions, proposal_json FROM proposal_states "
                        "WHERE project = $1 AND key = $2", (project, p.key)).fetchone()
                    if row is None:
                        # A new key for a point the person declined under another key is
                        # declined too, until the point reaches that row's threshold: the
                        # decline was about the point, not its label. It carries the old
                        # row's decided_sessions, so the threshold stays the one promised.
                        carried = declined_in(conn, project).like(p)
                        if carried is not None and p.sessions < declined_at_threshold(carried):
                            state0, decided_at = "declined", carried.decided_at or when
                            decided_n: int | None = carried.decided_sessions or carried.sessions
                        else:
                            state0, decided_at, decided_n = "pending", None, None
                        conn.execute(
                            "INSERT INTO proposal_states (project, key, canonical_key, kind, "
                            "accepted, state, sessions, proposal_json, first_run_id, last_run_id, "
                            "first_proposed_at, last_proposed_at, decided_at, decided_sessions) "
                            "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
                            (project, p.key, canonical, p.kind, accepted_of(p), state0, p.sessions,
                             proposal_json(p), run_id, run_id, when, when, decided_at, decided_n))
                    else:
                        state, decided = str(row[0]), row[1]
                        now = widest(p, proposal_from_json(row[2]), sessions_read, copies=copies)
                        if state == "superseded" or (
                                state == "declined" and now.sessions >= reoffer_at(int(decided or 0))):
                            state = "pending"
                        conn.execute(
                            "UPDATE proposal_states SET canonical_key = $1, kind = $2, accepted = $3, "
                            "state = $4, sessions = $5, proposal_json = $6, last_run_id = $7, "
                            "last_proposed_at = $8, superseded_by = CASE WHEN $9 = 'pending' "
                            "THEN NULL ELSE superseded_by END WHERE project = $10 AND key = $11",
                            (canonical, p.kind, accepted_of(p), state, now.sessions,
                             proposal_json(now), run_id, when, state, project, p.key))
                    if canonical:
                        # The same rule under a new label: the old row gives way.
                        conn.execute(
                            "UPDATE proposal_states SET state = 'superseded', superseded_by = $1, "
                            "decided_at = $2 WHERE project = $3 AND canonical_key = $4 AND key != $5 "
                            "AND state = 'pending'",
                            (p.key, when, project, canonical, p.key))

        self.store._write(run)

    def rename(self, project: str, old: str, new: str, *, at: str | None = None) -> None:
        """The pending row `old` in `project` gives way to `new` (the same point, named
        anew: learn.reduce.renames)."""
        self.store.execute(
            "UPDATE proposal_states SET state = 'superseded', superseded_by = $1, decided_at = $2 "
            "WHERE project = $3 AND key = $4 AND state = 'pending'",
            (new, at or now_iso(), project, old))

    def refresh(self, points: Sequence[Proposal], *, sessions_read: Collection[str],
                copies: Collection[tuple[str, str]] = ()) -> int:
        """Bring the counts of known rows up to date from points a run counted but did
        not show (held back as shown before, or over the per-kind cap): their state,
        verdict and wording stay; their evidence is the widest any run measured. No
        row is created here. Returns the rows changed."""
        changed = 0

        def run(conn: Connection) -> None:
            nonlocal changed
            for p in points:
                rows = conn.execute(
                    "SELECT id, sessions, proposal_json FROM proposal_states WHERE key = $1",
                    (p.key,)).fetchall()
                mine = set(projects_of(p))
                for rid, sessions, text in rows:
                    stored = proposal_from_json(text)
                    if mine and not mine & set(projects_of(stored)):
                        continue  # the key said in another project this run did not count
                    now = widest(p, stored, sessions_read, keep=stored, copies=copies)
                    if now.sessions == int(sessions) and now.quotes == stored.quotes:
                        continue
                    conn.execute("UPDATE proposal_states SET sessions = $1, proposal_json = $2 "
                                 "WHERE id = $3", (now.sessions, proposal_json(now), int(rid)))
                    changed += 1

        self.store._write(run)
        return changed

    def rows(self, project: str | None = None, *, states: Iterable[State] | None = None,
             key: str | None = None) -> list[ProposalState]:
        """Rows of `project` and of the projects inside its folder (every project when
        None), newest run first and each run's as it ranked them (`run_order`): run
        from a folder of projects, `apply` sees theirs."""
        wanted = tuple(states) if states is not None else None
        if wanted == ():
            return []
        clause, params = where(None if wanted is None else ("state IN ({})", wanted),
                               None if key is None else ("key = {}", (key,)))
        rows = self.store.sql(f"SELECT * FROM proposal_states {clause} ORDER BY id", params)
        return run_order(
            [self._row(r) for r in rows if project is None or key_within(r["project"], project)])

    def pending(self, project: str | None) -> list[ProposalState]:
        return self.rows(project, states=("pending",))

    def pending_keys(self) -> set[str]:
        """The keys pending in any project, without reading their proposals: asked before
        every apply (learn.commands.apply_recover: a held decision's rule is pending)."""
        return {str(r["key"]) for r in self.store.sql(
            "SELECT DISTINCT key FROM proposal_states WHERE state = 'pending'", [])}

    def without_body(self, project: str | None) -> dict[str, set[str]]:
        """key -> the projects it is pending in (in `project`, or every project when None)
        as a command the judge accepted and nobody wrote the instruction of (no
        `command_body`). A learn from before 2026-12-02 stored its requests so (its
        apply wrote the quote as the command); a model run whose body came back as a
        copy of a quote too. `learn apply` refuses them and sends the person to `learn
        run`, so a run shows such a point again instead of holding it back as shown
        before, and its model writes the body (learn.reduce.stored.StoreShownState)."""
        out: dict[str, set[str]] = {}
        for r in self.pending(project):
            if _lacks_body(r.proposal):
                out.setdefault(r.key, set()).add(r.project)
        return out

    def summary(self, project: str | None, exclude: Iterable[str] = ()) -> list[dict[str, Any]]:
        """One line each for the accepted proposals pending in `project`, other than
        `exclude` (a run's own): what a run lists as still pending."""
        out: list[dict[str, Any]] = []
        seen = set(exclude)
        for r in self.pending(project):
            if r.key in seen or not r.accepted:
                continue
            seen.add(r.key)
            p = r.proposal
            out.append({"key": r.key, "kind": r.kind, "label": p.label, "project": r.project,
                        "sessions": r.sessions, "since": r.first_proposed_at,
                        "rule": p.rule_text,
                        "scope": p.verdict.scope if p.verdict else None})
        return out

    def decided(self, project: str | None, keys: Iterable[str]) -> dict[str, State]:
        """key -> its decided state in `project` (applied, edited, declined), for the keys
        that have one: a run that shows such a key again says so."""
        wanted = set(keys)
        out: dict[str, State] = {}
        for r in self.rows(project, states=("applied", "edited", "declined")):
            if r.key in wanted:
                out.setdefault(r.key, r.state)
        return out

    def reoffer_threshold(self, key: str, project: str | None) -> int | None:
        """For a key declined in `project` (any project when None): the sessions it needs
        to be offered again; None when it is not declined there."""
        declined = [r for r in self.rows(project, states=("declined",), key=key)]
        if not declined:
            return None
        return max(reoffer_at(r.decided_sessions or r.sessions) for r in declined)

    def declined(self, project: str | None) -> list[ProposalState]:
        """The declined rows of `project` (every project when None): what a point under
        a new key is checked against (declined_like)."""
        return self.rows(project, states=("declined",))

    def states_by_key(self) -> dict[str, set[State]]:
        """key -> the states of its rows in every project, without reading their proposals:
        `learn stats` tells a decision still standing from one undone since."""
        out: dict[str, set[State]] = {}
        for r in self.store.sql("SELECT key, state FROM proposal_states", []):
            out.setdefault(str(r["key"]), set()).add(r["state"])
        return out

    def decide(self, key: str, state: State, project: str | None, *,
               at: str | None = None) -> list[ProposalState]:
        """Set the state of `key`'s rows in `project` (every project when None)."""
        if state not in STATES or state == "pending":
            raise ValueError(f"not a decision: {state!r}")
        rows = self.rows(project, key=key)
        when = at or now_iso()
        self.store.executemany(
            "UPDATE proposal_states SET state = $1, decided_at = $2, decided_sessions = $3 "
            "WHERE id = $4", [(state, when, r.sessions, r.id) for r in rows])
        return rows

    def record_applied(self, *, project: str, proposal: Proposal, decision: str, form: Form,
                       rule_text: str, target_file: str, backup_file: str | None,
                       at: str | None = None) -> int:
        if decision not in ("accepted", "edited", "written"):
            # "written": the person wrote it themselves (learn.reduce.in_place)
            raise ValueError(f"applied decision must be accepted, edited or written, "
                             f"not {decision!r}")
        canonical = proposal.verdict.canonical_key if proposal.verdict else None

        def run(conn: Connection) -> int:
            (rid,) = conn.execute(
                "INSERT INTO applied_rules (project, key, canonical_key, decision, form, rule_text, "
                "target_file, backup_file, sessions, last_seen, applied_at) "
                "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id",
                (project, proposal.key, canonical, decision, form, rule_text, target_file,
                 backup_file, proposal.sessions, proposal.last_seen, at or now_iso())).fetchone()
            return int(rid)

        return self.store._write(run)

    def applied(self, *, key: str | None = None, project: str | None = None) -> list[AppliedRule]:
        """What apply wrote, oldest first (for `key` / in `project` when given)."""
        where, params = ("WHERE key = $1", [key]) if key is not None else ("", [])
        rows = self.store.sql(f"SELECT * FROM applied_rules {where} ORDER BY applied_at, id",
                              params)
        return [
            AppliedRule(
                id=int(r["id"]), project=r["project"], key=r["key"],
                canonical_key=r["canonical_key"], decision=r["decision"], form=r["form"],
                rule_text=r["rule_text"], target_file=r["target_file"],
                backup_file=r["backup_file"], sessions=int(r["sessions"]),
                last_seen=r["last_seen"], applied_at=r["applied_at"])
            for r in rows if project is None or key_within(r["project"], project)
        ]

    def unapply(self, key: str, *, target_file: str, since: str) -> None:
        """Undo `learn apply`'s write of `key` to `target_file` at or after `since`: its
        applied_rules rows go (a rule no longer in place has no outcome to measure) and
        the proposal is pending again where that write had decided it."""

        def run(conn: Connection) -> None:
            conn.execute("DELETE FROM applied_rules WHERE key = $1 AND target_file = $2 AND "
                         "applied_at >= $3", (key, target_file, since))
            conn.execute("UPDATE proposal_states SET state = 'pending', decided_at = NULL, "
                         "decided_sessions = NULL WHERE key = $1 AND state IN ('applied', "
                         "'edited') AND decided_at >= $2", (key, since))

        self.store._write(run)


def run_order(rows: Iterable[ProposalState]) -> list[ProposalState]:
    """Newest run first; one run's rows (they share `last_proposed_at`) most said
    first, as the run ranked them (learn.records.proposal.rank_key: sessions, then
    occurrences, then label). Not by id: a run inserts its new rows in its order and
    refreshes known rows in place (their old ids), and `id DESC` showed a run's three
    directives said in 7, 2 and 2 sessions in `learn digest` as 2, 2, 7
    (tests/test_h5_digest_order.py)."""
    ranked = sorted(rows, key=lambda r: rank_key(r.proposal))
    ranked.sort(key=lambda r: r.last_proposed_at, reverse=True)  # stable: keeps the rank
    return ranked


def _lacks_body(p: Proposal) -> bool:
    """`p` is written as a command (a request, or a point made one: as
    learn.report.targets.form_for decides) the judge accepted, and no instruction was
    written for it. Not one no judge saw (an offline run's): shown again by every
    offline run, it would still get no body, since only a model writes one."""
    is_command = (p.kind == "request" or p.surface == "command") and p.surface not in (
        "permission", "path-rule")
    accepted = p.verdict is not None and p.verdict.accepted
    return is_command and accepted and not (p.command_body or "").strip()
