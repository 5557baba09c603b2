"""Did the rule work? Each applied rule against the sessions that started after it.

A rule is in place from `applied_at` (what `learn apply` wrote, or the first run
that found the person had written it themselves). Every later run counts the
same correction in the sessions it read, split by session start: before the
rule and since. "The same correction" is the same group as today's counting
makes it: the rule's own label (labels are stable across runs: naming reuses
stored labels by meaning), the judge's canonical key when a group of this run
carries the rule's, or, for a group under another label, the rule's evidence
quotes near the group's quotes in the embedder's space (the distance naming
clusters by).

Only sessions where the rule was loaded count (learn.reduce.loaded: a record
of the load where one exists, else inferred from the agent, its folder and the
files it read); before the rule, the sessions where it would have loaded. A
correction said where the rule never reached the agent is a placement problem,
reported with its reason and fix, not as the rule being ignored.

The verdict:
- *never loaded*: sessions started since, and the rule loaded in none of them;
- *ignored*: said again in at least one session that started after the rule was
  in place and loaded it (the quotes are shown: they are verified, so one is
  evidence);
- *holding*: not said since, over at least MIN_SESSIONS_SINCE loaded sessions;
- *too early to tell*: not said since, over fewer.

Why 5: a rule is proposed at 2 sessions (directives, fixes) and the corrections
that reach it were, in the demo and hard corpora, said in about one session in
three. At that rate five clean sessions happen by luck (2/3)^5 = 13% of the time;
three would be 30%, a coin flip dressed as a verdict. Ten would keep most rules
"too early" for weeks on a person who opens two sessions a day.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from learn.records.proposal import Proposal, Quote
from learn.reduce.checks import CheckInPlace
from learn.reduce.counting import Occurrence, one_saying
from learn.reduce.loaded import LoadCall, Seen, Why, load_call, not_loaded
from learn.reduce.rates import Rate, change, difference
from learn.reduce.rule_target import RuleTarget

OutcomeVerdict = Literal["holding", "ignored", "too-early", "never-loaded"]
VERDICTS: tuple[OutcomeVerdict, ...] = ("holding", "ignored", "too-early", "never-loaded")
MIN_SESSIONS_SINCE = 5

VERDICT_WORDS: dict[str, str] = {
    "holding": "holding",
    "ignored": "ignored",
    "too-early": "too early to tell",
    "never-loaded": "never loaded",
}


@dataclass(frozen=True, slots=True)
class InPlace:
    """A rule in place: what an applied_rules row says, plus the evidence it had."""

    key: str  # kind:label
    rule_text: str
    target_file: str
    applied_at: str  # ISO 8601
    project: str | None = None
    canonical_key: str | None = None
    origin: str = "apply"  # "apply" | "written" (found in the person's own files)
    evidence: tuple[str, ...] = ()  # the quotes it was proposed on

    @property
    def kind(self) -> str:
        return self.key.split(":", 1)[0]

    @property
    def label(self) -> str:
        return self.key.split(":", 1)[-1]


@dataclass(frozen=True, slots=True)
class Said:
    """One verified occurrence, with the session it was said in."""

    session_id: str
    started_at: str | None  # ISO 8601 start of that session
    label: str
    kind: str
    text: str
    project: str | None = None


def said_of(occs: Sequence[Occurrence],
            session_starts: Mapping[str, str | None]) -> list[Said]:
    """Each verified occurrence as said in its session (started at `session_starts`, else
    at its last activity), a message pasted into sessions side by side counted in the
    session it was first typed in: the same rule the proposals are counted by
    (learn.reduce.counting.one_saying).

    Counted per copy, a rule's point pasted into two Codex sessions 24 s apart after the
    rule was applied was "said again in 2 sessions since", where the proposals it came
    from counted that fan-out as one saying."""
    return [Said(o.session.session_id,
                 session_starts.get(o.session.session_id) or o.session.last_activity,
                 o.label, o.candidate.kind, o.candidate.text, o.session.project)
            for o in one_saying(occs)]


@dataclass(frozen=True, slots=True)
class RuleOutcome:
    key: str
    rule_text: str
    target_file: str
    applied_at: str
    origin: str
    sessions_before: int  # sessions read that started before the rule
    said_before: int  # of those, the ones it was said in
    sessions_since: int
    said_since: int
    quotes_since: tuple[Quote, ...]
    per_day: tuple[tuple[str, int], ...]  # occurrences per day, before and since
    verdict: OutcomeVerdict
    matched_labels: tuple[str, ...] = ()
    escalation: dict[str, Any] | None = field(default=None)
    # Sessions since where the rule did not reach the agent, and why (learn.reduce.
    # loaded.NotLoaded as JSON: why, sessions, reason, fix).
    sessions_unloaded: int = 0
    said_unloaded: int = 0
    quotes_unloaded: tuple[Quote, ...] = ()
    not_loaded: dict[str, Any] | None = None
    loaded_how: tuple[tuple[str, int], ...] = ()  # recorded / inferred / assumed, since
    # learn's check for this rule (learn.guard): mode, when installed, how often it
    # stopped (or would have stopped) the agent.
    check: dict[str, Any] | None = None
    project: str | None = None
    check_offer: dict[str, Any] | None = None  # learn's check proposed for it (key, state)
    # Not measured by its run, whose counts missed sessions (learn.reduce.outcomes_kept):
    # {"at": when the figures were measured (None: by that partial run), "why"}.
    kept: dict[str, Any] | None = None

    @property
    def label(self) -> str:
        return self.key.split(":", 1)[-1]

    @property
    def rate_before(self) -> Rate:
        return Rate(self.said_before, self.sessions_before)

    @property
    def rate_since(self) -> Rate:
        return Rate(self.said_since, self.sessions_since)

    def rates_json(self) -> dict[str, Any]:
        before, since = self.rate_before, self.rate_since
        low, high = difference(since, before)
        out: dict[str, Any] = {"before": before.to_json(), "since": since.to_json(),
                               "change": change(since, before),
                               "difference": [round(low, 4), round(high, 4)]
                               if before.sessions and since.sessions else None}
        if self.check is not None:
            checked = Rate(int(self.check.get("said_since") or 0),
                           int(self.check.get("sessions_since") or 0))
            out["since_check"] = checked.to_json()
            out["check_change"] = change(checked, before)
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key, "label": self.label, "rule": self.rule_text,
            "file": self.target_file, "applied_at": self.applied_at, "origin": self.origin,
            "sessions_before": self.sessions_before, "said_before": self.said_before,
            "sessions_since": self.sessions_since, "said_since": self.said_since,
            "quotes_since": [_quote_json(q) for q in self.quotes_since],
            "per_day": [list(x) for x in self.per_day], "verdict": self.verdict,
            "matched_labels": list(self.matched_labels),
            "escalation": self.escalation,
            "sessions_unloaded": self.sessions_unloaded, "said_unloaded": self.said_unloaded,
            "quotes_unloaded": [_quote_json(q) for q in self.quotes_unloaded],
            "not_loaded": self.not_loaded, "loaded_how": dict(self.loaded_how),
            "rates": self.rates_json(), "check": self.check, "project": self.project,
            "check_offer": self.check_offer, "kept": self.kept,
        }


def _quote_json(q: Quote) -> dict[str, Any]:
    return {"session_id": q.session_id, "text": q.text, "at": q.at, "project": q.project}


def verdict_for(sessions_since: int, said_since: int,
                min_since: int = MIN_SESSIONS_SINCE, *, unloaded: int = 0) -> OutcomeVerdict:
    """`sessions_since`/`said_since` over the sessions that loaded the rule;
    `unloaded`: sessions since that did not."""
    if not sessions_since and unloaded:
        return "never-loaded"
    if said_since:
        return "ignored"
    return "holding" if sessions_since >= min_since else "too-early"


Similar = Callable[[Sequence[str], Sequence[str]], float]


def _matching_labels(rule: InPlace, groups: Mapping[str, list[Said]],
                     proposals: Sequence[Proposal], similar: Similar | None,
                     threshold: float) -> set[str]:
    out = {rule.label} if rule.label in groups else set()
    if rule.canonical_key:
        out.update(p.label for p in proposals
                   if p.verdict and p.verdict.canonical_key == rule.canonical_key
                   and p.kind == rule.kind)
    if similar is not None:
        anchor = [t for t in (*rule.evidence, rule.rule_text) if t.strip()]
        for label, said in groups.items():
            if label in out or not said or said[0].kind != rule.kind or not anchor:
                continue
            if similar(anchor, [s.text for s in said]) >= threshold:
                out.add(label)
    return out


def started_before(a: str | None, b: str) -> bool:
    from learn.isotime import parse_iso

    when, cut = parse_iso(a), parse_iso(b)
    if when is None or cut is None:
        return True  # undated: it cannot be shown to be since, so it is not
    return when < cut


def _quotes(hits: Sequence[Said]) -> tuple[Quote, ...]:
    quotes: list[Quote] = []
    seen: set[tuple[str, str]] = set()
    for s in sorted(hits, key=lambda s: s.started_at or ""):
        if (s.session_id, s.text) not in seen:
            seen.add((s.session_id, s.text))
            quotes.append(Quote(s.session_id, s.text, s.started_at, s.project))
    return tuple(quotes)


_LOADED = LoadCall(True, "assumed")


def _loads_in_its_project() -> Callable[[InPlace], bool]:
    """Whether a rule's file loads in the project it is recorded for: one of the files
    learn.reduce.rules.rule_sources finds there (its own along its tree, the person's
    own): learn.reduce.rules.loads_in. A point said in notes-api and in
    shopfront, covered by shopfront's CLAUDE.md, is recorded as written in both
    (learn.reduce.in_place.record_written), and notes-api's "Did the rules work?"
    listed shopfront's line, which its agent never reads. A project or file not on this
    disk cannot be shown not to load: measured as before."""
    from pathlib import Path

    from learn.projects import as_folder
    from learn.reduce.rules import loaded_files, loads_in

    found: dict[str, set[str]] = {}

    def loads(rule: InPlace) -> bool:
        project = rule.project or ""
        folder, file = as_folder(project) if project else None, Path(rule.target_file).expanduser()
        if folder is None or not file.is_file():
            return True
        if project not in found:
            found[project] = loaded_files(folder)
        return loads_in(file, folder, loaded=found[project])

    return loads


def rule_outcomes(rules: Sequence[InPlace], said: Sequence[Said],
                  session_starts: Mapping[str, str | None], *,
                  proposals: Sequence[Proposal] = (), similar: Similar | None = None,
                  similarity: float = 0.8, min_since: int = MIN_SESSIONS_SINCE,
                  session_projects: Mapping[str, str | None] | None = None,
                  seen: Mapping[str, Seen] | None = None,
                  targets: Mapping[str, RuleTarget] | None = None,
                  checks: Mapping[str, CheckInPlace] | None = None) -> list[RuleOutcome]:
    """One outcome per rule (the newest write of a key wins), from this run's sessions.

    `session_starts` is every session read (id -> start), said or not: the
    sessions where a correction did *not* come back are the evidence a rule holds.
    `similar(anchor_texts, group_texts)` scores meaning (cosine, 0..1). With
    `session_projects`, a rule of one project counts only that project's sessions. A
    rule recorded for a project its file does not load in is not measured there
    (`_loads_in_its_project`).
    With `seen` (what each session shows) and `targets` (each rule's file, by key),
    only the sessions that loaded the rule count (learn.reduce.loaded); without,
    every session is taken to have loaded it. With `checks` (learn's check of a
    rule, by key), the outcome also counts the sessions since the check was put in
    place on an agent it runs for, and in how many the person said it again.
    """
    groups: dict[str, list[Said]] = {}
    for s in said:
        groups.setdefault(s.label, []).append(s)
    newest: dict[str, InPlace] = {}
    loads = _loads_in_its_project()
    for r in sorted(rules, key=lambda r: r.applied_at):
        if loads(r):
            newest[r.key] = r
    out: list[RuleOutcome] = []
    for rule in newest.values():
        labels = _matching_labels(rule, groups, proposals, similar, similarity)
        mine = {sid for sid in session_starts
                if session_projects is None or rule.project is None
                or session_projects.get(sid) == rule.project}
        hits = [s for label in labels for s in groups.get(label, ()) if s.session_id in mine]
        target = (targets or {}).get(rule.key)

        def call(sid: str, prior: bool, target: RuleTarget | None = target) -> LoadCall:
            if target is None or seen is None or sid not in seen:
                return _LOADED
            return load_call(target, seen[sid], prior=prior)

        before_all = {sid for sid in mine if started_before(session_starts[sid], rule.applied_at)}
        before_ids = {sid for sid in before_all if call(sid, True).loaded}
        since_calls = {sid: call(sid, False) for sid in mine - before_all}
        since_ids = {sid for sid, c in since_calls.items() if c.loaded}
        unloaded = {sid: c.why or "unrecorded" for sid, c in since_calls.items() if not c.loaded}
        said_ids = {s.session_id for s in hits}
        per_day: dict[str, int] = {}
        for s in hits:
            if s.started_at:
                per_day[s.started_at[:10]] = per_day.get(s.started_at[:10], 0) + 1
        said_since = len(said_ids & since_ids)
        why_not = None
        if unloaded and target is not None:
            whys: list[Why] = list(unloaded.values())
            touched = [f for sid in unloaded if seen and sid in seen for f in seen[sid].touched]
            providers = [seen[sid].provider for sid in unloaded if seen and sid in seen]
            found = not_loaded(target, whys, touched, providers)
            why_not = None if found is None else {
                "why": found.why, "sessions": found.sessions, "reason": found.reason,
                "fix": found.fix}
        how: dict[str, int] = {}
        for sid in since_ids:
            h = since_calls[sid].how
            how[h] = how.get(h, 0) + 1
        out.append(RuleOutcome(
            key=rule.key, rule_text=rule.rule_text, target_file=rule.target_file,
            applied_at=rule.applied_at, origin=rule.origin,
            sessions_before=len(before_ids), said_before=len(said_ids & before_ids),
            sessions_since=len(since_ids), said_since=said_since,
            quotes_since=_quotes([s for s in hits if s.session_id in since_ids]),
            per_day=tuple(sorted(per_day.items())),
            verdict=verdict_for(len(since_ids), said_since, min_since, unloaded=len(unloaded)),
            matched_labels=tuple(sorted(labels)),
            sessions_unloaded=len(unloaded), said_unloaded=len(said_ids & set(unloaded)),
            quotes_unloaded=_quotes([s for s in hits if s.session_id in unloaded]),
            not_loaded=why_not, loaded_how=tuple(sorted(how.items())),
            check=_check_json((checks or {}).get(rule.key), mine, session_starts, said_ids,
                              seen),
            project=rule.project,
        ))
    return out


def _check_json(check: CheckInPlace | None, mine: set[str],
                session_starts: Mapping[str, str | None], said_ids: set[str],
                seen: Mapping[str, Seen] | None) -> dict[str, Any] | None:
    """The check's state with the sessions since it was put in place (on an agent it
    runs for) and how many of them the person said the rule again in."""
    if check is None:
        return None
    since = {sid for sid in mine if check.installed_at
             and not started_before(session_starts[sid], check.installed_at)
             and (seen is None or sid not in seen or seen[sid].provider in check.agents)}
    return {**check.to_json(), "sessions_since": len(since), "said_since": len(said_ids & since)}


def outcome_from_json(data: Mapping[str, Any]) -> RuleOutcome:
    """Inverse of RuleOutcome.to_json (a stored run re-rendered)."""
    verdict = data.get("verdict")
    return RuleOutcome(
        key=str(data.get("key", "")), rule_text=str(data.get("rule", "")),
        target_file=str(data.get("file", "")), applied_at=str(data.get("applied_at", "")),
        origin=str(data.get("origin") or "apply"),
        sessions_before=int(data.get("sessions_before") or 0),
        said_before=int(data.get("said_before") or 0),
        sessions_since=int(data.get("sessions_since") or 0),
        said_since=int(data.get("said_since") or 0),
        quotes_since=tuple(Quote.from_json(q) for q in data.get("quotes_since") or ()
                           if isinstance(q, dict)),
        per_day=tuple((str(d), int(n)) for d, n in data.get("per_day") or ()),
        verdict=verdict if verdict in VERDICTS else "too-early",
        matched_labels=tuple(str(x) for x in data.get("matched_labels") or ()),
        escalation=_dict(data.get("escalation")),
        sessions_unloaded=int(data.get("sessions_unloaded") or 0),
        said_unloaded=int(data.get("said_unloaded") or 0),
        quotes_unloaded=tuple(Quote.from_json(q) for q in data.get("quotes_unloaded") or ()
                              if isinstance(q, dict)),
        not_loaded=_dict(data.get("not_loaded")),
        loaded_how=tuple(sorted((str(k), int(v)) for k, v in
                                (_dict(data.get("loaded_how")) or {}).items())),
        check=_dict(data.get("check")),
        project=data.get("project") if isinstance(data.get("project"), str) else None,
        check_offer=_dict(data.get("check_offer")),
        kept=_dict(data.get("kept")),
    )


def _dict(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


def similar_by(embedder: Any) -> tuple[Similar, float]:
    """A meaning score from `embedder` (the nearest pair's cosine) and the score at
    which a group is the rule's correction: the cut learn.reduce.onepoint uses (half
    naming's clustering distance: 0.68 with MiniLM). Naming's own cut (0.36) is made
    for a model to refine after it; here nothing does, and a false match would call
    a working rule "ignored". Measured with MiniLM against the outcomes scenario's
    git-push evidence: its rewordings 0.96, "never force push to main" 0.60, "use bun,
    not npm" 0.18."""
    import numpy as np

    from learn.reduce.cluster import threshold_for
    from learn.reduce.onepoint import SIMILARITY_FRACTION

    def score(anchor: Sequence[str], texts: Sequence[str]) -> float:
        a = np.asarray(embedder.embed(list(anchor)), dtype=np.float32)
        b = np.asarray(embedder.embed(list(texts)), dtype=np.float32)
        a /= np.linalg.norm(a, axis=1, keepdims=True) + 1e-9
        b /= np.linalg.norm(b, axis=1, keepdims=True) + 1e-9
        return float((a @ b.T).max())

    return score, 1.0 - SIMILARITY_FRACTION * threshold_for(embedder)
