"""A team run read back from the team database, rechecked before `learn report --team`
shows it: any member can write the `runs` table, so what the shared rows can say is
recounted from them and every other stored text is treated as anyone's (team audit F4)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from learn.records.proposal import Proposal, Verdict
from learn.reduce.team import PROVIDER
from learn.textfold import fold
from learn.visible import visible

if TYPE_CHECKING:
    from learn.records.proposal import RunResult
    from learn.store.team import SharedCandidate


def _safe_text(text: str) -> str:
    """A stored run's words as this machine would have written them: through
    redaction (the credentials learn holds, then every shape it knows) and visible."""
    from learn.redaction.redact import redact_message

    return visible(redact_message(text))


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return _safe_text(value)
    if isinstance(value, tuple):
        return tuple(_clean(v) for v in value)
    return value


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
    from learn.records.proposal import Funnel, Quote, RunResult
    from learn.reduce.slug import is_label
    from learn.reduce.stored import stored_verdict

    said: dict[tuple[str, str, str], list[SharedCandidate]] = {}
    for r in rows:
        said.setdefault((r.session_hash, r.kind, fold(visible(r.quote))), []).append(r)
    names = {r.author: r.name for r in rows if r.name}
    kept: list[Proposal] = []
    for p in result.proposals:
        if not isinstance(p.label, str) or not is_label(p.label):
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
                quotes.append(Quote(session_id=q.session_id, text=_safe_text(match[0].quote),
                                    at=max((r.occurred_at or "" for r in match), default="")
                                    or None, agent=PROVIDER))
        people = {r.author for r in found}
        sessions = {(r.author, r.session_hash) for r in found}
        if len(people) < min_people or len(sessions) < min_sessions:
            continue
        texts = {fold(q.text) for q in quotes}
        text = _safe_text(p.text) if isinstance(p.text, str) else ""
        if fold(text) not in texts:  # the representative quote is one of those found
            text = quotes[0].text
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
        )
        if fields["existing_rule_file"] is None and p.status in ("restated", "contradicts"):
            fields["existing_rule"] = None
            fields["status"] = "new"
        kept.append(Proposal(**fields))
    dated = [r.occurred_at for r in rows if r.occurred_at]
    seen = len({(r.author, r.session_hash) for r in rows})
    return RunResult(
        proposals=tuple(kept),
        funnel=dataclasses.replace(result.funnel, shown=len(kept))
        if isinstance(result.funnel, Funnel) else Funnel(shown=len(kept)),
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
