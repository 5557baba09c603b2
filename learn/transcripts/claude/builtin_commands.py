"""Claude Code's own slash commands: the names a person's command file must not take, and
the ones 2.1.332 writes to the transcript as a plain user message.

Written plainly: Claude Code 2.1.332 records `/review fix the nulls` as the user string
`"/code-review fix the nulls"` (rowSource "local", between a `<local-command-caveat>`
entry and a `system/local_command` one), with no `<command-name>` tags, and `/code-review`
the same. Probed against the real client (`claude -p "/<name> fix"`, 2026-12): /init,
/simplify, /batch, /debug, /insights keep the tagged record with an isMeta expansion;
/security-review, /compact, /context the tagged local record; /statusline and
/ultrareview write only system entries; an unknown name (`/explain fix`, and
`/pr-comments`, gone in 2.1.332) is sent to the model as the typed prompt it is. Read
as typed, the plain record became a verified "request" quoting "/code-review" in three
of three sessions, and a proposed `.claude/commands/code-review.md`.

Built in: a custom command named like one of these is shadowed by it or shadows it, so
learn never proposes one (learn.report.targets). From Claude Code's `/help` and the
probes above; a name added by a later client is only a name learn may propose, not a
misread transcript.
"""

from __future__ import annotations

import re
from typing import Final

from learn.lazy import lazy_pattern

# Recorded as a plain "/name args" user message, without <command-name> tags.
PLAIN_RECORD_COMMANDS: Final = frozenset({"code-review"})

BUILTIN_COMMANDS: Final = frozenset({
    "add-dir", "agents", "bashes", "batch", "bug", "clear", "code-review", "color", "compact",
    "config", "context", "cost", "debug", "doctor", "effort", "exit", "export", "fast",
    "feedback", "help", "hooks", "ide", "init", "insights", "install-github-app", "login",
    "logout", "mcp", "memory", "migrate-installer", "model", "output-style", "permissions",
    "plugin", "pr-comments", "privacy-settings", "release-notes", "rename", "resume",
    "review", "rewind", "sandbox", "security-review", "simplify", "status", "statusline",
    "tag", "terminal-setup", "theme", "todos", "ultrareview", "upgrade", "usage", "vim",
})


def plain_command_record(text: str) -> tuple[str, str] | None:
    """("/name", arguments) when `text` is the plain record 2.1.332 writes for one of
    PLAIN_RECORD_COMMANDS, else None: the name alone, or followed by whitespace. A
    path (`/usr/bin ...`) or any other word after a slash is what the person typed."""
    m = _PLAIN_RE.match(text.strip()) if text.startswith("/") else None
    if m is None or m.group(1) not in PLAIN_RECORD_COMMANDS:
        return None
    return "/" + m.group(1), (m.group(2) or "").strip()


_PLAIN_RE: Final = lazy_pattern(r"\A/([a-z][a-z-]*)(?:\s+(.*))?\Z", re.S)
