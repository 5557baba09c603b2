"""`learn show SESSION`: one session as learn sees it.

What you typed is highlighted; tool calls are dim; failures are red; denials and
interrupts are marked. The conversation shown is the active branch; a turn you
typed somewhere else (a branch you rewound away from, a message queued while a
tool ran, a `/btw` side question) is shown where you typed it and marked
"off the active branch": it is still yours, and learn reads it. A turn a resumed or
forked session copied from an older one is marked "copied from session …": it counts
in the session it was typed in, not in this one. If something you
said is missing here, no later stage can find it, which makes this the first
place to look when a run surprises you. Secrets are redacted as in everything
learn sends or stores (people paste this output); `--reveal` shows them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click
from msgspec.structs import replace

from learn.transcripts.files.discover import Discovery, HeadReader, SessionFile, scan
from learn.transcripts.files.listing import SkippedFile, codex_name_id
from learn.transcripts.files.sources import in_store
from learn.transcripts.view.model import (
    Denial,
    HumanTurn,
    Interrupt,
    Session,
    ToolCall,
    ToolFailure,
    reading_order,
)
from learn.visible import inert_json

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from datetime import datetime

    from learn.report.styled_print import Piece
    from learn.store.session_index import SessionIndex
    from learn.transcripts.models import TranscriptEvent
    from learn.transcripts.templates.entries import Entry
    from learn.transcripts.templates.keys import Keys


class _NamesNone(click.ClickException):
    """An id that names no one session (none, or several): a usage error (exit 2), as a
    `--project` folder that does not exist is; a session that cannot be read is a failure."""

    exit_code = 2


def resolve_session(ref: str, heads: HeadReader | None = None) -> tuple[Path, SessionFile | None]:
    """A path, a full session id, or a unique id prefix -> the transcript path."""
    if not ref.strip():
        raise _NamesNone("give a session id, a unique id prefix, or a path")
    candidate = Path(ref).expanduser()
    if candidate.is_file() or in_store(candidate):
        return candidate, None
    # The file name decides cheaply; a Codex rollout's id is its session_meta id, which
    # may differ from its file name (the id `learn sessions` prints): then every head
    # is read (through the session index, so a warm lookup opens no file).
    found = scan(all_projects=True, id_prefix=ref, heads=heads)
    matches = list(found.files)
    skipped = list(found.skipped_files)
    if not any(f.session_id.startswith(ref) for f in matches):
        everything = _scan_all(heads)
        matches += [f for f in everything.files if f.session_id.startswith(ref) and f not in matches]
        skipped += everything.skipped_files
    matches = [f for f in matches if f.session_id.startswith(ref)]
    exact = [f for f in matches if f.session_id == ref]
    if exact:
        return exact[0].path, exact[0]
    if not matches:
        unreadable = _unreadable_named(ref, skipped)
        if unreadable:
            raise click.ClickException(
                "\n".join(f"cannot read {s.path}: {s.detail or 'unreadable'}" for s in unreadable)
                + (f"\n(its name matches {ref!r}; `learn sessions --json` lists it as skipped)"
                   if len(unreadable) == 1 else f"\n(their names match {ref!r}; `learn "
                   "sessions --json` lists them as skipped)"))
        raise _NamesNone(
            f"no session matches {ref!r} (looked for a file, then a session id or prefix "
            "in every project; run `learn sessions --all-projects`)"
        )
    if len(matches) > 1:
        listed = "\n".join(f"  {m.session_id}  {m.project or '?'}" for m in matches[:10])
        more = f"\n  … and {len(matches) - 10} more" if len(matches) > 10 else ""
        raise _NamesNone(f"{ref!r} matches {len(matches)} sessions; give more of the id (or "
                         f"all of it), as `learn sessions` prints it:\n{listed}{more}")
    return matches[0].path, matches[0]


def _scan_all(heads: HeadReader | None) -> Discovery:
    if heads is not None:
        return scan(all_projects=True, heads=heads)
    from learn.index.indexed import CachedHeads
    from learn.store import open_store

    with open_store(local_only=True) as local:
        index = local.index
        heads = CachedHeads(index)
        found = scan(all_projects=True, heads=heads)
        heads.save()
    return found


def _unreadable_named(ref: str, skipped: list[SkippedFile]) -> list[SkippedFile]:
    """The files discovery could not read whose name gives an id starting with `ref`:
    `learn show <id>` of a transcript it cannot open said "no session matches", when
    only its full path said "Permission denied"."""
    out: list[SkippedFile] = []
    for s in skipped:
        name_id = s.session_id or codex_name_id(s.path) or s.path.name.split(".")[0]
        if s.reason == "unreadable" and name_id.startswith(ref) and s not in out:
            out.append(s)
    return out


# Where a turn is in its session: the same turn in the view before and after its project's
# judgement, and after redaction (which makes new turns).
Place = tuple[int, "datetime | None", bool]


def load_view(path: Path, file: SessionFile | None, *, include_programmatic: bool = False,
              index: SessionIndex | None = None, heads: HeadReader | None = None) -> Session:
    """The session view of the file at `path`, judged with its project's sessions."""
    return _load(path, file, include_programmatic=include_programmatic, index=index,
                 heads=heads)[0]


