"""What the person typed in one user text: the one decision, in one place.

The session builder hands every user text it meets to `typed_text` and keeps
`.text` as a human turn when it is not empty. `.reason` names why text was
dropped or trimmed (an exclusion rule from `exclusions`, or one of the rules
below), `.command` the slash command the turn invoked, if any.

The user slot mixes what the person typed with text a client or the agent
wrote, sometimes inside one message. On several hundred real transcripts the
mixtures were: a slash command's record, whose arguments are the person's
words but whose template body is not; a Codex IDE prompt, where the editor's
context (open tabs, the selection) wraps the request (about a fifth of Codex
turns); a plan the assistant wrote, handed back as "Implement the following
plan:"; and assistant output the person pasted back. Each rule keeps the typed
part rather than dropping the message, because corrections live exactly there.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

import msgspec

from learn.lazy import lazy_pattern
from learn.textfold import fold_line
from learn.transcripts.claude.builtin_commands import plain_command_record
from learn.transcripts.view.exclusions import strip_reminders, text_exclusion
from learn.transcripts.view.prompt_bodies import prompt_body
from learn.transcripts.view.relayed import strip_relayed
from learn.transcripts.view.replay import (
    is_replayed_turn,
    unreplayed_parts,
)


class Typed(msgspec.Struct, frozen=True):
    text: str  # the words the person typed; "" when none
    reason: str | None = None  # why text was dropped or trimmed
    command: str | None = None  # the slash command named, when the turn invoked one

    @property
    def filled(self) -> bool:
        """The words were written into a command or prompt body (`HumanTurn.filled`)."""
        return self.command is not None or self.reason in _FILLED_REASONS


# Rules that keep what was written into a body: a template replayed, a spec prompt's body.
_FILLED_REASONS: Final = frozenset({"replayed-command", "prompt-body", "command-args", "command-body"})


def typed_text(
    raw: str,
    *,
    fingerprints: Sequence[str] = (),
    provider: str = "claude",
    assistant_texts: Sequence[str] = (),
) -> Typed:
    """The words the person typed in `raw`, and why anything else was dropped.

    fingerprints: template fingerprints (`replay.replay_fingerprints`); a turn
      replaying a template keeps only what the template does not cover.
    provider: "codex" unwraps the IDE / app context around the request.
    assistant_texts: the session's assistant messages before this turn; lines
      of them pasted back are not typed.
    """
    text = strip_reminders(raw)
    reasons: list[str] = []
    if provider == "claude" and "<pasted_content" in text:
        text = strip_paste_markers(text)
    if "[Image" in text:  # a substring test first: the regex is for the few that hold one
        bare = strip_image_placeholders(text)
        if bare != text:
            if not bare.strip():
                # Only a picture, no words: no typed turn (see `_IMAGE_PLACEHOLDER_RE`).
                return Typed("", "image-only")
            text = bare
            reasons.append("image-placeholder")
    if provider == "codex":
        unwrapped = unwrap_codex_request(text)
        if unwrapped is not None:
            if not unwrapped:
                return Typed("", "ide-wrapper")  # context only, no request
            text = unwrapped
            reasons.append("ide-wrapper")
    command = slash_command(text)
    if command is None and provider == "claude":
        plain = plain_command_record(text)  # 2.1.332's /review: no tags (builtin_commands)
        command = None if plain is None else (*plain, "")
    if command is not None:
        name, args, body = command
        # A body written into the same message is the template's expansion.
        why = "command-body" if body else "command-args"
        if not args or name.lstrip("/") in CLIENT_SETTING_COMMANDS:
            return Typed("", why if body else "command-tags", name)
        return _finish(args, [why], fingerprints, assistant_texts, name)
    excluded = text_exclusion(text)
    if excluded is not None:
        return Typed("", excluded)
    handoff = split_plan_handoff(text)
    if handoff is not None:
        before, plan, after = handoff
        # The plan is the assistant's; an amendment inside it is found only
        # against the plan file still on disk (read as a template).
        amended = ""
        if fingerprints and is_replayed_turn(plan, fingerprints):
            amended = "\n".join(unreplayed_parts(plan, fingerprints))
        text = "\n".join(p.strip() for p in (before, amended, after) if p.strip())
        reasons.append("plan-handoff")
    return _finish(text, reasons, fingerprints, assistant_texts, None)


def typed_blocks(
    texts: Sequence[str],
    *,
    fingerprints: Sequence[str] = (),
    provider: str = "claude",
    assistant_texts: Sequence[str] = (),
) -> Typed:
    """`typed_text` over the text blocks of one user message, joined.

    Claude Code puts IDE context and reminders in their own blocks beside the
    typed prompt, so each block is decided alone. The session view and the
    detectors both read a message through this, so they agree on its words.
    """
    kept: list[str] = []
    command: str | None = None
    reason: str | None = None
    for text in texts:
        typed = typed_text(text, fingerprints=fingerprints, provider=provider,
                           assistant_texts=assistant_texts)
        command = command or typed.command
        reason = typed.reason or reason
        if typed.text:
            kept.append(typed.text)
    return Typed("\n".join(kept), reason, command)


def _finish(
    text: str,
    reasons: list[str],
    fingerprints: Sequence[str],
    assistant_texts: Sequence[str],
    command: str | None,
) -> Typed:
    if fingerprints and is_replayed_turn(text, fingerprints):
        if command is None:
            # A Codex or OpenCode prompt's body is the whole message, nothing naming
            # the command: the body names it (prompt_bodies), its file on disk or not.
            body = prompt_body(text)
            command = None if body is None else body.command
        parts = unreplayed_parts(text, fingerprints)
        text = "\n".join(_ARGUMENTS_LABEL_RE.sub("", p, count=1) for p in parts)
        reasons.append("replayed-command")
    else:
        # A spec or custom prompt body whose file is not on disk: known by its shape.
        body = prompt_body(text)
        if body is not None:
            text = "\n".join(body.said)
            command = command or body.command
            reasons.append("prompt-body")
    pasted = strip_pasted_output(text, assistant_texts)
    if pasted != text:
        text = pasted
        reasons.append("pasted-output")
    relayed = strip_relayed(text)
    if relayed != text:
        text = relayed
        reasons.append("pasted-agent-report")
    text = text.strip()
    # The last rule that cut something is the reason; "empty" only when none did.
    reason = reasons[-1] if reasons else None
    return Typed(text, reason or (None if text else "empty"), command)


# Claude Code appends "ARGUMENTS: <args>" to a body that has no $ARGUMENTS.
_ARGUMENTS_LABEL_RE: Final = lazy_pattern(r"\AARGUMENTS:[ \t]*")


# ---------------------------------------------------------------- slash commands

_COMMAND_NAME_RE: Final = lazy_pattern(r"<command-name>\s*(.*?)\s*</command-name>", re.S)
_COMMAND_ARGS_RE: Final = lazy_pattern(r"<command-args>(.*?)</command-args>", re.S)
_COMMAND_TAGS_RE: Final = lazy_pattern(
    r"\A\s*(?:<command-(name|message|args)>.*?</command-\1>\s*)+", re.S
)

# Built-in commands whose arguments configure the client (`/model opus`,
# `/resume <id>`, `/add-dir ../lib`): typed, but not said to the agent, so not
# evidence of what the person wants from it.
CLIENT_SETTING_COMMANDS: Final = frozenset({
    "add-dir", "agents", "bashes", "clear", "color", "config", "context", "cost", "doctor",
    "effort", "exit", "export", "fast", "help", "hooks", "ide", "login", "logout", "mcp",
    "memory", "model", "output-style", "permissions", "plugin", "rename", "resume", "rewind",
    "sandbox", "status", "statusline", "tag", "terminal-setup", "theme", "usage", "vim",
})


def slash_command(text: str) -> tuple[str, str, str] | None:
    """(command name with its slash, arguments, body) when `text` opens with the
    record a client writes for a slash command, else None. `body` is whatever
    follows the tags in the same text (some builds inline the expansion).

    Claude Code has written the record in two orders: 1.0.x opened with
    `<command-message>x is running…</command-message>`, 2.x opens with
    `<command-name>/x</command-name>`; `<command-args>` is absent on some
    builds when there were none. The template body is a separate message
    (isMeta on 2.x), never part of this record.
    """
    tags = _COMMAND_TAGS_RE.match(text) if "<command-" in text else None
    if tags is None:
        return None
    head = tags.group(0)
    name = _COMMAND_NAME_RE.search(head)
    if name is None or not name.group(1):
        return None
    args = _COMMAND_ARGS_RE.search(head)
    command = name.group(1)
    return (
        command if command.startswith("/") else "/" + command,
        args.group(1).strip() if args else "",
        text[tags.end() :].strip(),
    )


# ---------------------------------------------------------------- Codex IDE / app wrapper

# The heads the Codex IDE extension and desktop app put before the request,
# and the request headings after them ("## My request:" on newer builds). The
# Codex TUI itself cuts a transcript back to the request after the marker.
_CODEX_WRAPPER_HEADS: Final = (
    "# Context from my IDE setup:",
    "# Files mentioned by the user:",
    "# In app browser:",
    "# Selected text:",
    "## Prior conversation with Codex:",
)
_CODEX_HEAD_RE: Final = lazy_pattern(
    r"^(?:" + "|".join(re.escape(h) for h in _CODEX_WRAPPER_HEADS) + r")[ \t]*$", re.M
)
_CODEX_REQUEST_RE: Final = lazy_pattern(r"^## My request(?: for Codex)?:[ \t]*\n?", re.M)


def unwrap_codex_request(text: str) -> str | None:
    """The request(s) inside a Codex IDE / app wrapper, or None when `text` is not wrapped.

    One message can carry several wrapper blocks, each with its request; each
    request runs to the next wrapper head. A wrapper with no request heading is
    context only: "" (nothing typed). A request heading with no known head before
    it is a wrapper too: clients write it alone ("## My request for Codex: ..." on
    one line), after context of their own ("## Active file: ...", a line saying the
    block is ambient UI state), and the heading stayed in typed turns on real data.
    Whatever comes before the first heading is the client's context.
    """
    body = text.lstrip()
    head = _CODEX_HEAD_RE.match(body)
    if head is None:
        first = _CODEX_REQUEST_RE.search(body)
        if first is None or _in_fence(body, first.start()):
            return None
        body = body[first.start():]
    requests: list[str] = []
    for marker in _CODEX_REQUEST_RE.finditer(body):
        rest = body[marker.end() :]
        nxt = _CODEX_HEAD_RE.search(rest)
        request = (rest[: nxt.start()] if nxt else rest).strip()
        # A later marker inside this request's span belongs to the next block.
        later = _CODEX_REQUEST_RE.search(request)
        if later is not None:
            request = request[: later.start()].strip()
        if request:
            requests.append(request)
    return "\n\n".join(requests)


def _in_fence(text: str, at: int) -> bool:
    """Whether `at` sits inside a fenced code block or a quote (a heading quoted, not written)."""
    before = text[:at]
    line_start = before.rfind("\n") + 1
    return before.count("```") % 2 == 1 or text[line_start:at].lstrip().startswith(">")


# ---------------------------------------------------------------- plan hand-offs

_PLAN_HANDOFF: Final = "Implement the following plan:"
_PLAN_HANDOFF_RE: Final = lazy_pattern(r"^[ \t]*" + re.escape(_PLAN_HANDOFF) + r"[ \t]*$", re.M)
# Claude Code's trailer after the handed-off plan (2.x): where the plan ends.
_PLAN_TRAILER_RE: Final = lazy_pattern(
    r"^[ \t]*If you need specific details from before exiting plan mode\b[^\n]*\n?", re.M
)


def split_plan_handoff(text: str) -> tuple[str, str, str] | None:
    """(before, plan, after) of a plan hand-off, or None when `text` is not one.

    "Implement the following plan:" then the plan the assistant wrote (from
    ExitPlanMode, saved under ~/.claude/plans/) opens the session that carries
    the plan out. The plan is the assistant's; text before the marker and after
    Claude Code's "read the full transcript at" trailer is the person's. With
    no trailer the plan runs to the end.
    """
    # The regex tries every line of every turn; the phrase itself is one scan in C.
    marker = _PLAN_HANDOFF_RE.search(text) if _PLAN_HANDOFF in text else None
    if marker is None:
        return None
    rest = text[marker.end() :]
    trailer = _PLAN_TRAILER_RE.search(rest)
    if trailer is None:
        return text[: marker.start()], rest, ""
    return text[: marker.start()], rest[: trailer.start()], rest[trailer.end() :]


# ---------------------------------------------------------------- pasted agent output

# Claude Code's terminal glyphs: `●`/`⏺` opens an assistant message or tool
# call, `⎿` a tool result, `✻`/`✢`/`✳` a status line. Copied out of the
# terminal they arrive at the head of lines, continuation lines indented.
# (Not `·`: people type it as a bullet.)
_GLYPHS: Final = "●⏺⎿✻✢✳✶✽"
_GLYPH_LINE_RE: Final = lazy_pattern(r"^[ \t]*[●⏺⎿✻✢✳✶✽]\s")
_INDENTED_RE: Final = lazy_pattern(r"^[ \t]+\S")
# Lines shorter than this are phrases anyone types ("ok, do it", "yes").
PASTED_LINE_MIN_CHARS: Final = 24


class AssistantText(list[str]):
    """A session's assistant messages so far, with their folded lines indexed.

    The builder appends as it walks; looking a pasted line up is then one set
    probe, where scanning every earlier message for every line of every turn
    was quadratic in the session's length.
    """

    def __init__(self, texts: Sequence[str] = ()) -> None:
        super().__init__()
        self._lines: set[str] = set()
        # Folded on first need: the messages after a session's last long typed line
        # are never looked up (folding every line was 5% of building a view).
        self._unfolded = 0
        # The lines whose fold is the line lowered, trimmed of its edge spaces (ASCII,
        # no tab, \x1f or double space: most), by the length of that fold, unfolded: a
        # line is folded only when a typed line of its length is looked up, and most
        # lengths never are (callgrind: building the views of the spread and tree bench
        # homes, 250 sessions each, took 0.977x and 0.973x the instructions; their
        # assistant messages are lines of ~300 ASCII characters, and folding each was a
        # copy and a hash).
        self._by_length: dict[int, list[str]] = {}
        for text in texts:
            self.add(text)

    def add(self, text: str) -> None:
        self.append(text)

    def said(self, flat: str) -> bool:
        """Whether `flat`, a folded line of at least PASTED_LINE_MIN_CHARS, is a folded
        line of a message so far."""
        if self._unfolded < len(self):
            self._index()
        waiting = self._by_length.pop(len(flat), None)
        if waiting is not None:
            self._fold_held(waiting)
        return flat in self._lines

    @property
    def lines(self) -> set[str]:
        """The folded lines (of at least PASTED_LINE_MIN_CHARS) of every message so far."""
        self._index()
        for waiting in self._by_length.values():
            self._fold_held(waiting)
        self._by_length.clear()
        return self._lines

    def _fold_held(self, held: list[str]) -> None:
        """Lines `_index` held by length, folded (as `textfold.fold_line` folds them)."""
        self._lines.update([line.strip(" ").lower() for line in held])

    def _index(self) -> None:
        """Take in the messages added since the last look: each line folded now, or
        held by its fold's length (`_by_length`)."""
        shortest = PASTED_LINE_MIN_CHARS
        keep = self._lines.add
        held = self._by_length
        for text in self[self._unfolded :]:
            # Such a text's every line folds to itself lowered and trimmed of spaces
            # (textfold.fold_line): three scans in C decide it for all its lines.
            if text.isascii() and "  " not in text and "\t" not in text and "\x1f" not in text:
                for line in text.splitlines():
                    size = len(line)
                    if size < shortest:
                        continue  # folds no longer
                    if line[0] == " " or line[-1] == " ":
                        size = len(line.strip(" "))
                        if size < shortest:
                            continue
                    waiting = held.get(size)
                    if waiting is None:
                        held[size] = [line]
                    else:
                        waiting.append(line)
                continue
            for line in text.splitlines():
                # An ASCII line shorter than that folds no longer: not folded at all.
                if len(line) < shortest and line.isascii():
                    continue
                flat = fold_line(line)
                if len(flat) >= shortest:
                    keep(flat)
        self._unfolded = len(self)


