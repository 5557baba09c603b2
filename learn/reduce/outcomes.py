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

The verdict:
- *ignored*: said again in at least one session that started after the rule was
  in place (the quotes are shown: they are verified, so one is evidence);
- *holding*: not said since, over at least MIN_SESSIONS_SINCE sessions;
- *too early to tell*: not said since, over fewer sessions.

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

OutcomeVerdict = Literal["holding", "ignored", "too-early"]
MIN_SESSIONS_SINCE = 5

VERDICT_WORDS: dict[str, str] = {
    "holding": "holding",
    "ignored": "ignored",
    "too-early": "too early to tell",
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

    @property
    def label(self) -> str:
        return self.key.split(":", 1)[-1]

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key, "label": self.label, "rule": self.rule_text,
            "file": self.target_file, "applied_at": self.applied_at, "origin": self.origin,
            "sessions_before": self.sessions_before, "said_before": self.said_before,
            "sessions_since": self.sessions_since, "said_since": self.said_since,
            "quotes_since": [{"session_id": q.session_id, "text": q.text, "at": q.at,
                              "project": q.project} for q in self.quotes_since],
            "per_day": [list(x) for x in self.per_day], "verdict": self.verdict,
            "matched_labels": list(self.matched_labels),
            "escalation": self.escalation,
        }


def verdict_for(sessions_since: int, said_since: int,
                min_since: int = MIN_SESSIONS_SINCE) -> OutcomeVerdict:
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


def _before(a: str | None, b: str) -> bool:
    from learn.isotime import parse_iso

    when, cut = parse_iso(a), parse_iso(b)
    if when is None or cut is None:
        return True  # undated: it cannot be shown to be since, so it is not
    return when < cut


def rule_outcomes(rules: Sequence[InPlace], said: Sequence[Said],
                  session_starts: Mapping[str, str | None], *,
                  proposals: Sequence[Proposal] = (), similar: Similar | None = None,
                  similarity: float = 0.8, min_since: int = MIN_SESSIONS_SINCE,
                  session_projects: Mapping[str, str | None] | None = None) -> list[RuleOutcome]:
    """One outcome per rule (the newest write of a key wins), from this run's sessions.

    `session_starts` is every session read (id -> start), said or not: the
    sessions where a correction did *not* come back are the evidence a rule holds.
    `similar(anchor_texts, group_texts)` scores meaning (cosine, 0..1). With
    `session_projects`, a rule of one project counts only that project's sessions.
    """
    groups: dict[str, list[Said]] = {}
    for s in said:
        groups.setdefault(s.label, []).append(s)
    newest: dict[str, InPlace] = {}
    for r in sorted(rules, key=lambda r: r.applied_at):
        newest[r.key] = r
    out: list[RuleOutcome] = []
    for rule in newest.values():
        labels = _matching_labels(rule, groups, proposals, similar, similarity)
        mine = {sid for sid in session_starts
                if session_projects is None or rule.project is None
                or session_projects.get(sid) == rule.project}
        hits = [s for label in labels for s in groups.get(label, ()) if s.session_id in mine]
        before_ids = {sid for sid in mine if _before(session_starts[sid], rule.applied_at)}
        since_ids = mine - before_ids
        said_ids = {s.session_id for s in hits}
        since_hits = [s for s in hits if s.session_id in since_ids]
        quotes: list[Quote] = []
        seen: set[tuple[str, str]] = set()
        for s in sorted(since_hits, key=lambda s: s.started_at or ""):
            if (s.session_id, s.text) not in seen:
                seen.add((s.session_id, s.text))
                quotes.append(Quote(s.session_id, s.text, s.started_at, s.project))
        per_day: dict[str, int] = {}
        for s in hits:
            if s.started_at:
                per_day[s.started_at[:10]] = per_day.get(s.started_at[:10], 0) + 1
        said_since = len(said_ids & since_ids)
        out.append(RuleOutcome(
            key=rule.key, rule_text=rule.rule_text, target_file=rule.target_file,
            applied_at=rule.applied_at, origin=rule.origin,
            sessions_before=len(before_ids), said_before=len(said_ids & before_ids),
            sessions_since=len(since_ids), said_since=said_since, quotes_since=tuple(quotes),
            per_day=tuple(sorted(per_day.items())),
            verdict=verdict_for(len(since_ids), said_since, min_since),
            matched_labels=tuple(sorted(labels)),
        ))
    return out


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
        verdict=verdict if verdict in ("holding", "ignored", "too-early") else "too-early",
        matched_labels=tuple(str(x) for x in data.get("matched_labels") or ()),
        escalation=data.get("escalation") if isinstance(data.get("escalation"), dict) else None,
    )


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
