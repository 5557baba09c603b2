"""Writing a command from everything the person asked: the body of a slash command.

Work the person keeps asking for by name becomes a command (`.claude/commands/
<name>.md`). On two real projects run end to end, the command's body was one
specific quote of the group (a 300-character plan rejection; "check X's original
logic") while the general ask, said in two other sessions, sat unused in the same
group. A quote is one occasion; the command is the ask behind all of them. So a
model writes the body from every quote of the group (`write_commands`, prompt
`command`): an instruction for the agent, with `$ARGUMENTS` where the asks vary.
The quotes stay in the digest as the evidence. The one-line description written with
the body, "for the command list (under 80 characters)", is the command file's
(`Proposal.command_description`, learn.report.apply.edit_for): it was thrown away and
the front matter took the judge's summary cut at 80 columns (found on real Claude Code
sessions).

Only requests the judge accepted get a body (a rejected request is never a
command). A body that copies one quote, or is empty, is refused and the item asked
once more alone; still refused, the proposal has no body and `learn apply` says
so instead of writing one. A body over 2,000 characters is asked for once more,
shorter; still too long, it is not kept either, nor one remembered that long
(learn.reduce.command_body, which `learn apply` and the digest ask too).
Bodies are remembered as verdicts of role "command" keyed by the group's quotes
(learn.reduce.protocols.VerdictMemory), the description as their rationale: the same
group asks no model again; a new quote, and the body is written again.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from learn.models.base import Backend, CallUsage, ModelError, ModelRequest, ToolSpec
from learn.models.call import call_tool
from learn.models.items import flatten, format_items
from learn.records.proposal import Proposal, Verdict
from learn.reduce.answers import RowsAnswer, rows_schema, valid_rows
from learn.reduce.command_body import MAX_BODY_CHARS, body_too_long
from learn.textfold import fold

if TYPE_CHECKING:
    from learn.reduce.protocols import VerdictMemory

ROLE = "command"
MAX_ITEMS_PER_CALL = 8
MAX_QUOTES = 12  # distinct quotes per item, most recent first
QUOTE_CHARS = 300
TOKENS_PER_COMMAND = 400
# A body this much of which is one quote's words, in order, copies that quote.
COPY_SHARE = 0.8

WRITE_COMMANDS = ToolSpec(
    name="write_commands",
    description="Write a slash command for every item: a one-line description and the "
                "instruction the agent follows.",
    input_schema=rows_schema(
        "commands",
        {"id": {"type": "integer"}, "description": {"type": "string"},
         "body": {"type": "string"}},
        required=["id", "description", "body"],
    ),
)


class CommandsAnswer(RowsAnswer):
    commands: list[object] = Field(default_factory=list)


class _Row(BaseModel):
    id: int
    description: str
    body: str


@dataclass(frozen=True, slots=True)
class CommandsResult:
    proposals: tuple[Proposal, ...]
    written: int = 0  # bodies a model wrote this run
    reused: int = 0  # bodies remembered from an earlier run
    calls: int = 0
    usage: CallUsage = field(default_factory=CallUsage)
    failures: tuple[str, ...] = ()


def wants_body(p: Proposal) -> bool:
    """An accepted request (or a procedure escalated to a command) without a body yet."""
    if p.command_body:
        return False
    is_command = p.kind == "request" or p.surface == "command"
    return is_command and p.verdict is not None and p.verdict.accepted


def quotes_of(p: Proposal) -> list[str]:
    """The group's distinct quotes, newest first, at most MAX_QUOTES."""
    ordered = sorted(p.quotes, key=lambda q: q.at or "", reverse=True)
    return list(dict.fromkeys(flatten(q.text, QUOTE_CHARS) for q in ordered))[:MAX_QUOTES]


def memory_key(p: Proposal) -> str:
    """The proposal's key and a hash of its quotes: a new quote asks for a new body."""
    digest = hashlib.sha256("\0".join(sorted(fold(q) for q in quotes_of(p))).encode()).hexdigest()
    return f"{p.key}#{digest[:16]}"


def describe(p: Proposal) -> str:
    sessions = f"asked in {p.sessions} session{'s' if p.sessions != 1 else ''}"
    asks = " | ".join(f'"{q}"' for q in quotes_of(p))
    return f"{p.label}: {sessions}: {asks}"


