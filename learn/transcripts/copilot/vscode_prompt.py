"""What the person typed, out of the prompt VS Code writes into a Copilot CLI session.

VS Code's chat runs Copilot CLI sessions through the CLI's SDK: the stream is the CLI's
own (`producer` "copilot-agent"), and `user.message`'s `data.content` is the prompt VS
Code built, not what the person typed (the CLI's own additions still go to
`transformedContent`, see `events`). Read whole, a VS Code session showed the client's
reminder as the person's words, and a quote of it ("You should not respond to this
context unless it is highly relevant to your task") passed verification as theirs.

Two layouts, both marked by a `<reminder>` element (microsoft/vscode-copilot-chat):

- `copilotCLIPrompt.tsx` (the later builds), when the person attached something or edited
  files: the prompt, then `<reminder>` (the relevance warning, or "Follow instructions in
  #file"), `<attachments>`, `<context>` (files edited), and last the prompt again in
  `<userRequest>` (`<user_query>` for grok-code models). Some builds add a hint to that
  last copy (`ATTACHMENTS_HINT`). Nothing attached: the prompt alone, no element.
- `copilotcliPromptResolver.ts` (an early build): `<reminder>` listing the references, then the
  prompt, and no `<userRequest>`.

Each element's tags sit on lines of their own (the prompt renderer's `Tag`). A message
with no `<reminder>` element is read whole: a person at the CLI who types or pastes a
`<userRequest>` line keeps their words.
"""

from __future__ import annotations

import re
from typing import Final

from learn.lazy import lazy_pattern

__all__ = ["ATTACHMENTS_HINT", "typed_of"]

# The elements VS Code adds around the prompt: never typed.
_CLIENT_ELEMENTS: Final = ("reminder", "attachments", "context")
# The element that ends the message with the prompt's own copy.
_REQUEST_ELEMENTS: Final = ("userRequest", "user_query")
# What some builds append to the `<userRequest>` copy when something is attached.
ATTACHMENTS_HINT: Final = (" (See <attachments> above for file contents. You may not need "
                           "to search or read the file again.)")

_REMINDER_RE: Final = lazy_pattern(
    r"^[ \t]*<reminder>[ \t]*\r?\n(?:.*?\n)?[ \t]*</reminder>[ \t]*$", re.M | re.S)
_CLIENT_ELEMENT_RE: Final = lazy_pattern(
    r"^[ \t]*<(" + "|".join(_CLIENT_ELEMENTS) + r")>[ \t]*\r?\n(?:.*?\n)?[ \t]*</\1>[ \t]*$",
    re.M | re.S)
_REQUEST_CLOSE_RE: Final = lazy_pattern(
    r"\r?\n[ \t]*</(" + "|".join(_REQUEST_ELEMENTS) + r")>\s*\Z")
_REQUEST_OPEN_RE: Final = lazy_pattern(
    r"^[ \t]*<(" + "|".join(_REQUEST_ELEMENTS) + r")>[ \t]*\r?\n", re.M)


def typed_of(content: str) -> str:
    """What the person typed in a `user.message`'s `content`: the body of the
    `<userRequest>` that ends a VS Code prompt (the text before its `<reminder>` is the
    same prompt again), else the text outside VS Code's elements; a message no VS Code
    `<reminder>` marks, whole."""
    if "</reminder>" not in content or _REMINDER_RE.search(content) is None:
        return content
    request = _request_body(content)
    if request is not None:
        return request
    return _CLIENT_ELEMENT_RE.sub("", content).strip()


def _request_body(content: str) -> str | None:
    """The body of the `<userRequest>` element that closes the message, or None. It runs
    from the last opening line before the closing one: an excerpt attached above it may
    hold such a line of its own."""
    close = _REQUEST_CLOSE_RE.search(content)
    if close is None:
        return None
    opening = None
    for found in _REQUEST_OPEN_RE.finditer(content, 0, close.start() + 1):
        if found[1] == close[1]:
            opening = found
    if opening is None:
        return None
    body = content[opening.end():close.start()]
    return body.removesuffix(ATTACHMENTS_HINT).strip()
