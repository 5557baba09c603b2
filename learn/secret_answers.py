"""A secret given in answer to the agent asking for one: only the question says what it is.

On real transcripts an agent asked numbered questions ("1. Run the migrations now?
2. What is the database password? 3. How long should the token live?") and the person
answered "1. Skip for now / 2. <password> / 3. 12 hour": the bare password matches no
rule, because nothing in the answer says it is one. Here the answer is read against the
question: the numbered answer to a question that asks for a password, passphrase, key,
token or secret is replaced by a marker, and so is a one-word reply to a single such
question (an AskUserQuestion answer, or a turn right after the agent asked).

People also answer in words ("here you go: <pw>", "<pw> (it's the staging one, don't
commit it)", "it's <pw>"), on more than one line, and after a statement of need ("The
deploy needs your sudo password") or a question in their own language ("Wie lautet das
Passwort?"): a privacy audit reproduced 15 of 19 such replies kept in clear. So after a
question that names a secret, each word of the reply shaped like a chosen value (see
`_chosen`) is replaced on its own, on whichever line, and the person's other words stay:
they are the evidence rules are mined from.

A leaf module (it imports only `learn.secret_fields`, and `learn.secret_questions`, which
reads the question): the session view applies it while it builds the typed turns, so the
value is gone before anything renders, stores or shows it. The marker has
`redaction.redact`'s shape, so redaction leaves it alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from itertools import pairwise
from typing import Final

from learn.secret_fields import is_variable_ref
from learn.secret_questions import NUMBERED_RE, asks_for, last_question, numbered, question_names

MARKER: Final = "[REDACTED:answer]"

# Answers that decline or defer: the person gave no secret.
_DECLINE: Final = frozenset(
    ["skip", "skipped", "no", "none", "n/a", "na", "later", "default", "same", "yes", "ok", "okay", "pass", "nope", "unknown", "idk", "please", "sure", "proceed", "continue", "go", "approved", "approve", "correct", "right", "yep", "yeah", "nah", "done", "thanks", "fine", "good", "great", "perfect", "exactly", "agreed", "both", "neither", "either", "all", "whatever"]
)
_FUNCTION_WORDS: Final = frozenset(
    ["a", "an", "the", "is", "are", "was", "be", "to", "of", "in", "on", "at", "for", "by", "with", "from", "it", "this", "that", "i", "you", "we", "do", "not", "use", "using", "set", "same", "as", "already", "and", "or", "but", "if", "then",
     # Words of an instruction ("run npm test first", "no, skip that step"), not a passphrase.
     "run", "first", "try", "check", "wait", "skip", "ask", "let", "me", "my", "your", "no",
     "now", "again", "just", "instead", "please", "it's", "i'll", "i'm", "don't", "can't",
     "sure", "here", "go", "ok", "yes", "see",
     # ... and of the languages questions are now read in ("Das gebe ich selbst ein.").
     "ich", "das", "der", "die", "ein", "ist", "nicht", "es", "el", "la", "lo", "yo", "de", "que",
     "je", "le", "les", "ce", "pas", "eu", "o", "não", "um", "uma", "se"]
)
_MAX_SECRET_WORDS: Final = 6
def _lone_value(question: str, answer: str) -> str:
    """`answer` with its one word replaced if that word is shaped like a chosen value
    and `question` names a secret without asking for it (`Should I keep the old
    password?` answered `Winter2024!`: the person skipped the "no, use"). Only a word
    `_chosen` takes (a digit or a symbol among letters, six characters or more, not a
    path or a variable) goes: "yes", "go ahead" and sentences are not one word so shaped,
    and a reply of more words to a yes/no question is kept ("yes, and name it ...").
    A password only: a key or token named so is answered by its name or an id as often
    ("Should I rotate the API token now?" answered with the release tag
    `Zq9x7Lm2-release-12`, tests/test_render_redact_corpus.py), and a key is read as one
    only when it is asked for."""
    if len(answer.split(None, 1)) != 1 or not _VALUE_CHAR_RE.search(answer):
        return answer
    named = question_names(question)
    return answer if named is None or named[0] != "password" else _redact_words(answer)


# A key is ASCII; a digits-only one (some vendors issue them) is at least this long.
_NUMERIC_KEY_DIGITS: Final = 16


def _looks_like_key(value: str) -> bool:
    if not value.isascii():
        return False  # "这个密钥在哪里可以找到？": a question with no space in it, not a key
    if value.isdigit():
        return len(value) >= _NUMERIC_KEY_DIGITS
    classes = sum((any(c.islower() for c in value), any(c.isupper() for c in value),
                   any(c.isdigit() for c in value)))
    return len(value) >= 12 and (classes >= 2 or any(not c.isalnum() for c in value))


# Scripts written without spaces between words: a reply in them that runs long is a
# sentence (on a real session the person asked where to find the key, right after the
# agent asked for it, and the question was redacted as the key).
@cache
def _unspaced() -> re.Pattern[str]:
    """Compiled on first use: its ranges of scripts took ~4 ms to compile, in every
    process that imports this module, for a check few replies reach."""
    return re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\u0e00-\u0e7f]")


_SENTENCE_END: Final = ("?", "？", "。", "！", "!")


def _sentence(value: str) -> bool:
    if value.endswith(_SENTENCE_END):
        return True
    return not value.isascii() and len(_unspaced().findall(value)) >= 4


def _is_secret_reply(text: str, asks: str) -> bool:
    """A reply shaped like a value, not a sentence: one token, or (for a password) a
    few words none of which is a function word ("correct horse battery staple", not
    "skip for now")."""
    value = text.strip().strip("`'\"")
    if not value:
        return False
    # The shape first, the sentence test (a regex over the whole reply) last: every
    # typed turn after an agent's message is asked this, and most are sentences of
    # many words (the old order was 5% of building a listing's views).
    # No more words than the longest reply read as a value, and one more to know a
    # reply runs longer: a long sentence is not split whole (the last holds the rest).
    words = value.split(None, _MAX_SECRET_WORDS)
    if len(words) == 1:
        shaped = len(value) >= 4 if asks == "password" else _looks_like_key(value)
    elif asks != "password" or len(words) > _MAX_SECRET_WORDS:
        return False
    else:
        shaped = not any(w.casefold().strip(".,;:!?") in _FUNCTION_WORDS for w in words)
    if not shaped or value.casefold().rstrip(".!") in _DECLINE or value.startswith("[REDACTED"):
        return False
    # `$DB_PASSWORD` names where it is; a question asks.
    return not (is_variable_ref(value) or _sentence(value))


# A word of a reply: what runs between spaces, less the quotes, brackets and sentence
# marks around it (kept as typed). Only a word with a digit or a value symbol in it can
# be chosen (`_chosen`): `_VALUE_WORD_RE` finds just those, each from its first
# character (a generated prompt of 40 kB quoted back as a reply is ~6,000 words, and
# reading each in Python was 9% of a first listing of a memory plugin's sessions).
_LEADING: Final = "`'\"([{<"
_TRAILING: Final = "`'\")]}>.,;:?"  # not "!": values end in one
# Words that precede a value ("it's <pw>", "use <pw>", "password: <pw>"): right after
# one, a shorter value with a digit or symbol is taken too ("hunter22").
_VALUE_HEADS: Final = frozenset(
    ["is", "it's", "its", "use", "try", "was", "password", "passphrase", "pw", "pass", "token",
     "key", "ist", "es", "é", "est"]
)
# Words with a digit that are names, versions and places ("python3.11", "ubuntu-22.04",
# "sha256sum", "1Password", "db.internal.example.com:5432", "config/secrets.yml"), not values.
_NOT_A_VALUE: Final = re.compile(
    r"[A-Za-z]+[-_]?v?\d+(?:\.\d+)*[a-z]?"      # a name and its version
    r"|\d+[A-Z]?[a-z]+"                          # 1Password
    r"|[\d.:]+"                                  # a version, an address, a time
    r"|[a-z0-9-]+(?:\.[a-z0-9-]+)+(?::\d+)?"      # a host or a file name
    r"|[a-z0-9.-]+:\d{2,5}"                      # host:port
    r"|[A-Za-z]+'[A-Za-z]+"                      # a contraction
)
# Chosen words are at least this long (the existing one-word password rule's 4 is for a
# reply that is nothing but the value; among words, "v1.2" and "x86" would go too).
_MIN_CHOSEN: Final = 6
# Among other words a value of this length needs no head: the key rule's 12.
_MIN_UNHEADED: Final = 12
_MIN_CLASS_CHANGES: Final = 3
# The symbols that make a word of letters a chosen value ("Hunter!Secret"); not a
# sentence's marks, which a word loses at its ends, nor a name's "._-'".
_VALUE_SYMBOLS: Final = "!#$%&*+=@^|~\\<>[]{}"
# A character one of `_chosen`'s words has that its ends' trimming (`_LEADING`,
# `_TRAILING`) leaves: a digit or a symbol neither trims; an opening bracket after a
# character of its word; a closing one before one. A tag's brackets ("<summary>", its
# word "summary") are neither: a memory plugin's generated prompts are full of tags,
# and reading their words for one was 2.4% of a first listing of the tree home, where
# this search, which starts from a rare character, is a quarter of that (issue 32).
_KEPT_SYMBOLS: Final = "".join(c for c in _VALUE_SYMBOLS if c not in _LEADING + _TRAILING)
_OPENERS: Final = "".join(c for c in _VALUE_SYMBOLS if c in _LEADING)
_CLOSERS: Final = "".join(c for c in _VALUE_SYMBOLS if c in _TRAILING)
_VALUE_CHAR_RE: Final = re.compile(
    r"[\d" + re.escape(_VALUE_SYMBOLS) + "]"
    r"(?:(?<=[\d" + re.escape(_KEPT_SYMBOLS) + "])"
    r"|(?<=\S[" + re.escape(_OPENERS) + "])"
    r"|(?<=[" + re.escape(_CLOSERS) + r"])(?=\S))")
# A character `_VALUE_CHAR_RE` opens with, in an ASCII text: any digit there is 0-9.
_ASCII_VALUE_CHAR_RE: Final = re.compile("[0-9" + re.escape(_VALUE_SYMBOLS) + "]")
# A whole word (`\S+`, from its first character) that has one of those characters.
_VALUE_WORD_RE: Final = re.compile(
    r"(?<!\S)(?=[^\s\d" + re.escape(_VALUE_SYMBOLS) + r"]*[\d" + re.escape(_VALUE_SYMBOLS) + r"])\S+")


def _class_changes(word: str) -> int:
    """How often the kind of character (lower, upper, digit, other) changes along `word`:
    chosen values change often ("Hunter2Secret9": 5), names rarely ("python3": 1)."""
    kinds = ["l" if c.islower() else "u" if c.isupper() else "d" if c.isdigit() else "o" for c in word]
    return sum(a != b for a, b in pairwise(kinds))


def _chosen(word: str, headed: bool) -> bool:
    """Whether `word`, one word of a longer reply, is shaped like a chosen value: a digit
    or a symbol among letters, long or changing kind often; after a head word
    (`_VALUE_HEADS`, a colon) any such word of `_MIN_CHOSEN` characters. Paths, flags,
    `$VARIABLES`, versions, hosts and file names are the person's words."""
    if len(word) < _MIN_CHOSEN or not word.isascii() or word.startswith("[REDACTED"):
        return False
    if word[0] in "-~./@#" or "/" in word or is_variable_ref(word):
        return False
    if word.isdigit():
        return headed or len(word) >= _NUMERIC_KEY_DIGITS
    if not any(c.isalpha() for c in word):
        return False
    if not any(c.isdigit() or c in _VALUE_SYMBOLS for c in word):
        return False
    if headed:
        return True
    if _NOT_A_VALUE.fullmatch(word):
        return False
    return len(word) >= _MIN_UNHEADED or _class_changes(word) >= _MIN_CLASS_CHANGES