def _load(path: Path, file: SessionFile | None, *, include_programmatic: bool = False,
          index: SessionIndex | None = None, heads: HeadReader | None = None,
          ) -> tuple[Session, Sequence[TranscriptEvent], Session, dict[Place, str]]:
    """`load_view`'s view, the events it was built from (the redaction reads them for
    what the view withheld: a password given in answer to the agent, typed again later,
    learn.render.session_values.note_answers), the view before it was judged with
    its project's sessions (what that judgement cut is said: `_repeated_note`), and the
    turns it copied from an older one of them (`copied_from`)."""
    from learn.transcripts.files.listing import (
        aside_paths_for,
    )
    from learn.transcripts.parser import parse
    from learn.transcripts.templates.scripted import without_project_prompts
    from learn.transcripts.view.many import read_asides
    from learn.transcripts.view.replay_files import (
        FingerprintCache,
    )
    from learn.transcripts.view.session import build_session
    from learn.windows_names import not_opened

    try:
        transcript = parse(path)
    except OSError as exc:
        raise click.ClickException(f"cannot read {path}: {exc.strerror or exc}") from None
    # Fingerprints need the project; for a bare path it is read from the file.
    project = file.project if file is not None else _cwd_of(transcript)
    # A folder on a share is never read: its server is asked, with your login.
    fingerprints = FingerprintCache().for_project(
        None if project and not_opened(project) else project)
    view = build_session(
        transcript,
        fingerprints=fingerprints,
        subagent_paths=file.subagent_paths if file is not None else (),
        asides=read_asides(file.aside_paths if file is not None else aside_paths_for(path)),
    )
    if view.project is None and project is not None:
        view = replace(view, project=project)  # a Gemini CLI folder matched by discovery
    # Show it as a run reads it: judged with the other sessions of its project
    # (origin, templates, prompts repeated across them), their turns from the
    # index where it has them, not from every file's head (issue 21).
    if view.project and not_opened(view.project) is not None:
        # Its project's other sessions are found by looking at its folder (discovery's
        # scan resolves it): a share's is never looked at, so it is judged alone.
        return without_project_prompts(view, fingerprints, others=(),
                                       include_programmatic=include_programmatic), \
            transcript.events, view, {}
    from learn.transcripts.templates.keys import Keys

    others: Sequence[Session | Entry]
    keys = Keys()
    if index is not None and heads is not None:
        from learn.index.project_turns import project_turn_views
        from learn.transcripts.templates.scripted import HEAD_SESSIONS

        _own_keys(view, index, keys)
        others = project_turn_views(view, fingerprints, index=index, heads=heads,
                                    limit=HEAD_SESSIONS, keys=keys)
    else:
        from learn.transcripts.templates.scripted import project_views

        # Read here, not by the judgement below, so the copies are told from the same views.
        others = project_views(view.project, fingerprints, skip=view.path)
    return without_project_prompts(view, fingerprints, others=others, keys=keys,
                                   include_programmatic=include_programmatic), \
        transcript.events, view, copied_from(view, others, keys)


