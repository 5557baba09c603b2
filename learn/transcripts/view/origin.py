"""Who started a session: a person (interactive) or a program (programmatic).

A file names its client: Claude Code writes `entrypoint` on every entry ("cli",
"claude-vscode", … for a person's client; "sdk-cli", "sdk-py", "sdk-ts" for the
Agent SDK and `claude -p`), Codex writes `originator`/`source` in its
session_meta ("codex_cli_rs", "codex_vscode", "Codex Desktop" vs "codex_exec" /
"exec"). OpenCode and Copilot CLI name none, but mark their headless runs: an
`opencode run` session carries the permission rules `run` sets ("opencode-run"),
a `copilot -p` session's system message says it runs non-interactively
("copilot-prompt"). A headless client alone does not make a session a program's: a person
types `claude -p "fix the flaky test"` by hand. So the origin is a judgement from
several signals, and the evidence that decided it travels with the session
(`Session.origin_evidence`, shown by `learn show`):

- the client: interactive clients are a person, headless ones need corroboration;
- the opening prompt's shape across sessions (`skeleton`, `scripted`): a headless
  session opened by a template or a prompt shared with other sessions, or by the
  same slash command that opens other headless sessions (a shell loop), is a
  program's;
- the project directory: a plugin's background sessions run in a directory of
  their own where no person works, opened by long generated prompts;
- a reply typed within the session that is no template's: a person was there
  (an app built on the SDK relaying its user), so it stays interactive. A later
  message opening with an envelope tag no client writes is never one, and is not
  even read (`exclusions.is_program_envelope`: a memory plugin's observations).

A file that names no client (Claude Code before 2.1.2x) is judged from what it
says itself (`machine_signals`): a prompt handed in through the queue makes it
headless, to be corroborated as above; a command body saying a script runs it, or
a generated opening prompt, corroborates; and the same prompt opening several
sessions at a machine's rhythm with no reply is a program's schedule.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from typing import Final

import msgspec

from learn.transcripts.view.machine_signals import (
    GENERATED_OPENING,
    QUEUED_OPENING,
    SCRIPTED_BODY,
    every,
    scheduled,
    signal_detail,
)
from learn.transcripts.view.model import SessionOrigin

# Clients that run without a person at a prompt (lower-cased).
HEADLESS_CLIENTS: Final = frozenset({"sdk-cli", "sdk-py", "sdk-ts", "sdk", "codex_exec", "exec", "mcp",
                                     "opencode-run", "copilot-prompt"})
# A loop opens many sessions with the same command; a person running one by hand
# a couple of times is not a loop.
LOOP_MIN_SESSIONS: Final = 3
# A plugin's own directory: at least this many headless sessions and no
# interactive one, opened by prompts at least this long (generated text).
PLUGIN_DIR_MIN_SESSIONS: Final = 3
GENERATED_PROMPT_CHARS: Final = 300


def is_headless(entrypoint: str | None) -> bool:
    if not entrypoint:
        return False
    name = entrypoint.casefold()
    return name in HEADLESS_CLIENTS or name.startswith("sdk-")


def session_headless(entrypoint: str | None, signals: Sequence[str]) -> bool:
    """Run without a person at a prompt: a headless client, or none named and the file
    saying so (`machine_signals`: the prompt handed in through the queue, or a command
    body written for a script)."""
    return is_headless(entrypoint) or (not entrypoint and (
        signal_detail(signals, QUEUED_OPENING) is not None
        or signal_detail(signals, SCRIPTED_BODY) is not None))


class OriginFacts(msgspec.Struct, frozen=True):
    """What one session says about who started it (`scripted.machinery` fills it)."""

    session_id: str
    project: str | None
    entrypoint: str | None
    # Other sessions whose prompts share the opening prompt's template (0: none).
    opening_shared: int = 0
    opening_command: str | None = None  # the slash command the opening turn ran
    opening_text: str | None = None  # the opening turn, folded (a script's ping repeats it)
    opening_chars: int = 0
    # A turn typed after the opening one that no template or repeat explains.
    free_reply: bool = False
    # What the file says of itself (`Session.signals`) and when it was opened.
    signals: tuple[str, ...] = ()
    started_at: datetime | None = None

    @property
    def headless(self) -> bool:
        """Run without a person at a prompt: a headless client, or none named and the
        prompt handed in through the queue."""
        return session_headless(self.entrypoint, self.signals)


def judge_origins(facts: Sequence[OriginFacts]) -> dict[str, tuple[SessionOrigin, tuple[str, ...]]]:
    """Each session's origin with its evidence, the deciding reason first."""
    headless = [f for f in facts if f.headless]
    loops = Counter(f.opening_command for f in headless if f.opening_command)
    pings = Counter(f.opening_text for f in headless if f.opening_text and not f.opening_command)
    per_project = Counter(f.project for f in headless)
    people_in = {f.project for f in facts if not f.headless}
    schedules = _schedules(facts)
    out: dict[str, tuple[SessionOrigin, tuple[str, ...]]] = {}
    for f in facts:
        if not f.headless:
            client = (f"client {f.entrypoint!r}: an interactive client" if f.entrypoint
                      else "no client named in the file: read as interactive")
            if f.session_id in schedules:
                out[f.session_id] = ("programmatic", (schedules[f.session_id],
                                                      "no client named in the file"))
            else:
                out[f.session_id] = ("interactive", (client,))
            continue
        if is_headless(f.entrypoint):
            client = (f"client {f.entrypoint!r}: headless (Agent SDK, `claude -p`, `codex exec`, "
                      "`opencode run` or `copilot -p`)")
        elif signal_detail(f.signals, QUEUED_OPENING) is not None:
            client = ("no client named, and the file opens with a queue-operation: the prompt "
                      "was handed in (`claude -p`, the Agent SDK), not typed at the prompt")
        else:
            client = "no client named in the file"
        signals: list[str] = []
        if f.opening_shared:
            signals.append(f"opening prompt follows a template shared with "
                           f"{f.opening_shared} other session(s)")
        if f.opening_command and loops[f.opening_command] >= LOOP_MIN_SESSIONS:
            signals.append(f"opened by {f.opening_command} like {loops[f.opening_command] - 1} "
                           "other headless session(s): a loop")
        if (not f.opening_command and f.opening_text
                and pings[f.opening_text] >= LOOP_MIN_SESSIONS):
            signals.append(f"opened by the same prompt as {pings[f.opening_text] - 1} other "
                           "headless session(s): a script")
        if (f.project not in people_in and per_project[f.project] >= PLUGIN_DIR_MIN_SESSIONS
                and f.opening_chars >= GENERATED_PROMPT_CHARS):
            signals.append(f"its directory holds only headless sessions "
                           f"({per_project[f.project]}), opened by long generated prompts")
        said = signal_detail(f.signals, SCRIPTED_BODY)
        if said:
            signals.append(f"the command it ran says a program runs it: \u201c{said}\u201d")
        if signal_detail(f.signals, GENERATED_OPENING) is not None:
            signals.append("its opening prompt is a list of findings a tool generated, "
                           "with nothing typed around it")
        if f.free_reply:
            out[f.session_id] = ("interactive", (
                "a reply typed within the session that no template explains: a person was there",
                client, *signals))
        elif signals:
            out[f.session_id] = ("programmatic", (*signals, client))
        else:
            out[f.session_id] = ("interactive", (
                "a one-off prompt, not a template or a loop: typed by a person", client))
    return out


def _schedules(facts: Sequence[OriginFacts]) -> dict[str, str]:
    """Sessions naming no client, opened by one prompt at a machine's rhythm, none of
    them answered: {session id: the evidence}. A person opening sessions with the same
    words does it at no fixed step, and answers in some of them."""
    groups: dict[str, list[OriginFacts]] = {}
    for f in facts:
        if not f.entrypoint and not f.headless and f.opening_text and f.started_at is not None:
            groups.setdefault(f.opening_text, []).append(f)
    out: dict[str, str] = {}
    for group in groups.values():
        if len(group) < LOOP_MIN_SESSIONS or any(f.free_reply for f in group):
            continue
        step = scheduled([f.started_at for f in group if f.started_at is not None])
        if step is None:
            continue
        said = (f"opened by the same prompt as {len(group) - 1} other session(s), one every "
                f"{every(step)}, none of them answered: a program's schedule")
        out.update((f.session_id, said) for f in group)
    return out
