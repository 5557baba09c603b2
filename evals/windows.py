"""Negative windows: how often the miner reports something where nobody corrected anything.

`sample_windows` (learn/detect/sampling.py) draws, per session, completed agent
turns away from any known positive. The person's next turn after such a turn
is a reply in which, by the gold, they corrected nothing (windows whose next
turn holds a gold quote are skipped: that turn is a positive). A verified
candidate located in one of those replies is the miner reporting noise as a
correction. The metric is the share of sampled windows with such a report.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from evals.gold import Gold
from evals.metrics import Occurrence
from learn.textfold import fold as norm

PER_SESSION = 8
PREVIEW_CHARS = 4000  # whole turns: a quote is looked up inside the reply


def transcript_files(root: Path) -> list[Path]:
    """The main session files of a built corpus (not subagent files)."""
    return sorted(p for p in root.rglob("*.jsonl") if "subagents" not in p.parts)


def negative_replies(paths: Iterable[Path], gold: Gold, *, seed: int = 0,
                     per_session: int = PER_SESSION) -> list[tuple[str, str]]:
    """(session id, the person's reply after a sampled agent turn) per negative window."""
    from learn.detect.sampling import sample_windows

    positives = [norm(q.text) for q in gold.quotes if q.kind != "fix"]
    out: list[tuple[str, str]] = []
    for path in paths:
        windows = sample_windows(path.read_bytes(), n=per_session, seed=seed, preview_chars=PREVIEW_CHARS)
        for window in windows:
            reply = next((t for t in window.after if t.role == "user"), None)
            if reply is None:
                continue
            text = norm(reply.preview)
            if any(p and p in text for p in positives):
                continue  # the person did correct something here: not a negative
            out.append((window.anchor.session_id, text))
    return out


def reported_share(replies: Sequence[tuple[str, str]], verified: Sequence[Occurrence]) -> float:
    """Share of negative replies from which a verified (non-fix) candidate was reported."""
    if not replies:
        return 0.0
    hits = 0
    for session, text in replies:
        if any(o.session == session and o.kind != "fix" and _in(o.text, text) for o in verified):
            hits += 1
    return round(hits / len(replies), 4)


def _in(quote: str, reply: str) -> bool:
    parts = [p for p in (norm(x) for x in quote.replace("...", "…").split("…")) if p]
    return bool(parts) and all(p in reply for p in parts)