def _chosen_words(answer: str) -> list[tuple[int, int]]:
    """Spans of the words of `answer` that `_chosen` takes, head words read per line."""
    return list(_chosen_spans(answer))


def _chosen_spans(answer: str) -> Iterator[tuple[int, int]]:
    """`_chosen_words`, one at a time: whether there is one stops at the first."""
    for m in _VALUE_WORD_RE.finditer(answer):
        token = m.group()
        word = token.lstrip(_LEADING)
        quoted = len(word) < len(token)
        start = m.start() + len(token) - len(word)
        word = word.rstrip(_TRAILING)
        if len(word) < _MIN_CHOSEN:  # `_chosen`'s first test, before the word before is read
            continue
        previous = _word_before(answer, m.start())
        line_start = m.start() == 0 or answer[m.start() - 1] == "\n"
        headed = (line_start or quoted or previous.endswith((":", "="))
                  or previous.casefold().strip(_LEADING + _TRAILING) in _VALUE_HEADS)
        if _chosen(word, headed):
            yield start, start + len(word)


def _word_before(text: str, at: int) -> str:
    """The word (`\\S+`) before the spaces before `at`; "" at the start."""
    end = at
    while end > 0 and text[end - 1].isspace():
        end -= 1
    start = end
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    return text[start:end]