# Claude Code 2.1.27x on (format-drift audit: 2.1.278 and 2.1.280 transcripts and the
# UserPromptSubmit docs of late 2026) marks pasted text for the model: the paste,
# expanded from its `[Pasted text #1]` placeholder, sits between a line
# `<pasted_content id="7c1e">` and a line `</pasted_content id="7c1e">` in the typed
# message. The marker lines are the client's, and were kept as the person's words (a
# turn read `<pasted_content id="7c1e">` then the paste); a message opening with one
# was even taken for a program's envelope in a headless session
# (`exclusions.is_program_envelope`). What was pasted stays: a dictation tool pastes
# what the person said, and agent output pasted back is cut by the rules after this.
_PASTE_MARKER_RE: Final = lazy_pattern(
    r'^[ \t]*</?pasted_content(?:[ \t]+id="[^"\n]{0,64}")?>[ \t]*(?:\r?\n|\Z)', re.M)


def strip_paste_markers(text: str) -> str:
    """`text` without the lines Claude Code wraps pasted text in, what was pasted kept."""
    return _PASTE_MARKER_RE.sub("", text)


# Claude Code (and the Codex TUI) put `[Image #1]`, `[Image #2]`... in the typed text
# where the person pasted a picture; the picture is its own content block. The token is
# the client's, numbered per session or per prompt, not the person's words (format-drift
# audit: "[Image #1] text", "[Image #1]text", "text [Image #2]", "[Image #1] [Image #2]
# compare these", "[Image #1]  text" with two spaces, and a prompt of "[Image #3]"
# alone, in 2.1.x transcripts and clients' own test fixtures). Kept, it was quoted as
# typed, and two prompts that differ only in which picture they name were two prompts.
# Cut here, once, so quotes, mining and every comparison read the same words; the
# spaces on one side go with it ("look at [Image #1] and this" -> "look at and this",
# "with [Image #2], then" -> "with, then").
# A prompt that is only placeholders is no typed turn: the person said nothing there
# to quote, mine or count, and kept as its token, "[Image #1]" alone in many sessions
# read as one prompt a program repeats (a scripted prompt's shape, `templates`).
# A token that is an attribute's value (Codex's `<image name=[Image #1] path=...>` context
# line) is left to whatever reads that line.
# A match starts where a run of spaces starts, never inside one: a text with a token and
# a long run of spaces elsewhere is one pass, not a pass per space.
#
# Claude Code also names the file a pasted or attached picture came from: `[Image: source:
# <path>]` (its image cache, `~/.claude/image-cache/<session>/<n>.png`, or the file dragged
# in; `C:\\Users\\...` on Windows, spaces in the name kept), and after a picture it shrank,
# `[Image: original 2100x2100, displayed at 2000x2000. Multiply coordinates by 1.05 to map
# to original image.]`, or the two in one block; one it did not shrink, `[Image source:
# <path>]` in the builds whose image note readers reimplement (taken only before a path:
# `/`, `~`, `.`, a drive, a share). Mostly on an isMeta row of its own after
# the prompt (2.1.x), which is never typed; but readers' fixtures and notes built from real
# sessions hold it on the prompt's own row too: a text block `[Image: source: /tmp/a.png]`
# beside the image block, and in the typed text itself, before the words ("[Image: source:
# .../9.png] Do you know why nothing appears?"), after them ("check this [Image: source:
# ...\\1.png]") and several in a row. There it was read as typed: a file path quoted as the
# person's words, a prompt of only the picture a typed turn. The same token: cut the same
# way, the words around it kept. A `]` inside the path is kept when words follow it, not a
# space or the line's end. The path is bounded (1,024 characters: longer than any cache
# path) and ends before another `[Image`, so a line of unclosed openings is one pass. A
# token once found is kept whole (an atomic group): what follows it never makes it end at
# an earlier `]` of its path (`/app/[id]/shot.png`).
_IMAGE_TOKEN: Final = (
    r"(?<!=)(?>\[Image(?: #\d{1,6}"
    r"|(?:: source: |(?= source: (?:[/~.]|[A-Za-z]:[\\/]|\\\\)) source: )"
    r"(?:[^\n\]\[]|\[(?!Image)|\](?![ \t]|\r?\n|\Z)){1,1024}"
    r"|: original \d{1,6}x\d{1,6}, displayed at \d{1,6}x\d{1,6}\.[^\n\]]{0,200})\])")
