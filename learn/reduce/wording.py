"""A rule worded from the person's quote, for a run with no model to word it.

Offline, nothing judges a proposal, and its rule text was the raw quote ("no,
we're on bun now, not npm. thanks"), written into CLAUDE.md as it was said.
The wording here changes no word of the instruction: it drops what only
addresses the agent in the moment (a leading "no," / "ok so" / "please", a
question's "can you", a closing "thanks"), starts it with a capital and ends it
as a sentence. What is left is still the person's words, so a reviewer can
match it to the quote at a glance; the judge's summary replaces it whenever a
model runs.
"""

from __future__ import annotations

import re
from typing import Final

# Said to the agent, not part of the instruction: dropped only where followed by
# a comma or the like ("no, use bun"), never as a word of it ("no mocks").
_INTERJECTION: Final = re.compile(
    r"^(?:(?:no|nope|nah|ok(?:ay)?|hey|so|well|sorry|hmm+|um+|uh+|wait|again|actually|"
    r"also|oh)\s*[,.!:;–—-]+\s*|(?:ok(?:ay)?|and|but)\s+so\s+)+", re.IGNORECASE)
# Asked rather than told: the request is the rest.
_ASKED: Final = re.compile(
    r"^(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?|you\s+(?:should|must|need\s+to|"
    r"have\s+to)\s+|please\s+|pls\s+|i\s+(?:want|need)\s+you\s+to\s+)", re.IGNORECASE)
_THANKS: Final = re.compile(r"[\s,.;!]*(?:thanks|thank\s+you|thx|ty|please|pls)[\s.!]*$",
                            re.IGNORECASE)
_ENDS: Final = ".!?。！？"
_CJK: Final = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def rule_from_quote(text: str) -> str:
    """`text` as a rule line: the person's words, addressed to no one, as a sentence."""
    words = " ".join(text.split()).strip(" \"'`“”‘’")
    for pattern in (_INTERJECTION, _ASKED):
        words = pattern.sub("", words, count=1)
    words = _THANKS.sub("", words).strip()
    if not words:
        return " ".join(text.split())
    words = words[0].upper() + words[1:]
    if words[-1] == "?":
        words = words[:-1].rstrip()
    if words[-1] not in _ENDS:
        words += "。" if _CJK.search(words) else "."
    return words