def place(turn: HumanTurn) -> Place:
    return turn.event_index, turn.at, turn.on_branch


def copied_from(view: Session, others: Sequence[Session | Entry], keys: Keys) -> dict[Place, str]:
    """Each turn of `view` that an older session of its project holds (a `claude
    --resume` or a `/branch` copied it), by its place, with that session's id as
    `learn sessions` shortens it (`short_ids`: a prefix `learn show` opens).

    Shown as plain turns of yours, a resumed session's copies read as said twice, where
    a run counts them once, in the session they were typed in. Told as the run tells
    them (`resume.own_turns`: the same entry, or the same time and text, in an older
    session), asked of each older session in turn, oldest first, so a turn copied along
    a chain of resumes names the session it was typed in."""
    from learn.transcripts.templates.entries import Entry
    from learn.transcripts.view.resume import OwnTurns, oldest_first

    here = oldest_first(view.started_at, view.last_activity, view.id)
    entries = [o if isinstance(o, Entry) else Entry.of(o, keys) for o in others]
    # Its last activity from the view without turns: a stored entry's is its summary.
    age = {id(e): oldest_first(e.started_at, e.bare().last_activity, e.id) for e in entries}
    older = sorted((e for e in entries if age[id(e)] < here), key=lambda e: age[id(e)])
    turn_keys = dict(zip(map(id, view.human_turns), Entry.of(view, keys).resume_keys(keys),
                         strict=True))
    out: dict[Place, str] = {}
    left = view
    for entry in older:
        if not left.human_turns:
            break
        if all(entry.keys.resume.isdisjoint(turn_keys[id(t)]) for t in left.human_turns):
            continue
        first = OwnTurns()
        first.unseen(entry.keys.resume)  # the older session's turns, taken as seen
        kept = first.add(left, [turn_keys[id(t)] for t in left.human_turns])
        stay = {id(t) for t in kept.human_turns}
        out.update((place(t), entry.id) for t in left.human_turns if id(t) not in stay)
        left = kept
    if not out:
        return out
    from learn.commands.sessions import short_ids

    short = short_ids([view.id, *(e.id for e in entries)])
    return {at: short[sid] for at, sid in out.items()}


def _own_keys(view: Session, index: SessionIndex, keys: Keys) -> None:
    """The keys the index stored for this session's turns, for each turn whose text its
    entry holds as it is (its file unchanged since, nothing redacted in that turn):
    working them out again was most of showing a long session in a big tree (issue 32)."""
    from learn.index.indexed import entry_version, same_file, stamp
    from learn.index.indexed_turns import turn_texts
    from learn.transcripts.templates.entries import decode_entry, decode_turns

    if view.path is None:
        return
    row = index.get_many([str(view.path)], views=False).get(str(view.path))
    if (row is None or row.version != entry_version() or row.prompts is None
            or not same_file(row, stamp(view.path))):
        return
    got = decode_entry(row.keys)
    if got is None:
        return
    stored = decode_turns(got[2])
    texts = turn_texts(row.prompts)
    if len(stored) != len(texts) or len(texts) != len(view.human_turns):
        return
    same = [(text, turn.keys) for text, turn, shown in zip(texts, stored, view.human_turns, strict=True)
            if text == shown.text]
    keys.learn([t for t, _ in same], [k for _, k in same])


def _cwd_of(transcript: object) -> str | None:
    for event in getattr(transcript, "events", ()):
        meta = getattr(event, "meta", None)
        cwd = getattr(meta, "cwd", None)
        if isinstance(cwd, str) and cwd:
            return cwd
    return None


# What a person reads of one turn: ~40 lines of 80 columns. A 50 MB paste printed
# whole took 58 s and 900 MB; its head and tail say what it was.
SHOW_CHARS = 3000