_IMAGE_PLACEHOLDER_RE: Final = lazy_pattern(
    rf"(?<![ \t])[ \t]*{_IMAGE_TOKEN}(?=[ \t]*(?:\r?\n|\Z)|[^\w\s\[])"
    rf"|{_IMAGE_TOKEN}[ \t]*")


def strip_image_placeholders(text: str) -> str:
    """`text` without the tokens a client writes where a picture was pasted: `[Image #N]`,
    and the `[Image: source: ...]` / `[Image: original ...]` blocks that name its file."""
    return _IMAGE_PLACEHOLDER_RE.sub("", text)


def strip_pasted_output(text: str, assistant_texts: Sequence[str] = ()) -> str:
    """`text` without the agent output pasted into it.

    A line is pasted when it opens with a Claude Code UI glyph (with the
    indented lines that continue it), or when, folded, it is a line of at least
    PASTED_LINE_MIN_CHARS that is a whole line of an earlier assistant message
    (copying from the terminal or the editor panel copies whole lines). Two
    exceptions keep what the person wrote: a line equal to an assistant line
    that is not part of a pasted block, when it is a short sentence typed as the
    whole turn or a line of the person's own code the assistant had quoted; and
    a question typed after a tool-status line, on that line.
    """
    if not text:
        return text
    lines = text.splitlines()
    if not isinstance(assistant_texts, AssistantText):
        assistant_texts = AssistantText(assistant_texts)
    # One loop: a line is folded and looked up only when it can be long enough to
    # be pasted (an ASCII line shorter than PASTED_LINE_MIN_CHARS folds no longer;
    # only a non-ASCII casefold can lengthen), and the messages are read only when
    # one is (`AssistantText.said` folds what it needs).
    shortest = PASTED_LINE_MIN_CHARS
    matched: list[bool] = []
    pasted = False
    # Before the agent's first message no line can be one of its lines: nothing is
    # folded (a session's opening prompt, 14 KB in a memory plugin's observer
    # sessions: 0.018 s of the tree bench home's first listing).
    for line in lines if len(assistant_texts) else ():
        if len(line) < shortest and line.isascii():
            matched.append(False)
            continue
        flat = fold_line(line)
        if len(flat) < shortest:
            matched.append(False)
            continue
        hit = assistant_texts.said(flat)
        matched.append(hit)
        pasted = pasted or hit
    if not matched:
        matched = [False] * len(lines)
    # Most turns hold no glyph at all: one scan of the text spares two per line, and
    # an ASCII text (most: a flag, no scan) holds none of these.
    glyphs = not text.isascii() and any(g in text for g in _GLYPHS)
    if not glyphs and not pasted:
        return text  # nothing below could drop a line: the walk over them is skipped
    keep: list[str] = []
    in_glyph_block = False
    dropped = False
    for i, line in enumerate(lines):
        glyph = _GLYPH_LINE_RE.match(line) if glyphs else None
        mid = None if glyph or not glyphs else _MID_GLYPH_RE.search(line)
        if glyph or mid:
            # From the glyph on the line is the terminal's (a paste joined onto the
            # person's words: "it says ⏺ Bash(npm test) ⎿ 3 failed"); a question
            # typed after the status, on the same line, is theirs.
            in_glyph_block = True
            dropped = True
            before = line[: mid.start()].rstrip() if mid else ""
            asked = question_after_status(line[mid.start():] if mid else line)
            kept_here = " ".join(p for p in (before, asked) if p)
            if kept_here:
                keep.append(kept_here)
            continue
        if in_glyph_block and (not line.strip() or _INDENTED_RE.match(line)):
            continue
        in_glyph_block = False
        if matched[i] and _pasted(lines, matched, i):
            dropped = True
            continue
        keep.append(line)
    return "\n".join(keep).strip() if dropped else text


