"""A team run read back from the team database, rechecked before `learn report --team`
shows it: any member can write the `runs` table, so what the shared rows can say is
recounted from them, every other stored text is treated as anyone's (team audit F4),
and the numbers the shared rows cannot check (the funnel, the calls, tokens and cost)
are shown only when they could be a run's (books_problem)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from learn.records.proposal import Funnel, Proposal, RunUsage, Verdict
from learn.reduce.team import PROVIDER
from learn.textfold import fold
from learn.visible import visible

if TYPE_CHECKING:
    from learn.records.proposal import RunResult
    from learn.store.team import SharedCandidate

# A stored run's free text (a rule, a file name, a failure, a name) is cut where the
# digest would cut a stored verdict's summary (learn.reduce.stored.SUMMARY_CHARS).
STORED_TEXT_CHARS = 600
_KINDS = ("directive", "fix", "request")
_STATUSES = ("new", "restated", "has-skill", "contradicts")


def _shared_text(text: str) -> str:
    """A shared row's words (a quote) as this machine would show them: through
    redaction (the credentials learn holds, then every shape it knows) and visible."""
    from learn.redaction.redact import redact_message

    return visible(redact_message(text))


def _safe_text(text: str) -> str:
    """A stored run's words as the reader of a stored verdict takes them
    (learn.reduce.stored.stored_text): redacted, then one visible line, cut. Any
    member writes `runs`, so a name, a label or a rule file there could carry line
    breaks, a Markdown heading or a bidi override as easily as a verdict could."""
    from learn.redaction.redact import redact_message
    from learn.reduce.stored import stored_text

    return stored_text(redact_message(text), STORED_TEXT_CHARS)


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return _safe_text(value)
    if isinstance(value, tuple):
        return tuple(_clean(v) for v in value)
    return value


# The numbers a stored run carries that the shared rows cannot check. A member can
# store any JSON there: a negative count, 10**30 calls, a cost of "free" or NaN were all
# rendered as stored. Counts are whole numbers within MAX_COUNT: the largest team
# measured (benchmarks/team_run.py: 50 people x 30,000 shared rows) is four orders of
# magnitude below it.
MAX_COUNT = 10**9
# A call's tokens: the largest context window learn knows (1M; learn.models.catalog)
# and its output, with room to spare.
MAX_TOKENS_PER_CALL = 2_000_000
# A call's cost: the dearest model in learn.models.catalog (claude-opus-4-1, $18.75 a
# million cache-write tokens and $75 a million output) over a full 1M window and
# 128k of output is ~$29.
MAX_USD_PER_CALL = 50.0
_FUNNEL = ("candidates", "points", "over_threshold", "below_threshold", "shown", "held_back",
           "cut")
_CALLS = ("model_calls", "failed_calls", "input_tokens", "output_tokens")


class UnverifiableRun(ValueError):
    """A stored team run whose funnel or usage cannot be a run's (books_problem)."""


def _count(value: object) -> bool:
    # bool is an int to Python, and JSON's true is no count.
    return type(value) is int and 0 <= value <= MAX_COUNT


def books_problem(funnel: object, usage: object) -> str | None:
    """Why a stored run's funnel and usage cannot be a run's, or None when they can.

    The funnel narrows stage by stage as learn.reduce.suppress.select counts it:
    occurrences >= groups >= groups over the threshold + groups below it, and over
    the threshold >= shown + held back + cut. Calls, tokens and the cost are
    whole, non-negative counts and a finite, non-negative number; a failed call is
    one of the calls; no tokens and no cost without a call, and no call costs more
    than MAX_USD_PER_CALL. Read field by field (a run stored by hand holds any
    JSON), so a string, a bool or NaN is a problem, never a crash."""
    if not isinstance(funnel, Funnel) or not isinstance(usage, RunUsage):
        return "its funnel or usage is not the shape of a run's"
    f: dict[str, Any] = {name: getattr(funnel, name, None) for name in _FUNNEL}
    bad = [name for name, value in f.items() if not _count(value)]
    if bad:
        return f"its funnel's {', '.join(bad)} {'is' if len(bad) == 1 else 'are'} not a count"
    if not (f["candidates"] >= f["points"] >= f["over_threshold"] + f["below_threshold"]
            and f["over_threshold"] >= f["shown"] + f["held_back"] + f["cut"]):
        return "a later stage of its funnel holds more than an earlier one"
    u: dict[str, Any] = {name: getattr(usage, name, None) for name in _CALLS}
    bad = [name for name, value in u.items() if not _count(value)]
    if bad:
        return f"its {', '.join(bad)} {'is' if len(bad) == 1 else 'are'} not a count"
    cost: Any = getattr(usage, "cost_usd", None)
    if type(cost) not in (int, float) or not 0 <= cost < float("inf"):  # NaN fails both
        return "its cost is not a finite, non-negative number"
    calls = u["model_calls"]
    if u["failed_calls"] > calls:
        return "more of its calls failed than were made"
    if u["input_tokens"] + u["output_tokens"] > calls * MAX_TOKENS_PER_CALL:
        return "it used more tokens than its calls could carry"
    if cost > calls * MAX_USD_PER_CALL:
        return "it cost more than its calls could"
    return None


