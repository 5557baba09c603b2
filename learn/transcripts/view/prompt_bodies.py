"""Custom and spec prompt bodies recognised by their own structure, with no template on disk.

A Codex custom prompt arrives as one user message: the prompt file's body with the
person's arguments filled in. `replay` cuts a body whose file is still on disk, and
`templates.skeleton` one repeated across sessions; neither knows a body whose file
is elsewhere (a spec tool's prompts installed under another CODEX_HOME, a prompt
renamed or deleted since) the first time it is used, so the first use counted the
whole body as typed, and from the third use on the skeleton learned the person's
own request as the template's ("Please review completion of milestone 4 ..." was
lost, 13 requests on real data, because with digits masked it recurred).

So the shapes spec tools write are read here, from the message alone, the same for
the first use as the tenth:

- spec-kit: the body's `## User Input` section holds `$ARGUMENTS` in a fenced block
  (or bare), followed by "You **MUST** consider the user input before proceeding";
  what is in that section is what the person wrote, the rest is the body.
- `<meta>` headers (cc-sdd / Kiro-style prompts): `<meta>` with `description:`,
  `argument-hint: <feature-name:$1>` and `arguments:` opens the body; the values
  filled into the hint and the arguments are the person's, the rest is the body.
"""

from __future__ import annotations

import re
from typing import Final

from learn.lazy import lazy_pattern

# Spec-kit's section for the person's input, then a fence (or the text itself) up
# to the body's next line: its MUST sentence or a heading.
_USER_INPUT_HEAD: Final = lazy_pattern(r"^[ \t]*#{1,4}[ \t]*User Input[ \t]*:?[ \t]*$", re.M | re.I)
_FENCE: Final = lazy_pattern(r"^[ \t]*(`{3,}|~{3,})[^\n]*$", re.M)
_NEXT_PART: Final = lazy_pattern(
    r"^[ \t]*(?:You \**MUST\**\b|#{1,4}[ \t]+\S|---[ \t]*$|\*\*[^*\n]+\*\*[ \t]*:?[ \t]*$)", re.M)
_HEADING: Final = lazy_pattern(r"^[ \t]*#{1,4}[ \t]+\S", re.M)
# Spec-kit's sentence after the input section, in every command it ships.
_MUST: Final = lazy_pattern(r"^[ \t]*You \**MUST\**[ \t]+consider the user input", re.M | re.I)
# A body is long and structured; a person's own "## User Input" note is not.
BODY_MIN_CHARS: Final = 300
BODY_MIN_HEADINGS: Final = 2

_META: Final = lazy_pattern(r"\A\s*(?:---\n.*?\n---\s*\n)?\s*<meta>[ \t]*\n(?P<meta>.*?)\n[ \t]*</meta>",
                          re.S)
_HINT_VALUE: Final = lazy_pattern(r"[<\[]\s*[\w-]+\s*:\s*(?P<value>[^>\]\n]*?)\s*[>\]]")
_ARGUMENT_LINE: Final = lazy_pattern(r"^[ \t]+[\w-]+[ \t]*:[ \t]*(?P<value>\S[^\n]*)$", re.M)
# A placeholder left unfilled (`$1`, `$ARGUMENTS`) is no one's words.
_UNFILLED: Final = lazy_pattern(r"\A\$(?:\d+|[A-Z_]+)\Z")


def filled_prompt(text: str) -> list[str] | None:
    """What the person wrote into a spec or custom prompt body recognised by its
    structure (possibly nothing: `[]`), or None when `text` is not such a body."""
    if "<meta>" in text:
        meta = _META.match(text)
        if meta is not None:
            return _meta_values(meta.group("meta"))
    if not ("User Input" in text or "User input" in text or "user input" in text
            or "USER INPUT" in text):
        return None  # most turns: one substring test, no regex
    head = _USER_INPUT_HEAD.search(text)
    if head is None:
        return None
    rest_of_body = text[: head.start()] + text[head.end():]
    structured = (_MUST.search(rest_of_body) is not None
                  or len(_HEADING.findall(rest_of_body)) >= BODY_MIN_HEADINGS)
    if len(rest_of_body) < BODY_MIN_CHARS or not structured:
        return None
    return _user_input(text[head.end():])


def _user_input(section: str) -> list[str]:
    body = section.lstrip("\n")
    fence = _FENCE.match(body)
    if fence is not None and not body[: fence.start()].strip():
        close = re.compile(r"^[ \t]*" + re.escape(fence.group(1)) + r"[ \t]*$", re.M)
        end = close.search(body, fence.end())
        value = body[fence.end(): end.start() if end else len(body)]
    else:
        nxt = _NEXT_PART.search(body)
        value = body[: nxt.start() if nxt else len(body)]
    value = value.strip()
    return [value] if value and not _UNFILLED.match(value) else []


def _meta_values(meta: str) -> list[str]:
    values: list[str] = []
    in_arguments = False
    for line in meta.splitlines():
        key = line.split(":", 1)[0].strip().lower() if ":" in line else ""
        if not line.startswith((" ", "\t")):
            in_arguments = key == "arguments"
            if key == "argument-hint":
                values += [m.group("value") for m in _HINT_VALUE.finditer(line.split(":", 1)[1])]
            continue
        argument = _ARGUMENT_LINE.match(line) if in_arguments else None
        if argument is not None:
            values.append(argument.group("value"))
    kept = [v.strip() for v in values if v.strip() and not _UNFILLED.match(v.strip())]
    # `$1` is the first word of `$ARGUMENTS`: a value inside another is said once.
    return [v for i, v in enumerate(kept)
            if not any(v != w and v in w for w in kept) and v not in kept[:i]]