# A glyph inside a line, after the person's words (a space before it, one after).
_MID_GLYPH_RE: Final = lazy_pattern(r"(?<=\S)[ \t]+[●⏺⎿][ \t]")
# A tool-status line with a question typed after it on the same line:
# "⏺ Bash(pytest -x) why does this hang?", "⎿  Found 3 files  which one is stale?".
_AFTER_CALL_RE: Final = lazy_pattern(r"^[ \t]*[●⏺⎿]\s+[\w.:-]+\([^()\n]*\)\s+(\S[^\n]*\?)\s*$")
# Where the status stops and the typed question starts: after the last run of two
# spaces or closing mark, or else at a question word (not a verb a status line uses).
_BOUNDARY_RE: Final = lazy_pattern(r"[ \t]{2,}|(?<=[.:;)\]…])[ \t]+")
_WH_QUESTION_RE: Final = lazy_pattern(r"[ \t]((?:why|what|how|where|which|who|when|whose)\b[^\n?]*\?)[ \t]*$",
                                    re.I)
# A typed question has words; "why?" after a status cannot be told from its output.
_QUESTION_MIN_WORDS: Final = 3


def question_after_status(line: str) -> str | None:
    """The question typed after a pasted tool-status line, on the same line, or None."""
    called = _AFTER_CALL_RE.match(line)
    if called:
        return called.group(1)
    body = _GLYPH_LINE_RE.sub("", line, count=1).strip()
    if not body.endswith("?"):
        return None
    cuts = [m.end() for m in _BOUNDARY_RE.finditer(body)]
    wh = _WH_QUESTION_RE.search(body)
    start = max(cuts[-1] if cuts else 0, wh.start(1) if wh else 0)
    question, status = body[start:].strip(), body[:start].strip()
    return question if status and len(question.split()) >= _QUESTION_MIN_WORDS else None


