"""Kebab-case slugs: the labels that group occurrences and key verdicts.

A label is 2–5 words, `^[a-z0-9]+(-[a-z0-9]+){1,5}$`-shaped (the canonical-key
pattern, which allows up to six words; labels stop at five so a model that
writes a sentence gets cut to something that still names the point).

Labels stay ASCII in every language (issue 19): they are keys (verdict and
canonical keys, command-file names, team-shared rows), compared and typed on
any keyboard. Latin letters lose their accents (`abhängigkeit` ->
`abhangigkeit`, not `abh-ngigkeit`), Cyrillic is transliterated, and a quote
in a script without a short transliteration (Chinese, Japanese, Korean) keeps
its ASCII words and a digest of the text, so two such quotes never share a
fallback label by accident. The rule text itself stays in the person's
language; only the key is ASCII.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

from learn.textfold import fold

SLUG_PATTERN = re.compile(r"^[a-z0-9]+(-[a-z0-9]+){1,5}$")
MAX_LABEL_WORDS = 5
MAX_LABEL_CHARS = 60

_NON_ALNUM = re.compile(r"[^a-z0-9]+")
# Any label learn has made or will make, suffixes included (`-enforced`, `-command`), and
# a check rule's id; `_` too, which no label holds today but costs nothing to let through:
# what must never pass is space, markup or punctuation a file or shell reads.
_LABEL = re.compile(r"[a-z0-9_]+(?:-[a-z0-9_]+)*")


def is_label(text: str) -> bool:
    """Whether `text` is shaped as learn's labels are: lower-case ASCII words (letters,
    digits, `_`) joined by dashes. A label read back from a store is checked again before it is used or written
    (a team's store is shared; learn.report.edits.is_safe_key)."""
    return len(text) <= 200 and _LABEL.fullmatch(text) is not None

_WS = re.compile(r"\s+")

# Words that carry no meaning in a fallback slug: "please always use bun" and
# "always use bun" should fall back to the same label.
_FILLER = frozenset(
    ["a", "an", "the", "please", "pls", "just", "can", "could", "would", "you", "we", "i", "me", "my", "our", "to", "of", "and", "or", "so", "it", "its", "this", "that", "is", "are", "be", "for", "with", "on", "in", "at", "hey", "ok", "okay",
     "now", "here", "there", "again", "also", "really", "anything", "everything", "thing", "things", "them", "they"]
)
# Contractions fold before splitting, so "don't" is one word ("dont", a negation
# the slug must keep) and "we're" loses its "'re" instead of leaving a stray "re".
_NEGATED_CONTRACTION = re.compile(r"(\w)n['’]t\b")
_CONTRACTION_TAIL = re.compile(r"['’](?:re|s|ll|ve|d|m)\b")


_CYRILLIC = dict(zip(
    "абвгдеёжзийклмнопрстуфхцчшщъыьэюяіїєґ",
    ["a", "b", "v", "g", "d", "e", "e", "zh", "z", "i", "y", "k", "l", "m", "n", "o", "p", "r",
     "s", "t", "u", "f", "kh", "ts", "ch", "sh", "shch", "", "y", "", "e", "yu", "ya", "i", "yi",
     "ye", "g"],
    strict=True,
))


def ascii_fold(text: str) -> str:
    """`text` lower-cased with Latin accents dropped and Cyrillic transliterated;
    other scripts are left as they are (and so fall out of a slug)."""
    lowered = text.lower()
    if lowered.isascii():
        return lowered
    out: list[str] = []
    for ch in lowered:
        if ch in _CYRILLIC:
            out.append(_CYRILLIC[ch])  # before NFKD, which would split й into и + breve
        elif ch == "ß":
            out.append("ss")
        else:
            out.extend(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
    return "".join(out)


def _untransliterated(text: str) -> bool:
    """Whether `text` has letters `ascii_fold` cannot write in ASCII."""
    return any(ch.isalpha() and not ch.isascii() for ch in ascii_fold(text))


def _words(text: str) -> list[str]:
    return [w for w in _NON_ALNUM.split(ascii_fold(text)) if w]


def _cap(words: list[str], max_words: int, max_chars: int) -> str:
    out: list[str] = []
    length = 0
    for word in words[:max_words]:
        room = max_chars - length - (1 if out else 0)
        if room <= 0:
            break
        out.append(word[:room])
        length += len(out[-1]) + (1 if len(out) > 1 else 0)
    return "-".join(out)


def normalize_label(raw: str) -> str | None:
    """A model-written label as a slug, or None when it cannot be one.

    Lowercase, runs of non-alphanumerics become '-', trimmed, capped at five
    words and 60 characters. A single word is rejected: "testing" names a topic,
    not a point, and would swallow every test-related occurrence.
    """
    slug = _cap(_words(raw), MAX_LABEL_WORDS, MAX_LABEL_CHARS)
    return slug if SLUG_PATTERN.match(slug) else None


def canonical_slug(raw: str | None) -> str | None:
    """A judge's canonical key as a slug (2–6 words), or None."""
    if raw is None:
        return None
    slug = _cap(_words(raw), 6, 80)
    return slug if SLUG_PATTERN.match(slug) else None


def fallback_slug(text: str, kind: str) -> str:
    """A label derived from a quote when the model gave none.

    Filler words are dropped first so near-identical wordings land on the same
    slug; a quote too short to make two words is padded with its kind so the
    result is still a valid label ("ok" → "ok-directive").
    """
    folded = _CONTRACTION_TAIL.sub("", _NEGATED_CONTRACTION.sub(r"\1nt", text.lower()))
    words = [w for w in _words(folded) if w not in _FILLER] or _words(folded)
    if words and _untransliterated(text):
        # "导出 PDF 不要加新的依赖" and "PDF 导出要快" must not both be "pdf-directive".
        digest = hashlib.sha256(fold(text).encode("utf-8")).hexdigest()[:8]
        return _cap([*words[: MAX_LABEL_WORDS - 1], digest], MAX_LABEL_WORDS, MAX_LABEL_CHARS)
    slug = _cap(words, MAX_LABEL_WORDS, MAX_LABEL_CHARS)
    if SLUG_PATTERN.match(slug):
        return slug
    if slug:
        return f"{slug}-{kind}"
    # Nothing ASCII to slug (a quote in another script): a digest of the text
    # keeps distinct quotes apart instead of pooling them all under one label.
    digest = hashlib.sha256(fold(text).encode("utf-8")).hexdigest()[:8]
    return f"{kind}-{digest}"
