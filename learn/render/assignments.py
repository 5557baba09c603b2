"""`NAME=value`, `NAME: value`, `"name": "value"`: a secret when the name says so and
the value looks like one (`secret_values.looks_secret`: long, mixed, random enough for a
key; any chosen value for a password; never a placeholder or a reference)."""

from __future__ import annotations

import re
from typing import Final

from learn.lazy import lazy_pattern
from learn.render.secret_values import PASSWORD_NAME_RE, looks_secret, marker

ASSIGN_GATE: Final = (":", "=", "：")
# What a name `looks_secret` accepts always holds (SECRET_NAME_RE, folded): a text
# holding none of these has no assignment to redact. Searched for in the folded text
# by `in` (0.29 s over 60 MB of a memory plugin's prompts, where a case-blind regex
# took 3.3 s and both assignment patterns 3 s).
_NAME_WORDS: Final = ("key", "token", "secret", "pass", "pw", "credential")


def could_name_secret(text: str) -> bool:
    """False when no name in `text` can be a secret's (`secret_values.looks_secret`)."""
    # Names are ASCII; folding maps each character alone, so a name's folded form
    # is inside the folded text (and a folded non-ASCII letter only adds hits).
    folded = text.lower() if text.isascii() else text.casefold()
    return any(word in folded for word in _NAME_WORDS)

# KEY=value, KEY: value, export KEY="value", --key=value.
ASSIGN_RE: Final = lazy_pattern(
    r"(?P<name>(?<![A-Za-z0-9_.])[A-Za-z_][A-Za-z0-9_.-]*)"
    r"(?P<sep>[ \t]*[:=][ \t]*)"
    r"(?P<q>[\"']?)"
    # `&` ends a value only before another `name=` (a URL query, a JDBC string).
    r"(?P<val>(?:[^\s\"'`,;(){}<>&]|&(?![A-Za-z_][A-Za-z0-9_.-]*=))+)"
)
# "key": "value" (JSON, or a Python dict literal).
QUOTED_ASSIGN_RE: Final = lazy_pattern(
    r"(?P<nq>[\"'])(?P<name>[A-Za-z_][A-Za-z0-9_.-]*)(?P=nq)"
    r"(?P<sep>\s*:\s*)"
    r"(?P<q>[\"'])"
    r"(?P<val>[^\"'\s]+)"
    r"(?P=q)"
)

def _prose_word(m: re.Match[str]) -> bool:
    """`password: complete, moving on`: a plain word after `: `, with more words after it
    on the line, is the sentence going on, not a value. A lone word is a value."""
    value = m.group("val")
    if not (value.isalpha() and (value.islower() or value[1:].islower())):
        return False
    if ":" not in m.group("sep") or not m.group("sep").endswith((" ", "\t")):
        return False
    # Up to the end of the line only: slicing the whole remaining text per match
    # made a 1.5 MB transcript of such lines 2.4x slower to redact (measured).
    end = m.string.find("\n", m.end())
    rest = m.string[m.end() : end if end >= 0 else len(m.string)]
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


def _assignment(m: re.Match[str]) -> str | None:
    """The match with its value replaced by a marker, or None when it is no secret."""
    name, value = m.group("name"), m.group("val")
    if not looks_secret(name, value) or m.string.startswith("(", m.end("val")) or _annotation(m):
        return None  # no secret, a call (`getpass.getpass()`) or a type (`token: str | None`)
    kind = "password" if PASSWORD_NAME_RE.search(name) else "secret"
    if kind == "password" and _prose_word(m):
        return None
    sep = m.group("sep")
    if sep.strip() == ":" and sep[0] in " \t" and sep[-1] == ":":
        return None  # `PASSWORD :new_password`: a SQL bind parameter
    start, end = m.span("val")
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
