"""Runs on record: the hooks the surfaces call (learn.report.runs finds them by name).

`load_latest_run(since)` gives `learn digest` the last run's RunResult with no
model call; `record_decision(...)` remembers what the user did with a proposal.
Both open the default store (default_store_target(): the configured database URL,
else data_dir()/learn.db) unless given a path, through learn.store.api.open_store.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from learn.isotime import parse_iso
from learn.records.proposal import Funnel, Proposal, RunResult, RunUsage

# The stored form of a run (learn.store.run_json, a leaf the proposal book reads too).
from learn.store.run_json import proposal_from_full_json as proposal_from_full_json
from learn.store.run_json import result_from_full_json as result_from_full_json
from learn.store.run_json import result_to_full_json as result_to_full_json

# Where the store is: learn.store.target (light to import), re-exported here.
from learn.store.target import STORE_FILENAME as STORE_FILENAME
from learn.store.target import default_store_path as default_store_path
from learn.store.target import default_store_target as default_store_target

if TYPE_CHECKING:
    from learn.store.proposals import ProposalState

Decision = Literal["accepted", "edited", "dismissed"]


def no_store_at(path: Path) -> bool:
    """Nothing at the store's path: no run yet. Anything else is opened and says what
    is wrong with it: `learn digest` answered "no stored run: run `learn run` first"
    for a learn.db that was a folder, or a LEARN_DATA_DIR that was a file."""
    try:
        path.stat()
    except FileNotFoundError:
        return not path.is_symlink()  # a link to nowhere is not "no store"
    except OSError:
        return False
    return False


def load_latest_run(
    since: datetime | None, *, path: Path | str | None = None, project: str | None = None,
    notes: list[str] | None = None,
) -> RunResult | None:
    """The newest readable stored run that finished at or after `since` (any run when
    None); with `project`, the newest of that project (a team database holds the team
    runs of several repositories, each under its remote URL). A row that cannot be
    read is skipped, and said in `notes` (else on stderr): readable_run."""
    from learn.store.api import open_store
    from learn.store.postgres import is_database_url

    db = path or default_store_target()
    if not is_database_url(db) and no_store_at(Path(db)):
        return None
    if since is not None and since.tzinfo is None:
        since = since.replace(tzinfo=UTC)
    with open_store(db) as store:
        rows = store.runs.stored_results()
    for row in rows:
        finished = parse_iso(row["finished_at"])
        if since is not None and (finished is None or finished < since):
            continue
        result = readable_run(row, notes)
        if result is not None and (project is None or project in result.projects):
            return result
    return None


def readable_run(row: Mapping[str, Any], notes: list[str] | None = None) -> RunResult | None:
    """The RunResult stored in `row`, or None when it cannot be read (not JSON, not
    the shape of a run): said in `notes` (else on stderr) and skipped. One such row,
    a newer learn's or one a team member wrote by hand, stopped `learn report --team`
    for the whole team with a traceback (team audit F3)."""
    import json

    try:
        data = json.loads(row["result_full_json"])
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        return result_from_full_json(data)
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        # json.JSONDecodeError is a ValueError.
        line = f"skipped a stored run that cannot be read ({type(exc).__name__})"
        if notes is not None:
            notes.append(line)
        else:
            print(f"learn: {line}", file=sys.stderr)
        return None


def load_proposals(
    since: datetime | None, project: str | None, *, every_state: bool = False,
    path: Path | str | None = None,
) -> RunResult | None:
    """The proposals of `project` (learn.projects.project_of; every project when None) that are
    still pending (every state with `every_state`), whatever runs happened since they
    were proposed, on top of the newest run that read that project (for the header:
    what was read, when, at what cost). None when there is neither.

    `extra["view"]` is "pending" (or "all"), `extra["states"]` maps key -> state.
    """
    from learn.projects import Known, key_within, project_of
    from learn.store.api import open_store
    from learn.store.postgres import is_database_url

    db = path or default_store_target()
    if not is_database_url(db) and no_store_at(Path(db)):
        return None
    if since is not None and since.tzinfo is None:
        since = since.replace(tzinfo=UTC)
    base: RunResult | None = None
    known = Known()
    with open_store(db) as store:
        rows = store.proposals.rows(project, states=None if every_state else ("pending",))
        for row in store.runs.stored_results():
            finished = parse_iso(row["finished_at"])
            if since is not None and (finished is None or finished < since):
                break
            result = readable_run(row)
            if result is not None and (
                    project is None or any(key_within(project_of(p, known) or "", project)
                                           for p in result.projects)):
                base = result
                break
    if since is not None:
        rows = [r for r in rows if (parse_iso(r.last_proposed_at) or since) >= since]
    if base is None and not rows:
        return None
    if base is not None:
        rows = as_printed(rows, base.proposals)
    seen: set[str] = set()
    proposals: list[Proposal] = []
    states: dict[str, str] = {}
    for r in rows:  # newest first: a key pending in two projects is shown once
        if r.key in seen:
            continue
        seen.add(r.key)
        proposals.append(r.proposal)
        states[r.key] = r.state
    base = base or RunResult(proposals=(), funnel=Funnel(), usage=RunUsage())
    extra = {**base.extra, "view": "all" if every_state else "pending", "states": states,
             "project": project, "pending": []}
    return dataclasses.replace(base, proposals=tuple(proposals), extra=extra)


def as_printed(rows: list[ProposalState], printed: tuple[Proposal, ...]) -> list[ProposalState]:
    """`rows` (newest run first: ProposalBook.rows) with each run's group that `printed`
    (the newest run's proposals) holds whole in the order that run printed them. The
    store ranks a run's rows by their counts, which puts an escalation (appended after
    the counted points) or a point whose stored count is wider than the run's (a run
    over one project) elsewhere than the run showed it."""
    at = {p.key: i for i, p in enumerate(printed)}
    groups: dict[str, list[ProposalState]] = {}
    for r in rows:
        groups.setdefault(r.last_proposed_at, []).append(r)
    out: list[ProposalState] = []
    for group in groups.values():
        if all(r.key in at for r in group):
            group = sorted(group, key=lambda r: at[r.key])
        out.extend(group)
    return out


def record_decision(
    key: str, decision: Decision, text: str, target: str | None, *,
    project: str | None = None, proposal: Proposal | None = None, backup: str | None = None,
    form: str = "rule", every_project: bool = False, path: Path | str | None = None,
) -> None:
    """Remember what the user did with proposal `key` ("kind:label").

    With `project`, the proposal's rows there (everywhere with `every_project`: a
    user-scope rule is the person's, not one project's) become applied / edited /
    declined, and a write (`target`) is recorded in applied_rules.
    """
    from learn.store.api import open_store

    with open_store(path or default_store_target()) as store, store.atomic():
        store.shown.record_decision(key, decision, text=text, target_file=target)
        if project is None:
            return
        book = store.proposals
        state = {"accepted": "applied", "edited": "edited", "dismissed": "declined"}[decision]
        book.decide(key, state, None if every_project else project)  # type: ignore[arg-type]
        if target is not None and proposal is not None and decision != "dismissed":
            book.record_applied(project=project, proposal=proposal, decision=decision,
                                form=form if form in ("command", "permission", "codex-rule",
                                                      "path-rule", "check") else "rule",  # type: ignore[arg-type]
                                rule_text=text, target_file=target, backup_file=backup)