@click.command(name="show")
@click.argument("session_ref", metavar="SESSION")
@click.option("--json", "as_json", is_flag=True, help="Print the session view as JSON.")
@click.option("--reveal", is_flag=True,
              help="Show secrets as they were typed (redacted by default: this output gets pasted).")
@click.option("--full", is_flag=True,
              help=f"Print every turn whole (by default a turn over {SHOW_CHARS:,} chars is cut "
                   "in the middle, with a marker).")
@click.option("--include-programmatic", is_flag=True,
              help="Show the typed turns of a session a program started (withheld by default).")
def command(session_ref: str, as_json: bool, reveal: bool, full: bool,
            include_programmatic: bool) -> None:
    """Show one session (id, unique id prefix, or path) as learn sees it, secrets redacted."""
    from learn import collector

    # A process that reads one session, prints it and ends: the cyclic collector
    # frees nothing here (126 objects, whatever the session's size) and cost a
    # tenth of the command (~0.03 s CPU in a tree of 1,000 sessions, issue 32).
    with collector.paused():
        _show(session_ref, as_json, reveal, full, include_programmatic)


def _show(session_ref: str, as_json: bool, reveal: bool, full: bool,
          include_programmatic: bool) -> None:
    from contextlib import ExitStack, suppress

    import apsw

    from learn.index.indexed import CachedHeads
    from learn.store import open_store
    from learn.store.db import StoreError

    # Through the session index: heads come from it. The index only saves reading:
    # a store that cannot be opened (busy, read-only) leaves show reading the files.
    with ExitStack() as stack:
        index: SessionIndex | None = None
        heads: CachedHeads | None = None
        try:
            index = stack.enter_context(open_store(local_only=True)).index
            heads = CachedHeads(index)
        except (StoreError, apsw.Error, OSError):
            index = heads = None
        path, file = resolve_session(session_ref, heads)
        session, events, before, copied = _load(
            path, file, include_programmatic=include_programmatic, index=index, heads=heads)
        if heads is not None:
            with suppress(StoreError, apsw.Error):  # what was read is read again next time
                heads.save(forget=False)
    if not reveal:
        from learn.render.redacted_view import redact_session

        # The text prints no tool input (its summary line only).
        session = redact_session(session, inputs=as_json, events=events)
    limit = None if full else SHOW_CHARS
    if as_json:
        from learn.transcripts.view.serialise import session_to_dict

        data: object = session_to_dict(session)
        if limit is not None:
            data = _cut_texts(data, limit)
        click.echo(inert_json(json.dumps(data, indent=2, ensure_ascii=False)))
        return
    _print(session, limit, repeated=_repeated_note(before, session), copied=copied)


def _repeated_note(before: Session, after: Session) -> str:
    """Why turns the person sent are not counted when the project's judgement cut them
    (transcripts.templates.scripted: a prompt repeated word for word across sessions, a
    template's text). A Codex session whose only prompt was one showed "human 0" and
    nothing else: its prompt gone with no word why, where a program's session says so.
    "" when nothing was cut, or when the session is a program's (said on its own)."""
    if after.origin == "programmatic" and not after.human_turns:
        return ""
    kept = {(t.event_index, t.at, t.on_branch): t.text for t in after.human_turns}
    gone = sum(1 for t in before.human_turns if (t.event_index, t.at, t.on_branch) not in kept)
    cut = sum(1 for t in before.human_turns
              if kept.get((t.event_index, t.at, t.on_branch), t.text) != t.text)
    if not gone and not cut:
        return ""
    turns = f"{gone} turn{'s' if gone != 1 else ''} you sent"
    if gone and cut:
        what = f"{turns} and part of {cut} other{'s' if cut != 1 else ''} are"
    elif gone:
        what = f"{turns} {'is' if gone == 1 else 'are'}"
    else:
        what = f"part of {cut} turn{'s' if cut != 1 else ''} you sent is"
    return (f"{what[0].upper()}{what[1:]} not counted: a prompt repeated word for word across "
            "this project's sessions (or a template's text) is a program's or a paste, not "
            "something you said here.")