def _redact_words(answer: str) -> str:
    """`answer` with each word `_chosen` takes replaced by MARKER, the rest as typed."""
    out = answer
    for start, end in reversed(_chosen_words(answer)):
        out = out[:start] + MARKER + out[end:]
    return out


def _could_answer(answer: str) -> bool:
    """Whether either way below could take anything from `answer`: a numbered item, or a
    one-line reply shaped like a value for some kind. Checked before the question: most
    replies are sentences, and reading the agent's (often long) message for what it asks
    was 0.12 s of a 1,000-session first scan (issue 21)."""
    # A numbered item has a digit, and a word `_chosen` takes a digit or a symbol; most
    # replies have neither. In ASCII a digit is 0-9: this class is a table to look each
    # character up in, where `\d` is a Unicode category read per character, and
    # `_VALUE_CHAR_RE` tries its lookbehinds too: over the 2,746 replies read here in
    # the spread and tree bench homes (250 sessions each) the two searches took 13x
    # this one's time, and 382 of those replies have such a character.
    if not answer.isascii() or _ASCII_VALUE_CHAR_RE.search(answer):
        if NUMBERED_RE.search(answer):
            return True
        # Reading each word was ~25 µs of every reply where this search is ~0.5 µs.
        if _VALUE_CHAR_RE.search(answer) and next(_chosen_spans(answer), None) is not None:
            return True
    # A newline only at an end is no line break (strip copies: asked only then).
    # A reply shaped like a key is shaped like a password (one word of 12 characters
    # or more, where a password needs 4; the other tests are the same), so asking for a
    # key too could take nothing more (callgrind: building the views of the spread and
    # tree bench homes, 250 sessions each, took 0.986x and 0.996x the instructions).
    if "\n" not in answer or "\n" not in answer.strip():
        return _is_secret_reply(answer, "password")
    # Or a bare value on a line of its own (no space in it: most lines have one).
    return any(line.strip() and " " not in line.strip() and _is_secret_reply(line, "password")
               for line in answer.split("\n"))