def copies_a_quote(body: str, quotes: Sequence[str]) -> bool:
    """Whether `body` is one quote (or most of one) rather than an instruction of its own."""
    b = fold(body).strip(" .!\"'")
    if not b:
        return True
    for q in quotes:
        f = fold(q).strip(" .!\"'")
        if not f:
            continue
        if b == f or (len(b) <= len(f) and b in f) or (f in b and len(f) >= COPY_SHARE * len(b)):
            return True
    return False


def _ask(backend: Backend, model: str, prompt_text: str, items: list[Proposal],
         note: str = "") -> tuple[dict[int, _Row], CallUsage, str | None]:
    lines = [(n, "request", describe(p) + note) for n, p in enumerate(items)]
    request = ModelRequest(step="command", model=model, system=prompt_text, tool=WRITE_COMMANDS,
                           user=format_items(lines, limit=None),
                           max_tokens=256 + TOKENS_PER_COMMAND * len(items))
    try:
        parsed, response = call_tool(backend, request, CommandsAnswer)
    except ModelError as exc:
        return {}, CallUsage(), str(exc)
    rows: dict[int, _Row] = {}
    for row in valid_rows(parsed.commands, _Row):
        if 0 <= row.id < len(items) and row.id not in rows:
            rows[row.id] = row
    return rows, response.usage, None


def write_commands(proposals: Sequence[Proposal], *, backend: Backend | None, model: str,
                   memory: VerdictMemory | None = None,
                   prompt_version: int | None = None) -> CommandsResult:
    """Give each accepted request a body written from all of its quotes (see the module doc)."""
    out = list(proposals)
    todo = [i for i, p in enumerate(out) if wants_body(p)]
    if not todo:
        return CommandsResult(tuple(out))
    from learn.prompts import load_prompt

    prompt = load_prompt(ROLE)
    version = prompt.version if prompt_version is None else prompt_version
    reused = 0
    ask: list[int] = []
    for i in todo:
        found = memory.get(memory_key(out[i]), ROLE, version) if memory is not None else None
        # A remembered body is a stored one (a shared database, a hand edit): one too long
        # to write is asked for again rather than carried to the proposal.
        if found is not None and found.summary and body_too_long(found.summary) is None:
            # Its description comes back with it (kept as the remembered rationale).
            out[i] = dataclasses.replace(out[i], command_body=found.summary,
                                         command_description=found.rationale.strip() or None)
            reused += 1
        else:
            ask.append(i)
    if backend is None or not ask:
        return CommandsResult(tuple(out), reused=reused)
    usage = CallUsage()
    calls = written = 0
    failures: list[str] = []
    queue = [(ask[s : s + MAX_ITEMS_PER_CALL], "") for s in range(0, len(ask), MAX_ITEMS_PER_CALL)]
    retried: set[int] = set()
    while queue:
        batch, note = queue.pop(0)
        calls += 1
        rows, used, error = _ask(backend, model, prompt.text, [out[i] for i in batch], note)
        usage = usage + used
        if error is not None:
            failures.append(f"command: {len(batch)} command(s) left without a body: {error}")
            continue
        for n, i in enumerate(batch):
            row = rows.get(n)
            p = out[i]
            body = row.body.strip() if row is not None else ""
            copied = row is not None and copies_a_quote(body, quotes_of(p))
            long = body_too_long(body)
            if row is None or copied or long is not None:
                if i not in retried:
                    retried.add(i)
                    why = ("; your earlier body copied one quote: write one instruction that "
                           "covers every ask" if copied else
                           f"; your earlier body was {len(body):,} characters: keep it under "
                           f"{MAX_BODY_CHARS:,}" if long is not None else "")
                    queue.append(([i], why))
                elif long is not None:
                    failures.append(f"command: {p.key}: {long}")
                else:
                    failures.append(f"command: {p.key} got no body of its own (a copy of one "
                                    "quote, or none); `learn apply` will not write it")
                continue
            # The description was asked for the command list: the command file's front
            # matter takes it (learn.report.apply.edit_for), not the judge's summary cut.
            description = flatten(row.description)
            out[i] = dataclasses.replace(p, command_body=body,
                                         command_description=description or None)
            written += 1
            if memory is not None:
                import numpy as np

                memory.record(memory_key(p), ROLE, version,
                              Verdict(True, body, "command", p.verdict.scope if p.verdict
                                      else "project", 1.0, rationale=description),
                              np.zeros(1, dtype=np.float32))
    return CommandsResult(tuple(out), written, reused, calls, usage, tuple(failures))
