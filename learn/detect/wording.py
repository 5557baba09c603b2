"""Words that move a score, in the languages people correct their agents in.

These lists only ever adjust a confidence; they never decide whether a shape
counts. The shape is the gate (a person declined the plan dialog and typed a
reason; a person denied a tool call and typed why), because a word list gates
out everyone who does not write its language: with an English list as the
gate, a Chinese or German plan rejection scored 0 and was hidden (issue 19).

Each list holds English, Chinese, Japanese, Korean, German, Spanish,
Portuguese and Russian. Latin and Cyrillic entries match on word boundaries;
Chinese, Japanese and Korean entries match anywhere, since unspaced text has
no boundaries to demand and Korean particles attach to the word.
"""

from __future__ import annotations

import re
from typing import Final


def _pattern(bounded: str, anywhere: str) -> re.Pattern[str]:
    return re.compile(rf"\b(?:{bounded})\b|(?:{anywhere})", re.IGNORECASE)


# Words that reject or redirect what they answer.
REJECTING_RE: Final = _pattern(
    # English
    r"no|not|nope|don'?t|do not|doesn'?t|isn'?t|aren'?t|won'?t|can'?t|never|stop|"
    r"instead|rather|wrong|incorrect|change|remove|drop|skip|avoid|without|but|wait|"
    r"missing|should|shouldn'?t|must|need|needs|too|revert|undo|rethink|reconsider|"
    r"only|first|before|also|add|use|"
    # German
    r"nein|nicht|kein|keine|keinen|nie|niemals|statt|stattdessen|sondern|lieber|ohne|"
    r"aber|zuerst|erst|falsch|nimm|verwende|benutze|"
    # Spanish, Portuguese
    r"nunca|sin|sem|pero|mas|primero|primeiro|en vez|en lugar|em vez|mejor|melhor|"
    r"usa|use|utiliza|não|nao|incorrecto|errado|"
    # Russian
    r"не|нет|никогда|без|вместо|но|сначала|лучше|используй|неправильно",
    # Chinese, Japanese, Korean
    r"不要|别|不用|不是|不行|不对|不能|换成|改成|而是|先|应该|必须|"
    r"ないで|ではなく|じゃなく|やめて|だめ|ダメ|使って|しないで|"
    r"말고|하지 마|안 돼|대신|먼저|쓰지",
)

# Words that approve or praise: a declined plan dialog whose reason says only
# this is how some clients hand back a plan the person accepted ("this plan is
# solid and ready", "looks great, ship it"; the issue-10 false positives).
APPROVING_RE: Final = _pattern(
    r"looks good|looks great|lgtm|ship it|solid|ready|great|perfect|approved?|"
    r"go ahead|sounds good|"
    r"sieht gut aus|passt|perfekt|einverstanden|klingt gut|"
    r"se ve bien|perfecto|adelante|de acuerdo|listo|"
    r"parece bom|perfeito|ótimo|pode seguir|"
    r"хорошо|отлично|согласен|годится",
    r"好的|没问题|很好|不错|同意|批准|就这样|"
    r"いいね|いいです|大丈夫|問題ない|承認|"
    r"좋아|좋습니다|괜찮|승인",
)

# "maybe try the other adapter" is an idea offered, not a rule given.
HEDGE_RE: Final = _pattern(
    r"maybe|perhaps|possibly|might|not sure|i think|i guess|if you (?:want|prefer)|up to you|"
    r"vielleicht|eventuell|"
    r"quizás?|tal vez|talvez|possivelmente|"
    r"возможно|может быть|наверное",
    r"也许|或许|要不|多分|たぶん|かもしれ|아마|혹시",
)


def has_rejecting_words(text: str) -> bool:
    """True when `text` says no to, or redirects, what it answers."""
    return REJECTING_RE.search(text) is not None


def has_approving_words(text: str) -> bool:
    """True when `text` approves or praises what it answers."""
    return APPROVING_RE.search(text) is not None
