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

A body also says which command it is (`prompt_body(...).command`). Codex writes only
the expanded body into the session: the prompt's frontmatter is stripped before
expansion (codex-rs `custom_prompts.parse_frontmatter`, `prompt_args.expand_custom_prompt`)
and nothing in the rollout names `/prompts:speckit.clarify` (0.104). So
the turn showed the person's arguments with no command, and a command run with none
showed nothing. Spec-kit's bodies name themselves in one of three ways (its releases
of late 2025 to 2026, installed as Codex prompts in public projects):

- the sentence "The text the user typed after `/speckit.specify`" (specify);
- the keys of its own extension hooks, `hooks.before_clarify` / `hooks.after_clarify`
  (the core commands, from the releases that added extensions);
- before those, nothing but its own steps: the one line each core command has and no
  other does (`_SPEC_KIT_SIGNATURES`).

A body that names none of these (another tool's, a renamed copy) is still cut, unnamed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final, NamedTuple

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


class PromptBody(NamedTuple):
    said: list[str]  # what the person wrote into the body (possibly nothing)
    command: str | None  # the command the body is (`/speckit.clarify`), when it says


def filled_prompt(text: str) -> list[str] | None:
    """What the person wrote into a spec or custom prompt body recognised by its
    structure (possibly nothing: `[]`), or None when `text` is not such a body."""
    body = prompt_body(text)
    return None if body is None else body.said


def prompt_body(text: str) -> PromptBody | None:
    """A spec or custom prompt body recognised by its structure: what the person wrote
    into it and the command it names itself as; None when `text` is not such a body."""
    if "<meta>" in text:
        meta = _META.match(text)
        if meta is not None:
            said = _meta_values(meta.group("meta"))
            return PromptBody(said, _self_named(text, said))
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
    said = _user_input(text[head.end():])
    return PromptBody(said, _spec_kit_command(rest_of_body, said))


# "The text the user typed after `/speckit.specify` in the triggering message": a body
# saying what was typed after it names itself. Codex's `/prompts:` is how the person
# reached it, not its name.
_SELF_NAMED: Final = lazy_pattern(r"\btyped after [`'\"]?/(?:prompts:)?(?P<name>\w[\w.:-]*\w)", re.I)
# A spec-kit command reads its own extension hooks: `hooks.before_<command>`.
_OWN_HOOK: Final = lazy_pattern(r"\bhooks\.(?:before|after)_(?P<name>[a-z]+)\b")
_SPEC_KIT_PREFIX: Final = "/speckit."
# Spec-kit's core commands, and for each the line only its own body holds, for the
# releases whose bodies neither say what was typed after them nor read hooks. Asked in
# this order: an older plan body points at the tasks template, so plan's script is
# asked first; implement's rules before the tasks template it may name.
_SPEC_KIT_SIGNATURES: Final = (
    ("constitution", "You are updating the project constitution"),
    ("specify", "create-new-feature"),
    ("plan", "setup-plan"),
    ("clarify", "Detect and reduce ambiguity"),
    ("analyze", "STRICTLY READ-ONLY"),
    ("checklist", "Unit Tests for English"),
    ("taskstoissues", "GitHub MCP server to create"),
    ("implement", "Implementation execution rules"),
    ("tasks", "tasks-template"),
)
_SPEC_KIT_COMMANDS: Final = frozenset(name for name, _ in _SPEC_KIT_SIGNATURES)


def _self_named(text: str, said: Sequence[str] = ()) -> str | None:
    if "typed after" not in text.lower():
        return None
    typed = _spans(text, said)
    named = next((m for m in _SELF_NAMED.finditer(text) if not _within(m.span(), typed)), None)
    return None if named is None else "/" + named.group("name")


def _spec_kit_command(body: str, said: Sequence[str]) -> str | None:
    """The command a spec-kit body is, from its own words: never from what the person
    wrote into it (their "the setup-plan script fails" in a clarify is not plan), which
    the body can hold more than once (`Context for prioritization: $ARGUMENTS`)."""
    named = _self_named(body, said)
    if named is not None:
        return named
    typed = _spans(body, said)
    if "hooks." in body:
        for hook in _OWN_HOOK.finditer(body):
            if hook.group("name") in _SPEC_KIT_COMMANDS and not _within(hook.span(), typed):
                return _SPEC_KIT_PREFIX + hook.group("name")
    for name, line in _SPEC_KIT_SIGNATURES:
        at = body.find(line)
        while at >= 0:
            if not _within((at, at + len(line)), typed):
                return _SPEC_KIT_PREFIX + name
            at = body.find(line, at + 1)
    return None


def _spans(text: str, values: Sequence[str]) -> list[tuple[int, int]]:
    """Where each of `values` stands in `text`, every time."""
    out: list[tuple[int, int]] = []
    for value in values:
        at = text.find(value) if value else -1
        while at >= 0:
            out.append((at, at + len(value)))
            at = text.find(value, at + 1)
    return out


def _within(span: tuple[int, int], spans: Sequence[tuple[int, int]]) -> bool:
    return any(a <= span[0] and span[1] <= b for a, b in spans)


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