def readable(text: str, limit: int | None) -> str:
    """`text` as shown: cut in the middle past `limit`, saying how to see all of it."""
    from learn.textcut import cut_middle

    return text if limit is None else cut_middle(text, limit, "`learn show --full` prints all of it")


def _cut_texts(value: object, limit: int) -> object:
    if isinstance(value, dict):
        return {k: readable(v, limit) if isinstance(v, str) and k in _TEXT_KEYS
                else _cut_texts(v, limit) for k, v in value.items()}
    if isinstance(value, list):
        return [_cut_texts(v, limit) for v in value]
    return value


# The fields of session_to_dict that hold what a person or a tool wrote.
_TEXT_KEYS = frozenset({"text", "summary", "excerpt", "reason", "command"})


def _print(session: Session, limit: int | None = SHOW_CHARS, *, repeated: str = "",
           copied: Mapping[Place, str] | None = None) -> None:
    from learn.report.screen import Screen, escape
    from learn.report.styled_print import print_markup, print_rule, print_styled

    # Printed as rich's Console(file=sys.stdout, highlight=False) printed it, without
    # importing rich: ~0.1 G of a median show's 0.8 G instructions (learn.report.screen).
    screen = Screen.of(sys.stdout)
    by_origin: dict[str, int] = {}
    for turn in session.human_turns:
        by_origin[turn.origin] = by_origin.get(turn.origin, 0) + 1
    # "2 typed, 1 queued" are adjectives; the nouns take a plural ("2 answers", not "2 answer"),
    # and a denial's typed reason is not one of the "denials" counted after it.
    nouns = {"denial": "denial reason", "answer": "answer", "aside": "aside"}
    origins = ", ".join(f"{n} {nouns.get(k, k)}{'s' if n != 1 and k in nouns else ''}"
                        for k, n in sorted(by_origin.items()))
    print_markup(screen, f"[bold]{session.provider} session {escape(session.id)}[/bold]")
    from learn.visible import code_span

    # A project path is a transcript's `cwd`, and a folder name can hold a newline and `#`:
    # one code span (learn.visible.code_span), so it cannot print a line of its own.
    print_markup(screen, f"project: {escape(code_span(session.project)) if session.project else '?'}")
    print_markup(screen, f"path:    {escape(str(session.path))}", soft_wrap=True)
    span = " → ".join(
        t.isoformat(timespec="minutes") for t in (session.started_at, session.last_activity) if t
    )
    print_markup(screen, f"when:    {span or '?'}")
    print_markup(screen, f"origin:  {session.origin} ({escape('; '.join(session.origin_evidence))})",
                 soft_wrap=True)
    print_markup(
        screen,
        f"turns {session.turns} · human {len(session.human_turns)}"
        + (f" ({origins})" if origins else "")
        + (f" · {off} off the active branch" if (off := sum(
            1 for t in session.human_turns if not t.on_branch)) else "")
        + f" · tool calls {len(session.tool_calls)} · failures {len(session.failures)}"
        + f" · denials {len(session.denials)} · interrupts {len(session.interrupts)}"
        + (f" · skipped lines {session.skipped_lines} ("
           + ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in sorted(session.skipped.items()))
           + ")" if session.skipped_lines else ""),
        # One line the terminal wraps: wrapped here at 80 columns, a count was parted
        # from its label ("· interrupts" / "0" on the next line) in a pipe.
        soft_wrap=True,
    )
    if session.origin == "programmatic" and not session.human_turns:
        print_markup(screen, "[yellow]A program started this session: none of it counts as typed by "
                     "you (learn show --include-programmatic shows what would).[/yellow]")
    if repeated:
        print_markup(screen, f"[yellow]{escape(repeated)}[/yellow]")
    copied = copied or {}
    if n_copied := sum(1 for t in session.human_turns if place(t) in copied):
        print_markup(screen, f"[yellow]{n_copied} turn{'s' if n_copied != 1 else ''} marked "
                     "\"copied\" came from an earlier session this one resumed or branched "
                     "from: they count there, not here.[/yellow]")
    print_rule(screen)

    # Denials without a typed reason and interrupts are not timeline items;
    # they are merged in by position so the story reads in order. Off-branch
    # turns already sit in reading order (by time), so they keep their place.
    extras: list[Denial | Interrupt] = [d for d in session.denials if d.reason is None]
    extras += list(session.interrupts)
    extras.sort(key=lambda item: item.event_index)
    items: list[HumanTurn | ToolCall | ToolFailure | Denial | Interrupt] = []
    for read in reading_order(session):
        while extras and (not isinstance(read, HumanTurn) or read.on_branch) and \
                extras[0].event_index < read.event_index:
            items.append(extras.pop(0))
        items.append(read)
    items.extend(extras)
    # The body is one text printed once: rich wraps and styles it line by line as it
    # did each line printed alone, and a print per item (hundreds in a long session)
    # cost more than the text itself (issue 21: 0.07 of `learn show`'s 0.25 s on a
    # 3.5 MB session). Built from styled pieces rather than markup: parsing the markup
    # of 1,149 lines (and escaping what they quote) was 0.04 s of a 0.45 s show. Written
    # by print_styled, with rich's bytes: rich's wrap and render of every line was 0.33 s
    # CPU of a 0.7 s show of a 6 MB session (2,860 lines), print_styled's 0.035 s.
    body: list[Piece] = []
    add = body.append
    for n, item in enumerate(items):
        if n:
            add(("\n", ""))
        if isinstance(item, HumanTurn):
            label = "YOU" if item.origin == "typed" else f"YOU ({item.origin})"
            add((f"{label}:", "bold cyan"))
            add((" ", ""))
            add((readable(item.text, limit), "bold"))
            if (source := copied.get(place(item))) is not None:
                add((" ", ""))
                add((f"(copied from session {source})", "yellow"))
            if not item.on_branch:
                add((" ", ""))
                add(("(off the active branch)", "dim"))
        elif isinstance(item, ToolCall):
            add((f"  {item.name}: {readable(item.summary, limit)}", "dim"))
        elif isinstance(item, ToolFailure):
            first = item.excerpt.splitlines()[0] if item.excerpt else ""
            add((f"  \u2717 {item.tool_name or '?'}: {first[:300]}", "red"))
        elif isinstance(item, Denial):
            add((f"  \u2298 {item.tool_name or '?'} denied ({item.kind})", "yellow"))
        else:
            add(("  \u23ce interrupted", "yellow"))
    if items:
        print_styled(screen, kinsoku_wrapped(body, screen.width))