def redact_answer(question: str, answer: str) -> str:
    """`answer` with any secret it gives to `question` replaced by MARKER."""
    if not question or not answer or not _could_answer(answer):
        return answer
    asks = asks_for(question)
    if asks is None and not NUMBERED_RE.search(answer):
        return _lone_value(question, answer)
    items = numbered(question)
    asked = {k: kind for k, v in items.items() if (kind := asks_for(v)) is not None}
    # A message that asks with no verb of asking is read at its last question, and a
    # numbered list may ask in an earlier item ("2. Password for the reporting user?").
    if asks is None and not asked:
        return answer
    if asked and len(items) > 1:
        out = answer
        for m in reversed(list(NUMBERED_RE.finditer(answer))):
            kind = asked.get(m.group(1))
            if kind is not None and _is_secret_reply(m.group(2), kind):
                out = out[: m.start(2)] + MARKER + out[m.end(2) :]
        if out != answer:
            return out
    # One question (or an unnumbered reply): a bare value answers it. A message of one
    # paragraph was read above (reading it again was ~40% of a long message's reply).
    last = last_question(question)
    kind = asks if last == question else asks_for(last)
    if kind is not None and "\n" not in answer.strip() and _is_secret_reply(answer, kind):
        lead = answer[: len(answer) - len(answer.lstrip())]
        tail = answer[len(answer.rstrip()) :]
        return lead + MARKER + tail
    if kind is None:
        return answer
    # A bare value on a line of its own in a longer reply ("swordfish", then the rest of
    # the message on the next lines): read as the one-line reply is. A plain word there
    # went to the model (privacy audit 60); inside a sentence it still does (docs/privacy.md).
    lines = answer.split("\n")
    for i, line in enumerate(lines):
        bare = line.strip()  # a value is one word: a line with a space is read below
        if bare and " " not in bare and _is_secret_reply(line, kind):
            lead, tail = line[: len(line) - len(line.lstrip())], line[len(line.rstrip()):]
            lines[i] = lead + MARKER + tail
    # A value among the reply's words, on any of its lines.
    return _redact_words("\n".join(lines))
