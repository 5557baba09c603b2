"""How often a correction comes back per session, with its uncertainty.

A rule's outcome is a proportion: of the sessions where the rule was loaded, in
how many did the person have to say it again? Before the rule, the same over the
sessions where it would have loaded. A count of 1 in 3 says little, and the
report must say so rather than print "33%".

The interval is Wilson's score interval (95%): unlike the textbook p ± 1.96·se
it stays inside [0, 1] and is not zero-width at 0 of n, which is exactly the
case that matters here ("not said again in 4 sessions" is 0% with an upper
bound of 49%, not 0% ± 0). The change is Newcombe's hybrid score interval for a
difference of two proportions (method 10), built from the two Wilson intervals,
so it is as honest at small counts.

FEW_SESSIONS: below this many sessions on either side, the change is reported
as "too few sessions" whatever the intervals say: with 6 sessions the Wilson
interval of a 1-in-3 correction still spans 10-70%.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

Z95 = 1.959963984540054
FEW_SESSIONS = 8

Change = Literal["fewer", "more", "unclear", "few-sessions", "no-data"]


@dataclass(frozen=True, slots=True)
class Rate:
    """`said` of `sessions`, with a 95% Wilson interval."""

    said: int
    sessions: int

    @property
    def value(self) -> float | None:
        return self.said / self.sessions if self.sessions else None

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.said, self.sessions)

    def to_json(self) -> dict[str, Any]:
        low, high = self.interval
        value = self.value
        return {"said": self.said, "sessions": self.sessions,
                "rate": None if value is None else round(value, 4),
                "low": round(low, 4), "high": round(high, 4)}


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of k successes in n trials; (0, 1) when n is 0."""
    if n <= 0:
        return 0.0, 1.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def difference(since: Rate, before: Rate, z: float = Z95) -> tuple[float, float]:
    """Newcombe's interval for rate(since) - rate(before)."""
    p1 = since.value if since.value is not None else 0.0
    p2 = before.value if before.value is not None else 0.0
    l1, u1 = wilson(since.said, since.sessions, z)
    l2, u2 = wilson(before.said, before.sessions, z)
    d = p1 - p2
    low = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return max(-1.0, low), min(1.0, high)


def change(since: Rate, before: Rate, few: int = FEW_SESSIONS) -> Change:
    """What the two rates say, said plainly: fewer / more corrections since (the
    whole interval of the difference on one side of 0), unclear, too few
    sessions on a side, or no sessions at all on one."""
    if not since.sessions or not before.sessions:
        return "no-data"
    if since.sessions < few or before.sessions < few:
        return "few-sessions"
    low, high = difference(since, before)
    if high < 0:
        return "fewer"
    if low > 0:
        return "more"
    return "unclear"


def percent(x: float) -> str:
    return f"{round(100 * x)}%"


def rate_words(r: Rate) -> str:
    """'said in 1 of 6 sessions (17%, 95% interval 3-56%)'; 'no sessions' when none."""
    if not r.sessions:
        return "no sessions"
    low, high = r.interval
    value = r.value or 0.0
    noun = "session" if r.sessions == 1 else "sessions"
    return (f"said in {r.said} of {r.sessions} {noun} ({percent(value)}, 95% interval "
            f"{round(100 * low)}-{percent(high)})")


CHANGE_WORDS: dict[Change, str] = {
    "fewer": "said less often since the rule (the 95% interval of the change is below zero)",
    "more": "said more often since the rule (the 95% interval of the change is above zero)",
    "unclear": "no clear change: the 95% interval of the change spans zero",
    "few-sessions": (f"too few sessions to tell a change (fewer than {FEW_SESSIONS} on a side); "
                     "the intervals are wide"),
    "no-data": "no sessions on one side yet",
}
