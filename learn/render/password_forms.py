"""Passwords written where no `name=value` rule sees them: prompts and encoded forms.

Passwords planted as people paste them from a terminal or a browser's network tab went
through in clear in three forms (each pinned by tests/test_render_redact_password_forms.py,
which failed on all of them before): a label ending its line with the value alone on
the next (`Password:` newline `Hunter2Secret9`, as a note or a YAML scalar lays it out),
the prompt of `sudo` or `git` with what was typed after it (`[sudo] password for bob:
Swordfish42!`), and a form body or query percent-encoded a second time
(`…%26password%3DSwordfish42`: `=` and `&` are `%3D` and `%26`, so the assignment rule
saw one long word). (`sudo -S <<< 'pw'` and a GCP key's `private_key_id` went through
too: they are context rules, in learn.render.secret_rules.)

What follows a label on the next line is as often the prose or the code it introduces
(`Password:` then "we should rotate it next week", a YAML `password:` then
`  secretKeyRef:`), so a prompt's value is one word shaped like a chosen password
(`secret_values.looks_chosen`), and on the next line that word alone on its line; on
2.85 M lines of installed libraries' code, docs and config it changed none.

Each rule is (words one of which the lower-cased text must contain, pattern,
replacement), in the shape of `redact._GATED_RULES`, which runs them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final
from urllib.parse import unquote

from learn.lazy import lazy_pattern
from learn.render.secret_values import is_placeholder, looks_chosen, looks_secret, marker

_LABEL: Final = r"(?:password|passwd|passphrase|pwd)"
# What a prompt names the account with: `bob`, `'https://bob@github.com'`.
_FOR_WHOM: Final = r"(?:[ \t]+for[ \t]+(?:'[^'\n]*'|\"[^\"\n]*\"|[^\s:'\"]+))"

# A label ending its line (whatever comes before it on the line, Markdown bold around
# it), and on the next line one word alone, indented or quoted or not: a YAML scalar
# continued on its next line is written so too.
_NEXT_LINE_RE: Final = lazy_pattern(
    r"(?i)" + _LABEL + _FOR_WHOM + r"?[ \t]*(?:\*\*)?[ \t]*[:=：＝][ \t]*(?:\*\*)?[ \t]*\r?\n[ \t]*[`'\"]?"
    r"(?P<val>[^\s`'\"]+)[`'\"]?[ \t]*(?=\r?\n|\Z)"
)
# `[sudo] password for bob: Swordfish42!`, `Password for 'https://bob@host': …`: the
# word typed after a prompt (as `password: <word>` is taken whatever follows it).
_PROMPT_RE: Final = lazy_pattern(
    r"(?i)\b" + _LABEL + _FOR_WHOM + r"[ \t]*:[ \t]*(?P<val>[^\s`'\"]+)"
)
# What the next line holds when it is the code or config a label introduced: a YAML
# key (`secretKeyRef:`), a list item or flag, a comment, a bracket, a statement's end
# or a call (`makeHash();`), a dotted or snake_case name (`auth.py`, `os.environ`,
# `get_password`), a URL.
_NOT_A_VALUE_RE: Final = lazy_pattern(
    r"^[-#(\[{<]|[:;,]$|\(\)|^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$|^[a-z]+(?:_[a-z0-9]+)+$|://"
)


def _prompted(m: re.Match[str]) -> str:
    """The value replaced when it reads as a typed password, else the match as it was."""
    value = m.group("val")
    if not looks_chosen(value) or is_placeholder(value) or _NOT_A_VALUE_RE.search(value):
        return m.group(0)
    return m.string[m.start() : m.start("val")] + marker("password") + m.string[m.end("val") : m.end()]


# A form body or query encoded once more (inside another parameter, a redirect URL, a
# logged request): `%26` is `&`, `%3F` is `?`, `%3D` is `=`. Found by its `%3D` (a
# literal the regex engine looks for fast: a pattern opening with the name's
# boundary was 0.2 s on 4 MB of code, where `%3d` is a format), then the name is read
# back from there: it starts after one of those or a boundary (`bypass%3D` is no
# `pass`). The value runs to the next `%26` or anything a URL ends at.
_ENCODED_VALUE_RE: Final = lazy_pattern(r"(?i)%3D(?P<val>(?:%(?!26)[0-9A-F]{2}|[^\s&%\"'<>#;,\\])+)")
_ENCODED_NAME_RE: Final = lazy_pattern(
    r"(?i)(?:(?<=%26)|(?<=%3f)|(?<![A-Za-z0-9_.%-]))"
    r"(?:[A-Za-z0-9]+[_.-])*(?:password|passwd|passphrase|pwd|pass|pw)\Z"
)
# The longest name read back (`x_…_password`): a bound on the look back.
_ENCODED_NAME_CHARS: Final = 64


def _encoded_field(m: re.Match[str]) -> str:
    name = _ENCODED_NAME_RE.search(m.string, max(0, m.start() - _ENCODED_NAME_CHARS), m.start())
    # Decoded before it is judged: `%24PW` is `$PW`, a variable, and stays.
    if name is None or not looks_secret(name.group(0), unquote(m.group("val"))):
        return m.group(0)
    return m.group(0)[:3] + marker("password")


_PASSWORD_WORDS: Final = ("password", "passwd", "passphrase", "pwd")

PASSWORD_FORM_RULES: Final[tuple[tuple[tuple[str, ...], re.Pattern[str], Callable[[re.Match[str]], str]], ...]] = (
    (_PASSWORD_WORDS, _NEXT_LINE_RE, _prompted),
    (_PASSWORD_WORDS, _PROMPT_RE, _prompted),
    (("%3d",), _ENCODED_VALUE_RE, _encoded_field),
)
