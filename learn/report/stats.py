"""What `learn stats` reports: what was proposed and decided, what it cost, and how big
the rule files already are.

Reading stats must never create the store: a user who types `learn stats` before
their first run gets "no runs yet", not an empty database in ~/.local/share. So
the store is opened read-only, and only an existing file is opened at all. The one
write is a migration: a store an older learn wrote is migrated, as every other
command that opens it does (read_store_stats).

The rule-file sizes are there because every line of CLAUDE.md / AGENTS.md is read
on every turn of every session; ~tokens is bytes/4, the usual rough ratio for
English prose, good enough to say "this file is getting long".
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from learn.paths import home_relative

DECISIONS = ("accepted", "edited", "dismissed")
# Each decision as the state it leaves a proposal in (learn.store.proposals_ddl), the
# words the digest and `learn digest --all` use: the text said "accepted ... dismissed"
# where every other surface says "applied ... declined". The JSON keeps its keys.
STATE_WORDS = {"accepted": "applied", "edited": "edited", "dismissed": "declined"}


@dataclass(frozen=True, slots=True)
class RuleFileSize:
    path: str
    scope: str  # "user" or "project"
    lines: int
    bytes: int

    @property
    def tokens(self) -> int:
        return self.bytes // 4


@dataclass(frozen=True, slots=True)
class StoreStats:
    runs: int
    finished_runs: int
    model_calls: int  # answered: a call that failed is counted in failed_calls instead
    input_tokens: int
    output_tokens: int
    cost_usd: float
    last_run_at: str | None  # the newest run's finish time (its start if it never finished)
    proposals_by_kind: Mapping[str, int] = field(default_factory=dict)  # distinct keys shown
    failed_calls: int = 0
    times_shown: int = 0  # every showing, the same proposal in two runs counts twice
    # Each proposal's latest decision: dismissing then accepting counts once, as accepted.
    decisions: Mapping[str, int] = field(default_factory=dict)
    decisions_by_kind: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    # Proposals whose latest decision was an apply that `learn apply --undo` took back:
    # pending again, so not accepted (the decisions ledger is append-only, undo writes
    # nothing to it; the proposals' state says the apply no longer stands).
    undone: int = 0


@dataclass(frozen=True, slots=True)
class Stats:
    store_path: str
    store: StoreStats | None  # None: no store yet (no runs)
    project: str | None
    rule_files: tuple[RuleFileSize, ...] = ()


def _kind(key: str) -> str:
    # Proposal keys are "kind:label" (learn.records.proposal.Proposal.key).
    kind, sep, _ = key.partition(":")
    return kind if sep else "other"


def _usage(raw: str | None) -> dict[str, Any]:
    if not raw:
        return {}
    try:
        data = json.loads(raw)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _int(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


def _float(value: Any) -> float:
    try:
        return float(value or 0.0)
    except (TypeError, ValueError):
        return 0.0


def summarize(
    runs: Sequence[Mapping[str, Any]],
    proposals: Sequence[Mapping[str, Any]],
    decisions: Sequence[Mapping[str, Any]],
    states: Mapping[str, Collection[str]] | None = None,
) -> StoreStats:
    """Pure: the rows of runs (id, started_at, finished_at, usage_json), proposals
    (key, shown_count) and decisions (key, decision, in time order) to the totals.
    `states`: key -> the states of its proposal rows (learn.store.proposals); an
    accepted or edited key none of whose rows is applied or edited any more was
    undone, and is counted as that instead."""
    calls = failed = tokens_in = tokens_out = 0
    cost = 0.0
    for r in runs:
        u = _usage(r.get("usage_json"))
        # A run records every call it sent (failures are billed: their tokens and
        # cost stay in the totals); a failed call is not a model call that answered.
        failed += _int(u.get("failed_calls"))
        calls += max(0, _int(u.get("model_calls")) - _int(u.get("failed_calls")))
        tokens_in += _int(u.get("input_tokens"))
        tokens_out += _int(u.get("output_tokens"))
        cost += _float(u.get("cost_usd"))
    last = max(runs, key=lambda r: int(r["id"]), default=None)
    last_at = None if last is None else (last.get("finished_at") or last.get("started_at"))
    by_kind = Counter(_kind(str(p["key"])) for p in proposals)
    latest: dict[str, str] = {}
    for d in decisions:  # time order, so the last one per key wins
        latest[str(d["key"])] = str(d["decision"])
    totals = {name: 0 for name in DECISIONS}
    per_kind: dict[str, dict[str, int]] = {}
    undone = 0
    for key, decision in latest.items():
        now = (states or {}).get(key)
        # No rows: a decision from before the proposal book, which it cannot contradict.
        if decision in ("accepted", "edited") and now and not {"applied", "edited"} & set(now):
            undone += 1
            continue
        totals[decision] = totals.get(decision, 0) + 1
        row = per_kind.setdefault(_kind(key), {name: 0 for name in DECISIONS})
        row[decision] = row.get(decision, 0) + 1
    return StoreStats(
        runs=len(runs),
        finished_runs=sum(1 for r in runs if r.get("finished_at")),
        model_calls=calls,
        failed_calls=failed,
        input_tokens=tokens_in,
        output_tokens=tokens_out,
        cost_usd=round(cost, 6),
        last_run_at=last_at,
        proposals_by_kind=dict(sorted(by_kind.items())),
        times_shown=sum(_int(p.get("shown_count")) for p in proposals),
        decisions=totals,
        decisions_by_kind=dict(sorted(per_kind.items())),
        undone=undone,
    )


def read_store_stats(path: Path | str) -> StoreStats | None:
    """The totals of the store at `path` (a file, or a `postgresql://` URL), or None when
    there is no store file. Writes nothing but the migrations a store from an older
    learn needs.

    Raises learn.store.db.StoreError (or apsw's errors) for a store that cannot be read.
    """
    from learn.store.runs import no_store_at

    # Only nothing at the path is "no runs yet": a learn.db that is a folder, or a data
    # folder that is a file, is opened and says what is wrong with it.
    if isinstance(path, Path) and no_store_at(path):
        return None
    from learn.store import open_store
    from learn.store.db import MigrationsPendingError

    try:
        store = open_store(path, readonly=True)
    except MigrationsPendingError:
        # A store an older learn wrote, read first by stats after an upgrade: migrated
        # here, as `learn digest`, `report` and `apply` do when they open it. Read-only
        # stats said "the next `learn run` migrates it", and a run after an upgrade can
        # cost a re-mine of every session (a new redaction version): the migration
        # itself is free. A file that is no learn store, or one a newer learn wrote, is
        # still refused, untouched.
        store = open_store(path)
    with store:
        runs = store.runs.usage_rows()
        proposals = store.shown.shown_counts()
        decisions = store.shown.decision_rows()
        states = store.proposals.states_by_key()
    return summarize(runs, proposals, decisions, states)


def rule_file_sizes(project: Path | None, home: Path | None = None) -> tuple[RuleFileSize, ...]:
    """Sizes of the user's and the project's CLAUDE.md / AGENTS.md files that exist."""
    from learn.reduce.rules import rule_files

    out: list[RuleFileSize] = []
    for path, scope in rule_files(project, home):
        try:
            data = path.read_bytes()
        except OSError:
            continue  # vanished or unreadable between listing and reading: not ours to fix
        lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
        out.append(RuleFileSize(path=str(path), scope=scope, lines=lines, bytes=len(data)))
    return tuple(out)


def collect_stats(
    store_path: Path | None = None, *, project: Path | None = None, home: Path | None = None
) -> Stats:
    from learn.config import ConfigError
    from learn.store.postgres import redact_url
    from learn.store.runs import default_store_path, default_store_target

    try:
        path: Path | str = store_path or default_store_target()
    except ConfigError:  # stats only reads; `learn doctor` names the bad key
        path = default_store_path()
    return Stats(
        store_path=redact_url(path) if isinstance(path, str) else str(path),
        store=read_store_stats(path),
        project=None if project is None else str(project),
        rule_files=rule_file_sizes(project, home),
    )


# -- rendering -------------------------------------------------------------------------


def stats_to_json(stats: Stats) -> dict[str, Any]:
    s = stats.store
    return {
        "store": stats.store_path,
        "has_runs": s is not None and s.runs > 0,
        "runs": 0 if s is None else s.runs,
        "finished_runs": 0 if s is None else s.finished_runs,
        "last_run_at": None if s is None else s.last_run_at,
        "model_calls": 0 if s is None else s.model_calls,
        "failed_calls": 0 if s is None else s.failed_calls,
        "input_tokens": 0 if s is None else s.input_tokens,
        "output_tokens": 0 if s is None else s.output_tokens,
        "cost_usd": 0.0 if s is None else s.cost_usd,
        "proposals_by_kind": {} if s is None else dict(s.proposals_by_kind),
        "times_shown": 0 if s is None else s.times_shown,
        "decisions": {name: 0 for name in DECISIONS} if s is None else dict(s.decisions),
        "decisions_by_kind": {} if s is None else {k: dict(v) for k, v in
                                                   s.decisions_by_kind.items()},
        "undone": 0 if s is None else s.undone,
        "project": stats.project,
        "rule_files": [
            {"path": f.path, "scope": f.scope, "lines": f.lines, "bytes": f.bytes,
             "tokens": f.tokens}
            for f in stats.rule_files
        ],
    }


def _when(iso: str | None) -> str:
    if not iso:
        return "unknown"
    try:
        return datetime.fromisoformat(iso.replace("Z", "+00:00")).strftime("%Y-%m-%d %H:%M %Z").strip()
    except ValueError:
        return iso


def render_stats_text(stats: Stats, *, home: Path | None = None) -> str:
    s = stats.store
    lines: list[str] = []
    if s is None or s.runs == 0:
        lines.append(f"no runs yet (store: {stats.store_path})")
    else:
        lines.append(f"runs: {s.runs} (last {_when(s.last_run_at)})"
                     + ("" if s.finished_runs == s.runs
                        else f", {s.runs - s.finished_runs} unfinished"))
        failed = f" (and {s.failed_calls:,} that failed)" if s.failed_calls else ""
        lines.append(f"model calls: {s.model_calls:,}{failed}; tokens: {s.input_tokens:,} in, "
                     f"{s.output_tokens:,} out; cost: ${s.cost_usd:.4f}")
        shown = sum(s.proposals_by_kind.values())
        kinds = ", ".join(f"{k} {n}" for k, n in s.proposals_by_kind.items())
        lines.append(f"proposals shown: {shown}" + (f" ({kinds})" if kinds else "")
                     + (f", {s.times_shown} showings" if s.times_shown > shown else ""))
        counts = ", ".join(f"{s.decisions.get(name, 0)} {STATE_WORDS[name]}"
                           for name in DECISIONS)
        undone = f", {s.undone} undone" if s.undone else ""
        lines.append(f"decisions: {counts}{undone}")
        for kind, row in s.decisions_by_kind.items():
            lines.append(f"  {kind}: " + ", ".join(f"{row.get(n, 0)} {STATE_WORDS[n]}"
                                                   for n in DECISIONS))
        lines.append(f"store: {stats.store_path}")
    if stats.rule_files:
        lines.append("rule files (read on every turn):")
        width = max(len(home_relative(f.path, home)) for f in stats.rule_files)
        for f in stats.rule_files:
            lines.append(f"  {f.scope:<7} {home_relative(f.path, home):<{width}}  "
                         f"{f.lines:>5,} lines {f.bytes:>8,} bytes  ~{f.tokens:,} tokens")
    else:
        lines.append("rule files: none (no CLAUDE.md or AGENTS.md for you or this project)")
    return "\n".join(lines) + "\n"
