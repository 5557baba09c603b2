"""Gold annotations written alongside a corpus, as the corpus script runs.

A corpus script says what the person typed through a `Gold` recorder, so the
annotation cannot drift from the transcript: the quote in the gold file is the
same string the builder wrote. The gold also lists what a careful but imperfect
model would report by mistake (`mistakes`): paraphrased quotes and lines lifted
from tool output. The replay fixtures are recorded from it, so the offline eval
exercises verification and fallbacks instead of a model that never errs.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

Kind = Literal["directive", "fix", "request"]


@dataclass
class GoldQuote:
    session: str  # session id
    text: str
    kind: Kind
    group: str  # the gold label
    command: str | None = None  # fix: the command that failed then passed
    error_excerpt: str | None = None


@dataclass
class Mistake:
    """Something the imperfect model reports although it should not survive."""

    session: str
    text: str
    kind: Kind
    why: Literal["paraphrase", "tool-output", "assistant-prose", "replayed-template", "never-failed"]
    # A fix mistake: the command the model says failed (it ran and never failed).
    command: str | None = None
    error_excerpt: str | None = None


@dataclass
class GoldGroup:
    kind: Kind
    proposed: bool  # should be a proposal at the default thresholds
    sessions: int  # distinct sessions it was said in (as verified quotes)
    summary: str  # the rule as it would be written
    scope: Literal["user", "project"] = "project"
    accepted: bool = True
    coverage: Literal["new", "restated", "has-skill", "contradicts"] = "new"
    category: str = "workflow"
    decoy_of: str | None = None  # a look-alike group it must not merge with
    # The language the person said it in (BCP 47, "zh-en" for code-switched
    # Chinese + English); a corpus that sets it gets a table per language.
    language: str | None = None
    # A request's command body as a careful model writes it from all the quotes
    # (None: the oracle writes one from the summary).
    command: str | None = None
    # Every quote is a fragment of a message that limits it ("..., but only for
    # this migration"): the judge reads the message in full (`said in full:`) and
    # must reject it; `judge.limited_accepted` counts the ones it accepted.
    limited: bool = False


@dataclass
class Gold:
    corpus: str
    quotes: list[GoldQuote] = field(default_factory=list)
    mistakes: list[Mistake] = field(default_factory=list)
    groups: dict[str, GoldGroup] = field(default_factory=dict)
    # Text that must never appear in a proposal (replayed bodies, tool output,
    # compaction summaries, sidechain prompts, relays, pasted digests).
    traps: list[str] = field(default_factory=list)
    secrets: list[str] = field(default_factory=list)
    malformed_sessions: list[str] = field(default_factory=list)  # miner answers malformed
    # Quotes the imperfect namer leaves out of its answer, so their labels must
    # come from the per-item fallback (nearest labelled neighbour or cluster).
    naming_omit: list[str] = field(default_factory=list)
    # What the noisy model's `distractor` fault reports besides what it reads in
    # the chunk: text the model saw but the person never typed (the assistant's
    # own rule-like prose). The oracle never reports these (the recordings in
    # cache/ are unchanged by them).
    distractors: list[Mistake] = field(default_factory=list)

    def group(self, name: str, kind: Kind, summary: str, **kw: Any) -> str:
        self.groups[name] = GoldGroup(kind=kind, proposed=False, sessions=0, summary=summary, **kw)
        return name

    def said(self, session: str, text: str, group: str, *, command: str | None = None,
             error_excerpt: str | None = None) -> str:
        kind = self.groups[group].kind
        self.quotes.append(GoldQuote(session, text, kind, group, command, error_excerpt))
        return text

    def finish(self, thresholds: dict[str, int] | None = None) -> None:
        """Fill in distinct-session counts and which groups should be proposed."""
        thresholds = thresholds or {"directive": 2, "fix": 2, "request": 3}
        for name, group in self.groups.items():
            sessions = {q.session for q in self.quotes if q.group == name}
            group.sessions = len(sessions)
            group.proposed = group.sessions >= thresholds[group.kind]

    def write(self, path: Path) -> None:
        data = {
            "corpus": self.corpus,
            "groups": {k: asdict(v) for k, v in sorted(self.groups.items())},
            "quotes": [asdict(q) for q in self.quotes],
            "mistakes": [asdict(m) for m in self.mistakes],
            "traps": self.traps,
            "secrets": self.secrets,
            "malformed_sessions": self.malformed_sessions,
            "naming_omit": self.naming_omit,
            "distractors": [asdict(m) for m in self.distractors],
        }
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")

    @classmethod
    def read(cls, path: Path) -> Gold:
        data = json.loads(path.read_text(encoding="utf-8"))
        gold = cls(corpus=data["corpus"])
        gold.groups = {k: GoldGroup(**v) for k, v in data["groups"].items()}
        gold.quotes = [GoldQuote(**q) for q in data["quotes"]]
        gold.mistakes = [Mistake(**m) for m in data["mistakes"]]
        gold.traps = list(data["traps"])
        gold.secrets = list(data["secrets"])
        gold.malformed_sessions = list(data.get("malformed_sessions", []))
        gold.naming_omit = list(data.get("naming_omit", []))
        gold.distractors = [Mistake(**m) for m in data.get("distractors", [])]
        return gold
