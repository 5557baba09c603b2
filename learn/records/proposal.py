"""What the reduce stage hands to the surfaces: counted, judged proposals.

The JSON shape of `learn run --json` is `Proposal.to_json()`; the digest, the
HTML report and `learn apply` all read these.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from learn.projects import quote_projects
from learn.records.candidate import CandidateKind

# contradicts: a written rule says the opposite; the latest word wins (an edit of it).
CoverageStatus = Literal["new", "restated", "has-skill", "contradicts"]
Scope = Literal["user", "project"]


@dataclass(frozen=True, slots=True)
class Quote:
    session_id: str
    text: str
    at: str | None  # ISO 8601 time the quote was typed (else its session's last activity)
    project: str | None = None
    source: str = "miner"  # "miner" or the detector that produced it
    # The agent the session was with ("claude", "codex", "gemini", "copilot", "opencode").
    agent: str | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Quote:
        return cls(
            session_id=str(data.get("session_id", "")),
            text=str(data.get("text", "")),
            at=_opt_str(data.get("at")),
            project=_opt_str(data.get("project")),
            source=str(data.get("source") or "miner"),
            agent=_opt_str(data.get("agent")),
        )


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

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Verdict:
        scope = data.get("scope")
        return cls(
            accepted=bool(data.get("accepted", False)),
            summary=str(data.get("summary", "")),
            category=str(data.get("category", "")),
            # A stored scope we do not know is treated as the narrower one: a rule
            # wrongly kept to one project costs less than one wrongly made global.
            scope="user" if scope == "user" else "project",
            confidence=float(data.get("confidence") or 0.0),
            rationale=str(data.get("rationale") or ""),
            canonical_key=_opt_str(data.get("canonical_key")),
            model=_opt_str(data.get("model")),
            reused=bool(data.get("reused", False)),
        )


@dataclass(frozen=True, slots=True)
class Proposal:
    kind: CandidateKind
    label: str  # kebab-case slug; the grouping key
    text: str  # the representative quote (longest; offline: the sentence the quotes share)
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
    # Team runs only: distinct people who said it, and the names of those of them
    # who chose to be shown ([team] show_name); None / () on a personal run.
    people: int | None = None
    authors: tuple[str, ...] = ()
    # Where it is best written when not a line of CLAUDE.md / AGENTS.md (learn.report.
    # escalation, learn.report.pathscope): "permission" (settings.json deny rules in
    # surface_rules, Codex prefixes in surface_commands), "path-rule" (.claude/rules
    # file loaded only for the globs in surface_rules), "command"; None: a rule line.
    surface: str | None = None
    surface_rules: tuple[str, ...] = ()
    surface_commands: tuple[str, ...] = ()
    # permission: commands the enforcement must leave allowed (the rule prescribes
    # them, or the person ran them since): Codex checks them as `not_match` examples.
    surface_allowed: tuple[str, ...] = ()
    # A command's body: the instruction for the agent a model wrote from every quote
    # of the group (learn.reduce.commands); the quotes stay evidence, not the body.
    command_body: str | None = None
    # The command's one-line description, written with its body for the command list
    # (learn.reduce.commands); None: none written (an earlier learn, an escalated
    # procedure), and the command file takes the judge's summary, cut to 80 columns.
    command_description: str | None = None
    # The rule worded from the quote with no model to word it (an offline run:
    # learn.reduce.wording); a verdict's summary wins over it.
    worded: str | None = None
    # The agents it was said to, with the distinct sessions of each, most first: one
    # point said to Claude Code in 2 sessions and to Gemini CLI in 2 is one point in 4
    # (`sessions`), said to two agents. Empty where unknown (a team run, an old run).
    agents: tuple[tuple[str, int], ...] = ()

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.label}"

    @property
    def rule_text(self) -> str:
        """The rule as it would be written: the judge's wording, else the offline
        wording of the quote, else the quote itself."""
        if self.verdict is not None and self.verdict.summary.strip():
            return self.verdict.summary
        return self.worded or self.text

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Proposal:
        """Inverse of `to_json`, tolerant of missing keys (older stored runs) and
        reading the optional keys `to_json` does not write yet, should they appear."""
        kind = data.get("kind")
        status = data.get("status")
        verdict = data.get("verdict")
        return cls(
            kind=kind if kind in ("directive", "fix", "request") else "directive",
            label=str(data.get("label", "")),
            text=str(data.get("text", "")),
            sessions=int(data.get("sessions") or 0),
            count=int(data.get("count") or 0),
            last_seen=_opt_str(data.get("last_seen")),
            quotes=tuple(Quote.from_json(q) for q in data.get("quotes") or () if isinstance(q, dict)),
            status=status if status in ("new", "restated", "has-skill", "contradicts") else "new",
            existing_rule=_opt_str(data.get("existing_rule")),
            existing_rule_file=_opt_str(data.get("existing_rule_file")),
            rationale=_opt_str(data.get("rationale")),
            command=_opt_str(data.get("command")),
            error_excerpt=_opt_str(data.get("error_excerpt")),
            intervening_commands=tuple(str(c) for c in data.get("intervening_commands") or ()),
            edited_files=tuple(str(f) for f in data.get("edited_files") or ()),
            verdict=Verdict.from_json(verdict) if isinstance(verdict, dict) else None,
            people=int(data["people"]) if data.get("people") is not None else None,
            authors=tuple(str(a) for a in data.get("authors") or ()),
            surface=_opt_str(data.get("surface")),
            surface_rules=tuple(str(r) for r in data.get("surface_rules") or ()),
            surface_commands=tuple(str(r) for r in data.get("surface_commands") or ()),
            surface_allowed=tuple(str(r) for r in data.get("surface_allowed") or ()),
            command_body=_opt_str(data.get("command_body")),
            command_description=_opt_str(data.get("command_description")),
            worded=_opt_str(data.get("rule")),
            agents=agents_from_json(data.get("agents")),
        )

    def to_json(self) -> dict[str, Any]:
        v = self.verdict
        out: dict[str, Any] = {
            "kind": self.kind,
            "label": self.label,
            "text": self.text,
            "sessions": self.sessions,
            "count": self.count,
            "last_seen": self.last_seen,
            "status": self.status,
            "existing_rule": self.existing_rule,
            "quotes": [{"session_id": q.session_id, "text": q.text, "at": q.at, "agent": q.agent}
                       for q in self.quotes],
            "agents": dict(self.agents),
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
        # Where it was said (project roots): a project rule belongs to that project,
        # and `learn apply` asks which when there are several.
        projects = quote_projects(self.quotes)
        out["projects"] = projects
        out["project"] = projects[0] if len(projects) == 1 else None
        if self.surface is not None:
            out["surface"] = self.surface
            out["surface_rules"] = list(self.surface_rules)
            out["surface_commands"] = list(self.surface_commands)
            out["surface_allowed"] = list(self.surface_allowed)
        if self.command_body is not None:
            out["command_body"] = self.command_body
        if self.command_description is not None:
            out["command_description"] = self.command_description
        if self.people is not None:  # a team run's proposal
            out["people"] = self.people
            out["authors"] = list(self.authors)
        if self.worded is not None:  # worded without a model (offline)
            out["rule"] = self.worded
        return out


def rank_key(p: Proposal) -> tuple[int, int, str, str]:
    """How proposals are ranked wherever they are listed: most sessions first, then most
    occurrences, then label (learn.reduce.counting ranks a run's points by it, and the
    store lists a run's rows by it: one order, so the digest shows what the run printed)."""
    return (-p.sessions, -p.count, p.label, p.kind)


def agents_from_json(value: object) -> tuple[tuple[str, int], ...]:
    """`Proposal.agents` from its JSON: {agent: sessions} (to_json) or [[agent, n], ...]
    (the stored form), most sessions first."""
    pairs = value.items() if isinstance(value, dict) else value if isinstance(value, list) else ()
    out = [(str(a), int(n)) for a, n in pairs if isinstance(n, int | float)]
    return tuple(sorted(out, key=lambda an: (-an[1], an[0])))


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

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Funnel:
        return cls(**{name: int(data.get(name) or 0) for name in _FUNNEL_FIELDS})


_FUNNEL_FIELDS = ("candidates", "points", "over_threshold", "shown", "held_back", "cut",
                  "below_threshold")


@dataclass(frozen=True, slots=True)
class RunUsage:
    sessions_seen: int = 0
    sessions_mined: int = 0
    sessions_cached: int = 0
    sessions_failed: int = 0
    model_calls: int = 0  # every call sent, failed ones included (they are billed)
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    failed_calls: int = 0  # of model_calls, those that failed for good

    def to_json(self) -> dict[str, Any]:
        return {
            "sessions_seen": self.sessions_seen,
            "sessions_mined": self.sessions_mined,
            "sessions_cached": self.sessions_cached,
            "sessions_failed": self.sessions_failed,
            "model_calls": self.model_calls,
            "failed_calls": self.failed_calls,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost_usd": round(self.cost_usd, 6),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunUsage:
        ints = ("sessions_seen", "sessions_mined", "sessions_cached", "sessions_failed",
                "model_calls", "input_tokens", "output_tokens", "failed_calls")
        return cls(**{name: int(data.get(name) or 0) for name in ints},
                   cost_usd=float(data.get("cost_usd") or 0.0))


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
    # Steps that still failed after retries ("mine", "name", "coverage",
    # "judge"): the run exits 1 and says which.
    failed_stages: tuple[str, ...] = ()
    # Verification's tally: "kept" and the drops per reason.
    verification: dict[str, int] = field(default_factory=dict)

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
            "failed_stages": list(self.failed_stages),
            "verification": dict(self.verification),
            # Long prompts pasted by hand into many sessions (transcripts.scripted).
            "make_command": list(self.extra.get("make_command") or ()),
            # Proposed by earlier runs and not decided yet (not repeated above).
            "pending": list(self.extra.get("pending") or ()),
            # Sessions a program started, not mined (transcripts.origin).
            "programmatic_set_aside": int(self.extra.get("programmatic_set_aside") or 0),
            # Each rule in place: sessions before / since, verdict (learn.reduce.outcomes).
            "outcomes": list(self.extra.get("outcomes") or ()),
            # Sessions read per agent (Claude Code, Codex, Gemini CLI, Copilot CLI, OpenCode).
            "agents": dict(self.extra.get("agents") or {}),
            # Files discovery left out, by reason ("unreadable", "too_old", ...: the reasons
            # `learn sessions --json` gives each file under "skipped").
            "skipped": dict(self.extra.get("skipped") or {}),
            # Lines of the sessions read that could not be read, and in how many sessions.
            "skipped_lines": _count(self.extra.get("skipped_lines")),
            "sessions_with_skipped_lines": _count(self.extra.get("sessions_with_skipped_lines")),
            # The sessions read that the counts leave out: nothing typed to count, by why
            # ("repeated": only a prompt repeated across sessions, "none": none typed;
            # null: a run stored before they were recorded), and those waiting in a
            # Message Batch. With usage's mined, cached and failed they add up to
            # sessions_seen, as the digest's totals do.
            "nothing_typed": nothing_typed(self),
            "in_batch": _count(self.extra.get("in_batch")),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunResult:
        """Rebuild a stored run so it can be re-rendered without a model call."""
        window = data.get("window") or {}
        funnel = dict(data.get("funnel") or {})
        # `held_back` and `cut` are also written at the top level; prefer the funnel's.
        for name in ("held_back", "cut"):
            funnel.setdefault(name, data.get(name) or 0)
        return cls(
            proposals=tuple(Proposal.from_json(p) for p in data.get("proposals") or ()
                            if isinstance(p, dict)),
            funnel=Funnel.from_json(funnel),
            usage=RunUsage.from_json(data.get("usage") or {}),
            window_start=_opt_str(window.get("start")),
            window_end=_opt_str(window.get("end")),
            projects=tuple(str(p) for p in data.get("projects") or ()),
            failures=tuple(str(f) for f in data.get("failures") or ()),
            coverage_failed=bool(data.get("coverage_failed", False)),
            offline=bool(data.get("offline", False)),
            extra={**dict(data.get("extra") or {}),
                   "make_command": list(data.get("make_command") or ()),
                   "pending": list(data.get("pending") or ()),
                   "programmatic_set_aside": int(data.get("programmatic_set_aside") or 0),
                   "outcomes": list(data.get("outcomes") or ()),
                   "skipped": {str(k): int(v) for k, v in (data.get("skipped") or {}).items()
                               if isinstance(v, int)},
                   "skipped_lines": _count(data.get("skipped_lines")),
                   "sessions_with_skipped_lines": _count(data.get("sessions_with_skipped_lines")),
                   "in_batch": _count(data.get("in_batch")),
                   # Left out when not recorded (a run's JSON from before it was): the
                   # digest then says only how many.
                   **({"nothing_typed": why} if (why := _why_nothing_typed(
                       data.get("nothing_typed"))) is not None else {})},
            failed_stages=tuple(str(x) for x in data.get("failed_stages") or ()),
            verification={str(k): int(v) for k, v in (data.get("verification") or {}).items()
                          if isinstance(v, int)},
        )


def nothing_typed(result: RunResult) -> dict[str, int] | None:
    """The sessions `result` read with nothing typed to count, by why: "repeated" (every
    typed turn a prompt repeated across sessions, or a template's text), "none" (none
    typed); None for a run stored before these were recorded (learn.pipeline.judge)."""
    return _why_nothing_typed(result.extra.get("nothing_typed"))


def _why_nothing_typed(value: Any) -> dict[str, int] | None:
    if not isinstance(value, dict):
        return None
    return {"repeated": _count(value.get("repeated")), "none": _count(value.get("none"))}


def _count(value: Any) -> int:
    """A stored count as an int: 0 for anything else (a run stored before it had one)."""
    return value if type(value) is int and value >= 0 else 0


def _opt_str(value: Any) -> str | None:
    return None if value is None else str(value)
