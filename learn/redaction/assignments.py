"""`NAME=value`, `NAME: value`, `"name": "value"`: a secret when the name says so and
the value looks like one (`secret_values.looks_secret`: long, mixed, random enough for a
key; any chosen value for a password; never a placeholder or a reference)."""

from __future__ import annotations

import re
from typing import Final

from learn.lazy import lazy_pattern
from learn.redaction.secret_values import PASSWORD_NAME_RE, is_passphrase, looks_secret, marker

ASSIGN_GATE: Final = (":", "=", "：", "＝")
# What a name `looks_secret` accepts always holds (SECRET_NAME_RE, folded; `_auth`,
# `salt`, `hmac` for SERVICE_AUTH, PASSWORD_SALT, HMAC_SHA256): a text
# holding none of these has no assignment to redact. Searched for in the folded text
# by `in` (0.29 s over 60 MB of a memory plugin's prompts, where a case-blind regex
# took 3.3 s and both assignment patterns 3 s).
_NAME_WORDS: Final = ("key", "token", "secret", "pass", "pw", "credential", "_auth", "salt", "hmac")


def could_name_secret(text: str) -> bool:
    """False when no name in `text` can be a secret's (`secret_values.looks_secret`)."""
    # Names are ASCII; folding maps each character alone, so a name's folded form
    # is inside the folded text (and a folded non-ASCII letter only adds hits).
    folded = text.lower() if text.isascii() else text.casefold()
    return any(word in folded for word in _NAME_WORDS)

# Blanks around a separator: a no-break or ideographic space too (`password:\u00a0X`,
# as some keyboards and editors put there, passed the third privacy audit).
_BLANK: Final = r"[ \t\u00a0\u3000]*"
# A value written bare: `&` ends it only before another `name=` (a URL query, a JDBC
# string); a backslash before a newline continues it when the next line starts with
# the rest (`KEY=abc\` + newline + `def`, a key wrapped in a shell script: only its
# head was taken, the tail stayed in clear), not with an indented `--flag`. A
# backslash and one blank too: the shell's escaped blank, and what a continuation
# becomes in a call's one-line summary (`transcripts.view.calls`), redacted after.
_BARE_VALUE: Final = (
    r"(?:\\(?:\r?\n| )(?=[^\s-])|[^\s\"'`,;(){}<>&]|&(?![A-Za-z_][A-Za-z0-9_.-]*=))+"
)

# KEY=value, KEY: value, export KEY="value", --key=value, `password => "value"` (Ruby,
# PHP, Perl; only before a quote: `token => token.trim()` is an arrow function).
# A quoted value runs to its closing quote, spaces and all (`password="Blue Horse
# 42x"` lost only `Blue`); `_assignment` decides whether the words are one value.
# The name is possessive (`*+`): what follows it (a blank or a separator; a quote in
# QUOTED_ASSIGN_RE) is never a name character, so no shorter name can match where the
# whole one did not, and the engine no longer backs off a word one character at a time
# before each failed try (every word of a text whose gate holds `:` or `=`). The same
# matches (compared over both bench homes' turns and 200,000 random strings of names,
# separators, quotes and blanks); the assignment rule over the 1,000-session tree
# home's observer prompts in 0.45x the time, redacting its distinct turns 0.87x the
# instructions (callgrind).
ASSIGN_RE: Final = lazy_pattern(
    r"(?P<name>(?<![A-Za-z0-9_.])[A-Za-z_][A-Za-z0-9_.-]*+)"
    rf"(?P<sep>{_BLANK}(?:[:=：＝]|=>(?=[ \t]*[\"'])){_BLANK})"
    r"(?P<q>[\"'])?"
    r"(?P<val>(?(q)(?:[^\s\"'](?:[^\"'\n]*[^\s\"'])?(?=(?P=q))|"
    + _BARE_VALUE + r")|" + _BARE_VALUE + r"))"
)
# "key": "value" (JSON, or a Python dict literal), "key" => "value" (Ruby, PHP), and
# JSON inside a double-quoted shell argument, every quote escaped: `curl -d
# "{\"password\":\"...\"}"` (the audit's first finding: the quote before the name
# was `\"`, so no rule saw a name).
_QUOTED_CHAR: Final = r"(?:[^\"'\s\\]|\\(?![\"']))"
QUOTED_ASSIGN_RE: Final = lazy_pattern(
    r"(?P<nq>\\?[\"'])(?P<name>[A-Za-z_][A-Za-z0-9_.-]*+)(?P=nq)"
    r"(?P<sep>\s*(?::|=>)\s*)"
    r"(?P<q>\\?[\"'])"
    rf"(?P<val>{_QUOTED_CHAR}(?:(?:{_QUOTED_CHAR}|[ \t])*{_QUOTED_CHAR})?)"
    r"(?P=q)"
)

