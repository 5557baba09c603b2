"""What sits at the edges of a quote cut from a typed turn (learn.mining.verify).

Every word of a cut can be the person's and the cut still not be what they said: a
negation right before it says the opposite, and a quotation mark whose pair lies
outside it shows half a quotation. Verification's anchoring finds where a quote
sits; these decide what its edges may cut through.
"""

from __future__ import annotations

from typing import Final

from learn.textfold import BRACKET_QUOTES, QUOTE_CHARS
from learn.textunits import is_unspaced

# A negation the quote would start right after: "use npm in this repo" cut from "don't
# use npm in this repo" is every word the person's and the opposite of what they said,
# and it was kept, shown in quotation marks as theirs, and handed to the judge (a model
# steered by the session can cut there on purpose). A word of its own, folded (one
# apostrophe, lower case), with nothing but a space before the quote: "no, use bun" and
# "not now. use bun" are not cut from a negation. The scripts written without spaces
# put their negation right before the verb (别用mock, 不要用npm).
_NEGATIONS: Final = frozenset([
    "never", "not", "no", "nor", "neither", "don't", "dont", "doesn't", "doesnt", "didn't",
    "didnt", "isn't", "isnt", "aren't", "wasn't", "won't", "wont", "wouldn't", "shouldn't",
    "shouldnt", "can't", "cant", "cannot", "mustn't", "mustnt", "stop", "avoid", "without",
    "nicht", "nie", "niemals", "kein", "keine", "keinen", "ne", "pas", "jamais", "nunca",
    "não", "nao", "non", "mai", "niet", "nooit", "не", "нельзя", "никогда",
])
_UNSPACED_NEGATIONS: Final = frozenset([*"不别別勿没沒莫未无無非", "不要", "不准", "不许", "不許",
                                         "不能", "不可", "不用", "不得", "没有", "沒有", "别再",
                                         "別再", "请勿", "請勿", "切勿"])


def negated(hay: str, at: int) -> bool:
    """Whether a quote starting at `at` in `hay` would start right after a negation."""
    if at > 0 and is_unspaced(hay[at]) and (hay[at - 1] in _UNSPACED_NEGATIONS
                                            or hay[max(0, at - 2):at] in _UNSPACED_NEGATIONS):
        return True
    if at < 2 or hay[at - 1] != " ":
        return False
    # The word before the space, read backwards: a search from the text's start for
    # it read the whole message again for every place a quote was found.
    end = start = at - 1
    while start > 0 and (hay[start - 1].isalnum() or hay[start - 1] in "_'"):
        start -= 1
    return start < end and hay[start:end] in _NEGATIONS


def _is_mark(text: str, i: int) -> bool:
    """A quotation mark at `i`, not an apostrophe inside a word (don't)."""
    if not 0 <= i < len(text) or text[i] not in QUOTE_CHARS:
        return False
    if text[i] in BRACKET_QUOTES:
        return True
    inside = 0 < i < len(text) - 1 and text[i - 1].isalnum() and text[i + 1].isalnum()
    return not inside


def balanced(text: str, lo: int, hi: int) -> str:
    """text[lo:hi], widened by one mark when the span holds half a pair of quotation
    marks: a model that dropped the opening mark of `"bun install" is the way`
    would otherwise be shown `bun install" is the way`."""
    if sum(1 for i in range(lo, hi) if _is_mark(text, i)) % 2:
        if _is_mark(text, lo - 1):
            lo -= 1
        elif _is_mark(text, hi):
            hi += 1
    return text[lo:hi]
