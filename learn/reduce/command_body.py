"""How long a command's instruction may be: the one cap `learn run`, the digest and
`learn apply` ask (learn.reduce.commands writes the bodies, learn.report writes them out).

A command's body is read only when the command is typed, so it may be longer than a
rule line (learn.report.edits.MAX_RULE_CHARS), but not without bound: a model's answer or
a stored proposal's body (a shared team database, a hand edit) of kilobytes went whole
into `.claude/commands/<name>.md` or `~/.codex/prompts/<name>.md`, behind a diff nobody
reads to its end. Measured: the bodies of the eval corpora and the answer recorded in
cache/write_commands are 71 to 190 characters, and the writer is given 400 output tokens
for each (learn.reduce.commands.TOKENS_PER_COMMAND, ~1,600 characters of English); the
hand-written commands of anthropics/claude-code are 789 to 5,955 characters, much of it
`allowed-tools`, `!` lines and code fences, which learn never writes (prose only). 2,000
is ten times the longest real body and more than the writer's allowance. A longer one is
not written rather than cut: a procedure cut short loses its last steps ("…, then run
the tests before you push") and the agent follows what is left as the whole of it.

Counted on the body as stored (stripped), not on the prose `learn apply` makes of it:
the stage that writes bodies sits below the report's prose (tests/test_architecture.py),
and one count everywhere keeps the three in agreement; making a body prose changes its
length by a few characters at most (a tag put in a code span), against a cap ten times
the longest real body.
"""

from __future__ import annotations

from typing import Final

MAX_BODY_CHARS: Final = 2_000


def body_too_long(body: str) -> str | None:
    """Why `body` is not written as a command's instruction (over MAX_BODY_CHARS), None
    when it is short enough."""
    length = len(body.strip())
    if length <= MAX_BODY_CHARS:
        return None
    return (f"its instruction is {length:,} characters, over the {MAX_BODY_CHARS:,} of a "
            "command; learn does not write it (`learn apply --edit` to word it shorter)")
