"""What the reduce stage hands to the surfaces: counted, judged proposals.

The JSON shape of `learn run --json` is `Proposal.to_json()`; the digest, the
HTML report and `learn apply` all read these.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from learn.mining.candidate import CandidateKind

CoverageStatus = Literal["new", "restated", "has-skill"]
Scope = Literal["user", "project"]


@dataclass(frozen=True, slots=True)
class Quote:
    session_id: str
    text: str
    at: str | None  # ISO 8601 activity time of the session the quote came from
    project: str | None = None
    source: str = "miner"  # "miner" or the detector that produced it


@dataclass(frozen=True, slots=True)
class Verdict:
    accepted: bool
    summary: str  # the rule as it would be written
    category: str
    scope: Scope
    confidence: float
    rationale: str = ""
    canonical_key: str | None = None
    model: str | None = None
    reused: bool = False  # taken from a near-identical judged proposal, no model call


@dataclass(frozen=True, slots=True)
class Proposal:
    kind: CandidateKind
    label: str  # kebab-case slug; the grouping key
    text: str  # the representative quote (longest)
    sessions: int  # distinct sessions
    count: int  # occurrences
    last_seen: str | None  # newest activity of those sessions, ISO 8601
    quotes: tuple[Quote, ...]
    status: CoverageStatus = "new"
    existing_rule: str | None = None  # the rule line (restated) or skill name (has-skill)
    existing_rule_file: str | None = None
    rationale: str | None = None
    command: str | None = None
    error_excerpt: str | None = None
    intervening_commands: tuple[str, ...] = ()
    edited_files: tuple[str, ...] = ()
    verdict: Verdict | None = None

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.label}"

    def to_json(self) -> dict[str, Any]:
        v = self.verdict
        return {
            "kind": self.kind,
            "label": self.label,
            "text": self.text,
            "sessions": self.sessions,
            "count": self.count,
            "last_seen": self.last_seen,
            "status": self.status,
            "existing_rule": self.existing_rule,
            "quotes": [{"session_id": q.session_id, "text": q.text, "at": q.at} for q in self.quotes],
            "command": self.command,
            "error_excerpt": self.error_excerpt,
            "verdict": None
            if v is None
            else {
                "accepted": v.accepted,
                "summary": v.summary,
                "category": v.category,
                "scope": v.scope,
                "confidence": v.confidence,
            },
        }


@dataclass(frozen=True, slots=True)
class Funnel:
    candidates: int = 0  # verified occurrences
    points: int = 0  # groups at threshold 1
    over_threshold: int = 0
    shown: int = 0
    held_back: int = 0  # suppressed: shown before and not said again since
    cut: int = 0  # over the per-kind cap
    below_threshold: int = 0

    def to_json(self) -> dict[str, int]:
        return {
            "candidates": self.candidates,
            "points": self.points,
            "over_threshold": self.over_threshold,
            "below_threshold": self.below_threshold,
            "shown": self.shown,
            "held_back": self.held_back,
            "cut": self.cut,
        }


@dataclass(frozen=True, slots=True)
class RunUsage:
    sessions_seen: int = 0
    sessions_mined: int = 0
    sessions_cached: int = 0
    sessions_failed: int = 0
    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "sessions_seen": self.sessions_seen,
            "sessions_mined": self.sessions_mined,
            "sessions_cached": self.sessions_cached,
            "sessions_failed": self.sessions_failed,
            "model_calls": self.model_calls,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost_usd": round(self.cost_usd, 6),
        }


@dataclass(frozen=True, slots=True)
class RunResult:
    proposals: tuple[Proposal, ...]
    funnel: Funnel
    usage: RunUsage
    window_start: str | None = None
    window_end: str | None = None
    projects: tuple[str, ...] = ()
    failures: tuple[str, ...] = ()  # one line per failed session / stage
    coverage_failed: bool = False
    offline: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "proposals": [p.to_json() for p in self.proposals],
            "funnel": self.funnel.to_json(),
            "held_back": self.funnel.held_back,
            "cut": self.funnel.cut,
            "usage": self.usage.to_json(),
            "window": {"start": self.window_start, "end": self.window_end},
            "failures": list(self.failures),
            "coverage_failed": self.coverage_failed,
            "offline": self.offline,
        }