def kinsoku_wrapped(pieces: list[Piece], width: int) -> list[Piece]:
    """`pieces` with each line wider than `width` that holds wide (CJK) characters
    broken by learn.report.wrap.break_ranges: rich folds such a line by cells and
    started lines with "。" or "」". Lines of one-cell characters are left to
    print_styled, which wraps them as rich does."""
    from learn.report.screen import all_narrow
    from learn.report.wrap import break_ranges

    if width < 1 or all(all_narrow(text) for text, _ in pieces):
        return pieces
    from rich.cells import cell_len

    out: list[Piece] = []
    for n, line in enumerate(_split_lines(pieces)):
        if n:
            out.append(("\n", ""))
        plain = "".join(text for text, _ in line)
        if all_narrow(plain) or not plain.isprintable() or cell_len(plain) <= width:
            out.extend(line)
            continue
        for m, (a, b) in enumerate(break_ranges(plain, width)):
            if m:
                out.append(("\n", ""))
            at = 0
            for text, style in line:
                lo, hi = max(a, at), min(b, at + len(text))
                if lo < hi:
                    out.append((text[lo - at:hi - at], style))
                at += len(text)
    return out


def _split_lines(pieces: list[Piece]) -> list[list[Piece]]:
    lines: list[list[Piece]] = [[]]
    for text, style in pieces:
        first, *rest = text.split("\n")
        lines[-1].append((first, style))
        lines.extend([(part, style)] for part in rest)
    return lines
