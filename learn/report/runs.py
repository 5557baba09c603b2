"""Where the surfaces touch the store: the pending proposals of a project, the last run,
and recording decisions.

All are injectable callables so the digest, the report and `apply` can be tested
without a database, and so the store can change without touching the surfaces.
The store wires itself in by providing, in `learn.store.runs`,
`load_proposals(since, project, every_state=...)`, `load_latest_run(since)` and
`record_decision(key, decision, text, target, *, project, proposal, backup, form,
every_project)` (found on first use, so importing this module never opens the
database); tests use `set_proposal_loader` / `set_run_loader` /
`set_decision_recorder`. Until the store provides them, decisions go to a private
JSON-lines file in the data dir (nothing is lost), and there is no run to load.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Literal, Protocol

from learn.paths import data_dir, ensure_private_dir, open_private_append
from learn.records.proposal import Proposal, RunResult

Decision = Literal["accepted", "edited", "dismissed"]


class RunLoader(Protocol):
    def __call__(self, since: datetime | None) -> RunResult | None:
        """The newest stored run that finished at or after `since` (any run when None)."""
        ...


class ProposalLoader(Protocol):
    def __call__(self, since: datetime | None, project: str | None,
                 every_state: bool) -> RunResult | None:
        """The pending proposals of `project` (every state with `every_state`) over the
        newest run that read it; None when there is neither (see learn.store.runs)."""
        ...


class DecisionRecorder(Protocol):
    def __call__(self, key: str, decision: Decision, text: str, target: str | None, *,
                 project: str | None = None, proposal: Proposal | None = None,
                 backup: str | None = None, form: str = "rule",
                 every_project: bool = False) -> None:
        """Remember what the user did with proposal `key` (`kind:label`); with `project`,
        its lifecycle there (applied, edited, declined) and what was written where."""
        ...


STORE_MODULE = "learn.store.runs"


def _store_hook(name: str) -> object | None:
    try:
        module = importlib.import_module(STORE_MODULE)
    except ModuleNotFoundError as exc:
        # Only "the store has no such module" means "not wired"; a store that fails to
        # import for another reason must say so, not look like an empty history.
        if exc.name is not None and STORE_MODULE.startswith(exc.name):
            return None
        raise
    return getattr(module, name, None)


def _from_store(since: datetime | None) -> RunResult | None:
    hook = _store_hook("load_latest_run")
    if hook is None:
        return None
    loader: RunLoader = hook  # type: ignore[assignment]
    return loader(since)


def _proposals_from_store(since: datetime | None, project: str | None,
                          every_state: bool) -> RunResult | None:
    hook = _store_hook("load_proposals")
    if hook is None:
        return None
    loader: ProposalLoader = hook  # type: ignore[assignment]
    return loader(since, project, every_state=every_state)


def _record_default(key: str, decision: Decision, text: str, target: str | None, *,
                    project: str | None = None, proposal: Proposal | None = None,
                    backup: str | None = None, form: str = "rule",
                    every_project: bool = False) -> None:
    hook = _store_hook("record_decision")
    if hook is not None:
        recorder: DecisionRecorder = hook  # type: ignore[assignment]
        recorder(key, decision, text, target, project=project, proposal=proposal, backup=backup,
                 form=form, every_project=every_project)
        return
    # One line per decision, appended: a decision must survive even when the store
    # is not wired yet, and an append cannot lose the earlier lines.
    path = ensure_private_dir(data_dir()) / "decisions.jsonl"
    line = json.dumps({"key": key, "decision": decision, "text": text, "target": target,
                       "at": datetime.now(UTC).isoformat(timespec="seconds")},
                      ensure_ascii=False)
    fd = open_private_append(path)
    with os.fdopen(fd, "a", encoding="utf-8") as fh:
        fh.write(line + "\n")


_loader: RunLoader = _from_store
_proposals: ProposalLoader = _proposals_from_store
_recorder: DecisionRecorder = _record_default


def set_run_loader(loader: RunLoader | None) -> None:
    """Install a loader (None restores the default: the store's, if it provides one)."""
    global _loader
    _loader = loader or _from_store


def set_proposal_loader(loader: ProposalLoader | None) -> None:
    """Install a pending-proposals loader (None restores the store's)."""
    global _proposals
    _proposals = loader or _proposals_from_store


def set_decision_recorder(recorder: DecisionRecorder | None) -> None:
    """Install a recorder (None restores the default: the store's, else JSON lines)."""
    global _recorder
    _recorder = recorder or _record_default


def load_latest_run(since: datetime | None = None) -> RunResult | None:
    return _loader(since)


def load_proposals(since: datetime | None, project: str | None, *,
                   every_state: bool = False) -> RunResult | None:
    """The stored proposals of `project` (every project when None) over the newest run that
    read it, that run's rules in place and learn's checks scoped to `project`
    (learn.report.outcomes.for_project), whichever loader is installed.

    Scoped here, where every surface gets them, not by each command: a run over every
    project stores every project's outcomes and checks, `RunResult.to_json` carries
    `extra` whole, and each command that showed them had to remember to scope them (the
    digest, outcomes and report of infra listed shop-api's rules while one did not)."""
    result = _proposals(since, project, every_state)
    if result is None:
        return None
    from learn.report.outcomes import for_project

    # The project asked, when the loader does not name the one it read for.
    return _where_loaded(for_project(dataclasses.replace(
        result, extra={"project": project, **result.extra})))


def _where_loaded(result: RunResult) -> RunResult:
    """`result` without the outcomes of rules whose file does not load in the project
    they were measured for (learn.reduce.rules.loads_in), as learn.reduce.outcomes
    measures them now: a run stored before that measured shopfront's CLAUDE.md line as
    notes-api's rule (the point was said in both), and notes-api's digest listed it."""
    from learn.projects import as_folder
    from learn.reduce.rules import loads_in

    def here(o: object) -> bool:
        if not isinstance(o, dict) or not isinstance(o.get("project"), str):
            return True
        folder, file = as_folder(o["project"]), Path(str(o.get("file") or "")).expanduser()
        return folder is None or not file.is_file() or loads_in(file, folder)

    outcomes = result.extra.get("outcomes")
    if not outcomes:
        return result
    return dataclasses.replace(result, extra={**result.extra, "outcomes": [
        o for o in outcomes if here(o)]})


def record_decision(key: str, decision: Decision, text: str, target: str | None, *,
                    project: str | None = None, proposal: Proposal | None = None,
                    backup: str | None = None, form: str = "rule",
                    every_project: bool = False) -> None:
    _recorder(key, decision, text, target, project=project, proposal=proposal, backup=backup,
              form=form, every_project=every_project)


def decisions_path() -> Path:
    return data_dir() / "decisions.jsonl"


_SINCE = re.compile(r"^\s*(\d+)\s*([hdw])\s*$")


def parse_since(value: str, *, now: datetime | None = None) -> datetime:
    """`7d`, `12h`, `2w`, or an ISO date/time -> an aware UTC datetime."""
    now = now or datetime.now(UTC)
    m = _SINCE.match(value)
    if m:
        n, unit = int(m.group(1)), m.group(2)
        delta = {"h": timedelta(hours=n), "d": timedelta(days=n), "w": timedelta(weeks=n)}[unit]
        return now - delta
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError as exc:
        raise ValueError(f"--since {value!r}: expected e.g. 7d, 12h, 2w or 2026-11-01") from exc
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


__all__ = [
    "Decision",
    "DecisionRecorder",
    "NoRunError",
    "ProposalLoader",
    "RunLoader",
    "decisions_path",
    "load_latest_run",
    "load_proposals",
    "parse_since",
    "record_decision",
    "require_run",
    "set_decision_recorder",
    "set_proposal_loader",
    "set_run_loader",
]


class NoRunError(Exception):
    """There is no stored run to render (none yet, or none in the asked-for window)."""


def require_run(since: str | None = None) -> RunResult:
    """The latest stored run, or NoRunError saying what to do about it."""
    cutoff = parse_since(since) if since else None
    result = load_latest_run(cutoff)
    if result is None:
        window = f" since {since}" if since else ""
        raise NoRunError(f"no stored run{window}: run `learn run` first "
                         "(digest, report and apply re-render the last run, no model calls)")
    return result