# A line equal to an assistant line is pasted only when it is long: a short one
# is typed again. Amid the person's own lines, a line of code is theirs whatever its
# length (the assistant had quoted it), and a short line is theirs unless it keeps
# the assistant's sentence ending: a choice typed back ("run the migrations first",
# on real sessions lost as pasted) has none, a sentence copied to comment on does.
PASTED_ALONE_MIN_CHARS: Final = 60
_CODE_LINE_RE: Final = lazy_pattern(r"[=(){}\[\];]|^\s{2,}\S")
_SENTENCE_END_RE: Final = lazy_pattern(r"[.!:。！][\"')\]]*\s*$")


def _pasted(lines: list[str], matched: list[bool], i: int) -> bool:
    neighbours = [j for j in (_near(lines, i, -1), _near(lines, i, 1)) if j is not None]
    if any(matched[j] or _GLYPH_LINE_RE.match(lines[j]) for j in neighbours):
        return True  # part of a pasted block
    if len(fold_line(lines[i])) >= PASTED_ALONE_MIN_CHARS:
        return not (neighbours and _CODE_LINE_RE.search(lines[i]))
    return bool(neighbours) and not _CODE_LINE_RE.search(lines[i]) and \
        _SENTENCE_END_RE.search(lines[i]) is not None


def _near(lines: list[str], i: int, step: int) -> int | None:
    j = i + step
    while 0 <= j < len(lines) and not lines[j].strip():
        j += step
    return j if 0 <= j < len(lines) else None