def latest_rechecked_run(
    stored: Sequence[Mapping[str, Any]], rows: Sequence[SharedCandidate], *, remote: str,
    since: datetime | None, min_people: int, min_sessions: int, notes: list[str],
) -> RunResult | None:
    """The newest stored run of `remote` (`stored`: the runs table's rows, newest
    first) that can be read and whose books hold, rechecked (recheck_stored_run); None
    when there is none. A row that cannot be read, or whose funnel or cost cannot be
    a run's, is skipped and said in `notes` (the unverifiable ones as one count):
    never rendered with its numbers."""
    from datetime import UTC

    from learn.isotime import parse_iso
    from learn.store.runs import readable_run

    if since is not None and since.tzinfo is None:
        since = since.replace(tzinfo=UTC)
    unverifiable: list[str] = []
    found = None
    for row in stored:
        finished = parse_iso(row["finished_at"])
        if since is not None and (finished is None or finished < since):
            continue
        result = readable_run(row, notes)
        if result is None or remote not in result.projects:
            continue
        try:
            found = recheck_stored_run(result, rows, remote=remote, min_people=min_people,
                                       min_sessions=min_sessions)
        except UnverifiableRun as exc:
            unverifiable.append(str(exc))
            continue
        break
    if unverifiable:
        n = len(unverifiable)
        notes.append(f"skipped {n} stored team run{'s' if n != 1 else ''} whose funnel or cost "
                     f"cannot be a run's ({unverifiable[0]}): a member wrote "
                     f"{'it' if n == 1 else 'them'} by hand or with another tool")
    return found


def _session_id(stored: str) -> str:
    """A quote's session as a team run writes it: the shared hash, and `:N` where two
    people shared one hash (learn.reduce.team.team_sessions). Anything else after
    the hash was not written by a team run and is dropped."""
    base, _, suffix = stored.partition(":")
    return f"{base}:{suffix}" if suffix.isascii() and suffix.isdigit() else base


def _in_repository(path: str | None) -> str | None:
    """A stored rule file only when it is named inside the repository (relative, no
    `..`): a team run writes it so (_relative), so an absolute path or one that climbs
    out was not written by a team run, and names a file of someone's machine."""
    from pathlib import PurePosixPath, PureWindowsPath

    if not path:
        return None
    if (PurePosixPath(path).is_absolute() or PureWindowsPath(path).is_absolute()
            or PureWindowsPath(path).drive or path.startswith("~")
            or ".." in PurePosixPath(path.replace("\\", "/")).parts):
        return None
    return path