def _prose_word(m: re.Match[str], value: str, end: int) -> bool:
    """`password: complete, moving on`: a plain word after `: `, with more words after it
    on the line, is the sentence going on, not a value. A lone word is a value."""
    if not (value.isalpha() and (value.islower() or value[1:].islower())):
        return False
    if ":" not in m.group("sep") or not m.group("sep").endswith((" ", "\t")):
        return False
    # Up to the end of the line only: slicing the whole remaining text per match
    # made a 1.5 MB transcript of such lines 2.4x slower to redact (measured).
    stop = m.string.find("\n", end)
    rest = m.string[end : stop if stop >= 0 else len(m.string)]
    return any(c.isalpha() for c in rest)


# `token: Optional[str]`, `password: str | None`, `credentials: AccessTokenProvider`: a type
# annotation, not a value (measured: most of what the rules still took in library code).
_TYPE_RE: Final = lazy_pattern(
    r"^(?:[A-Za-z_][\w.]*\[.*|str|bytes|int|bool|float|None|Any|object"
    r"|(?:[A-Z][a-z]+)+(?:Str|Bytes|Param|Params|Provider|Config|Key|Type|Credentials?|Token|Model"
    r"|Secret|Auth|Settings|Client|Name|Value|Id))$"
)


def _annotation(m: re.Match[str]) -> bool:
    sep = m.group("sep")
    if m.group("q") or not (sep.strip() == ":" and sep.endswith((" ", "\t"))):
        return False
    return bool(_TYPE_RE.match(m.group("val"))) or m.string.startswith(" | ", m.end("val"))


def _value(m: re.Match[str]) -> tuple[str, int]:
    """The value and where it ends. Quoted words are one value when they read as a
    passphrase for a password's name (`password="Blue Horse 42x"`); otherwise, as a
    bare value is, the first word (`password="Password used to generate key"` is a
    sentence, `token: "abc def"` no key)."""
    value, start, end = m.group("val"), m.start("val"), m.end("val")
    if not m.group("q") or not any(c.isspace() for c in value):
        return value, end  # one word, or a bare value continued by `\` + newline
    if PASSWORD_NAME_RE.search(m.group("name")) and is_passphrase(value):
        return value, end
    first = value.split(None, 1)[0]
    return first, start + len(first)


def _assignment(m: re.Match[str]) -> str | None:
    """The match with its value replaced by a marker, or None when it is no secret."""
    name = m.group("name")
    value, end = _value(m)
    if not looks_secret(name, value) or m.string.startswith("(", end) or _annotation(m):
        return None  # no secret, a call (`getpass.getpass()`) or a type (`token: str | None`)
    kind = "password" if PASSWORD_NAME_RE.search(name) else "secret"
    if kind == "password" and _prose_word(m, value, end):
        return None
    sep = m.group("sep")
    if sep.strip() == ":" and sep[0] in " \t" and sep[-1] == ":":
        return None  # `PASSWORD :new_password`: a SQL bind parameter
    start = m.start("val")
    whole_start = m.start(0)
    text = m.group(0)
    return text[: start - whole_start] + marker(kind) + text[end - whole_start :]


def sub_assignments(pattern: re.Pattern[str], text: str) -> str:
    """`pattern.sub(_assignment, text)`, but a match that is no secret is searched again
    from its value: in `note: PGPASSWORD=pw` or `note: api_key = "..."` the outer
    `note:` match would otherwise swallow the assignment inside it."""
    out: list[str] = []
    pos = search_from = 0
    while (m := pattern.search(text, search_from)) is not None:
        replaced = _assignment(m)
        if replaced is None:
            search_from = max(m.start("val"), m.start() + 1)
            continue
        out.append(text[pos : m.start()])
        out.append(replaced)
        pos = search_from = m.end()
    out.append(text[pos:])
    return "".join(out)