def recheck_stored_run(
    result: RunResult, rows: Sequence[SharedCandidate], *, remote: str, min_people: int,
    min_sessions: int,
) -> RunResult:
    """A team run read back from the team database (`learn report --team`), with what
    the shared rows can say recounted from them and not taken from the run.

    Any member can write `runs`: a made-up run showed "9 people", named members who
    never set show_name, quoted what nobody typed and held a secret and another
    person's local path (team audit F4). So each proposal keeps only the quotes found
    among the shared rows of `remote` (same session hash, kind and words); its people,
    sessions, authors (only those who chose to be named), occurrences and last time
    are counted from those rows, and a proposal that no longer reaches `min_people` and
    `min_sessions` is dropped. Every other stored text goes through redaction and
    `visible`, the verdict through the store's reading of a verdict
    (learn.reduce.stored), and a rule file outside the repository is not named."""
    from learn.records.proposal import Quote, RunResult
    from learn.reduce.slug import is_label
    from learn.reduce.stored import stored_verdict

    problem = books_problem(result.funnel, result.usage)
    if problem is not None:
        raise UnverifiableRun(problem)
    said: dict[tuple[str, str, str], list[SharedCandidate]] = {}
    for r in rows:
        said.setdefault((r.session_hash, r.kind, fold(visible(r.quote))), []).append(r)
    # A name is the admin's for a member who chose to show it; read as stored text all
    # the same (a SQLite team file's author id is anyone's to write).
    names = {r.author: _safe_text(r.name) for r in rows if r.name}
    kept: list[Proposal] = []
    for p in result.proposals:
        if not isinstance(p.label, str) or not is_label(p.label) or p.kind not in _KINDS:
            continue
        quotes: list[Quote] = []
        found: list[SharedCandidate] = []
        counted: set[tuple[str, str, str]] = set()
        for q in p.quotes:
            if not isinstance(q.text, str) or not isinstance(q.session_id, str):
                continue
            # A session hash two people shared is told apart by a suffix (team_sessions).
            where = (q.session_id.split(":")[0], p.kind, fold(visible(q.text)))
            match = said.get(where)
            if match and where not in counted:  # a quote listed twice counts once
                counted.add(where)
                found.extend(match)
                quotes.append(Quote(session_id=_session_id(q.session_id),
                                    text=_shared_text(match[0].quote),
                                    at=max((r.occurred_at or "" for r in match), default="")
                                    or None, agent=PROVIDER))
        people = {r.author for r in found}
        sessions = {(r.author, r.session_hash) for r in found}
        if len(people) < min_people or len(sessions) < min_sessions:
            continue
        # The representative quote is one of those found, in the shared row's words.
        wanted = fold(_shared_text(p.text)) if isinstance(p.text, str) else ""
        text = next((q.text for q in quotes if fold(q.text) == wanted), quotes[0].text)
        dated = [r.occurred_at for r in found if r.occurred_at]
        fields = {f.name: _clean(getattr(p, f.name)) for f in dataclasses.fields(Proposal)}
        fields.update(
            text=text, quotes=tuple(quotes), people=len(people), sessions=len(sessions),
            count=len(quotes), last_seen=max(dated) if dated else None,
            authors=tuple(sorted(names[x] for x in people if x in names)),
            command=text if p.kind == "fix" else None,
            existing_rule_file=_in_repository(fields["existing_rule_file"]),
            verdict=None if not isinstance(p.verdict, Verdict) else stored_verdict(
                replace(p.verdict, summary=_safe_text(str(p.verdict.summary or "")),
                        rationale=_safe_text(str(p.verdict.rationale or "")))),
            agents=(),
            status=p.status if p.status in _STATUSES else "new",
        )
        if fields["existing_rule_file"] is None and p.status in ("restated", "contradicts"):
            fields["existing_rule"] = None
            fields["status"] = "new"
        kept.append(Proposal(**fields))
    dated = [r.occurred_at for r in rows if r.occurred_at]
    seen = len({(r.author, r.session_hash) for r in rows})
    funnel = dataclasses.replace(result.funnel, shown=len(kept))
    problem = books_problem(funnel, result.usage)
    if problem is not None:  # more proposals survived the recount than its funnel shows
        raise UnverifiableRun(problem)
    return RunResult(
        proposals=tuple(kept),
        funnel=funnel,
        usage=dataclasses.replace(result.usage, sessions_seen=seen, sessions_mined=0,
                                  sessions_cached=0, sessions_failed=0),
        window_start=min(dated) if dated else None,
        window_end=max(dated) if dated else None,
        projects=(remote,),
        failures=tuple(_safe_text(f) for f in result.failures if isinstance(f, str)),
        coverage_failed=bool(result.coverage_failed),
        offline=bool(result.offline),
        failed_stages=tuple(_safe_text(s) for s in result.failed_stages if isinstance(s, str)),
        extra={"team": {"remote": remote, "people": len({r.author for r in rows}),
                        "sessions": seen, "rechecked": True}},
    )
