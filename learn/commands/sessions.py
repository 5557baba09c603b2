"""`learn sessions`: the sessions in scope, as learn will read them.

Every session is parsed and reduced to its view, so the human-turn counts are
the ones `learn run` will mine, not an estimate: a session that shows 0 human
turns here contributes nothing to a run, and this is where you find out why.

Nothing is left out silently: `--json` prints `{"sessions": [...], "skipped":
[...]}`, every file discovery did not list with its reason (other project, too
old, over the limit, unreadable, duplicate, a subagent's file, ...), and
the table counts them.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

import click

from learn.commands._scope import Scope, scope_options
from learn.transcripts.files.discover import (
    Discovery,
    SessionFile,
)
from learn.transcripts.files.listing import (
    SkippedFile,
)
from learn.transcripts.files.skip_note import skipped_note
from learn.transcripts.view.model import HUMAN_ORIGINS, Session
from learn.visible import inert_json


def session_row(file: SessionFile, session: Session) -> dict[str, object]:
    from learn.transcripts.view.serialise import (
        session_counts,
    )

    return {
        "provider": file.provider,
        "id": file.session_id,
        "path": str(file.path),
        "project": file.project_id or session.project or file.project,
        "cwd": session.project or file.project,
        "started_at": _iso(session.started_at),
        "last_activity": _iso(session.last_activity),
        "mtime": datetime.fromtimestamp(file.mtime, UTC).isoformat(),
        **session_counts(session),
        # A session read out of a store (OpenCode) has the size of its export.
        "size_bytes": file.size or session.size_bytes,
        "skipped_lines": session.skipped_lines,
        "skipped_by_reason": dict(session.skipped),
        "subagents": len(file.subagent_paths),
    }


def summary_row(file: SessionFile, summary: dict[str, object]) -> dict[str, object]:
    """`session_row` from an index entry's stored summary (session_to_dict without the timeline)."""
    counts = ("turns", "human_turns", "human_turns_by_origin", "off_branch_human_turns",
              "tool_calls", "failures", "denials", "interrupts")
    return {
        "provider": file.provider,
        "id": file.session_id,
        "path": str(file.path),
        "project": file.project_id or summary["project"] or file.project,
        "cwd": summary["project"] or file.project,
        "started_at": summary["started_at"],
        "last_activity": summary["last_activity"],
        "mtime": datetime.fromtimestamp(file.mtime, UTC).isoformat(),
        **{k: summary[k] for k in counts},
        "size_bytes": file.size or summary["size_bytes"],
        "skipped_lines": summary["skipped_lines"],
        "skipped_by_reason": summary.get("skipped_by_reason", {}),
        "subagents": len(file.subagent_paths),
    }


def _judged_rows(items: Sequence[Any], include_programmatic: bool) -> list[dict[str, object]]:
    """The rows with the counts a run will mine: prompts and templates repeated
    across the sessions listed are cut, and each session's origin is judged
    across them (transcripts.scripted.machinery), as `learn run` does.

    Judged from the human turns the index keeps (`indexed_turns`), not from
    whole views: the judgement reads nothing else, and decoding 1,000 views
    cost more than the 0.3 s a warm listing has (issue 21)."""
    from learn.index import judged_listing
    from learn.index.indexed import with_keys

    summaries = [i.summary for i in items]
    rows = [summary_row(i.file, s) for i, s in zip(items, summaries, strict=True)]
    key = judged_listing.listing_key(items, include_programmatic)
    judged = judged_listing.load(key, len(items))
    if judged is None:
        judged = _judge(with_keys(items), summaries, include_programmatic)
        judged_listing.save(key, judged)
    for row, fields in zip(rows, judged, strict=True):
        row.update(fields)
    return rows


def _judge(items: Sequence[Any], summaries: Sequence[dict[str, Any]],
           include_programmatic: bool) -> list[dict[str, object]]:
    """Each row's judged fields (turn counts by origin, origin and its evidence)."""
    from learn.transcripts.templates.keys import Keys
    from learn.transcripts.templates.scripted import judged_sessions

    # Each session as its stored keys: the judgement compares those, and reads a
    # session's turns, then their texts, only where it needs them.
    keys = Keys()
    entries = _entries(items, summaries, keys)
    # The templates of each project were cut when the views were built; what is
    # judged here is what only the sessions together show.
    judged: list[dict[str, object]] = []
    for view in judged_sessions(entries, include_programmatic=include_programmatic, keys=keys):
        by_origin: dict[str, int] = dict.fromkeys(HUMAN_ORIGINS, 0)
        off_branch = 0
        for turn in view.human_turns:  # one pass for both counts
            by_origin[turn.origin] += 1
            if not turn.on_branch:
                off_branch += 1
        judged.append({
            "human_turns": len(view.human_turns),
            "human_turns_by_origin": by_origin,
            "off_branch_human_turns": off_branch,
            "origin": view.origin,
            "origin_evidence": list(view.origin_evidence),
            "entrypoint": view.entrypoint,
        })
    return judged


def _entries(items: Sequence[Any], summaries: Sequence[dict[str, Any]], keys: Any) -> list[Any]:
    """Each index entry as the judgement reads it (`templates.entries`): its keys, its
    turns and their texts read from the index on first need; all of it when no keys
    are stored. The imports once, not once an entry: a `from … import` in a function
    runs on every call, ~8 k instructions in CPython 3.11."""
    from learn.index.indexed_turns import light_entry, turn_texts, turns_view
    from learn.transcripts.templates.entries import Entry

    def entry(item: Any, summary: dict[str, Any]) -> Any:
        stored = item.row.prompts  # read with the row when it was just written

        def texts() -> list[str]:
            return turn_texts(stored or item.texts() or "[]")

        got = light_entry(summary, item.row.keys, item.file.path, texts, keys)
        if got is not None:
            return got
        # Every entry of this version holds its turns; "[]" only types the None of a row never read.
        return Entry.of(turns_view(summary, stored or item.texts() or "[]", item.file.path), keys)

    return [entry(i, s) for i, s in zip(items, summaries, strict=True)]


def _spelled(rows: list[dict[str, object]]) -> list[dict[str, object]]:
    """Each row's project (learn.projects: the repository, one for its worktrees and
    sub-folders) as people spell it: `C:\\Users\\ana\\VAULT`, not its key."""
    from learn.projects import spellings

    names = spellings((str(r["cwd"]) if r.get("cwd") else None,
                       str(r["project"]) if r.get("project") else None) for r in rows)
    for r in rows:
        if isinstance(r.get("project"), str):
            r["project"] = names.get(str(r["project"]), r["project"])
    return rows


def skipped_row(skip: SkippedFile) -> dict[str, object]:
    return {
        "path": str(skip.path),
        "reason": skip.reason,
        "provider": skip.provider,
        "id": skip.session_id,
        "detail": skip.detail,
    }


def activity(row: dict[str, object]) -> datetime:
    """What the date column shows: the last activity, else the file's mtime."""
    value = row.get("last_activity") or row["mtime"]
    try:
        at = datetime.fromisoformat(str(value))
    except ValueError:
        at = datetime.fromisoformat(str(row["mtime"]))
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


def by_last_activity(rows: list[dict[str, object]]) -> list[dict[str, object]]:
    """Newest activity first, the order of the date shown (not the files' mtimes,
    which a copy, a sync or a compaction rewrite moves)."""
    return sorted(rows, key=activity, reverse=True)


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


@click.command(name="sessions")
@scope_options()
@click.option("--json", "as_json", is_flag=True,
              help="Print JSON: the sessions with full ids and exact counts, and every skipped file with its reason.")
@click.option("--include-programmatic", is_flag=True,
              help="Count the typed turns of sessions a program started (as `learn run --include-programmatic`).")
def command(scope: Scope, as_json: bool, include_programmatic: bool) -> None:
    """List the sessions learn can read (current project by default)."""
    from learn import collector
    from learn.index.indexed import CachedHeads, indexed_views, min_signal_confidence
    from learn.store import open_store
    from learn.transcripts.files.discover import with_unread
    from learn.transcripts.view.replay_files import (
        FingerprintCache,
    )
    from learn.windows_names import not_opened

    cache = FingerprintCache()
    # Through the session index: an unchanged file is not opened, and its row
    # comes from the stored summary without decoding the view. The reading and the
    # judgement make no cycles (learn.collector).
    with collector.paused(), open_store(local_only=True) as local:
        index = local.index
        heads = CachedHeads(index)
        discovery = scope.scan(heads)
        heads.save()
        unread: list[tuple[SessionFile, str]] = []
        items = indexed_views(discovery.files, index=index,
                              # a share's commands are never read (not_opened)
                              fingerprints_for=lambda f: cache.for_project(
                                  None if f.project and not_opened(f.project) else f.project),
                              min_confidence=min_signal_confidence(), views=False, texts=False,
                              keys=False, unread=lambda f, why: unread.append((f, why)))
        # Files listed that were gone (pruned) or failed to read: skipped, and said.
        discovery = with_unread(discovery, unread)
        # Origin and cross-session templates are judged across the listed sessions,
        # as `learn run` does (issue 17), from each entry's turns' keys (and the
        # texts of those it needs, read from the index while it is open).
        rows = _spelled(by_last_activity(_judged_rows(items, include_programmatic)))
    if as_json:
        out: dict[str, object] = {
            "sessions": rows, "skipped": [skipped_row(s) for s in discovery.skipped_files]}
        click.echo(_json(out))
        return
    note = skipped_note(discovery.skipped, discovery.skipped_files)
    _print_table(rows, scope, note, discovery.project, ids=short_ids(known_ids(discovery)))


def _json(out: dict[str, object]) -> str:
    """`json.dumps(out, indent=2, ensure_ascii=False)`, the same text, ~5x faster
    (the stdlib's indenting encoder is pure Python: 0.03 s of CPU at 1,000 sessions)."""
    import msgspec

    try:
        return inert_json(msgspec.json.format(msgspec.json.encode(out), indent=2).decode())
    except UnicodeEncodeError:  # a path that is not UTF-8 (surrogate escapes): as before
        return inert_json(json.dumps(out, indent=2, ensure_ascii=False))


def _print_table(rows: list[dict[str, object]], scope: Scope, note: str,
                 matched: str | None = None, *, ids: dict[str, str]) -> None:
    """The table. `ids`: each session's id as shown (`short_ids` over `known_ids`)."""
    # Plain aligned columns, not a rich Table: rich measured and wrapped every
    # cell, 0.5 s of CPU for 1,000 sessions against a 0.3 s target for the
    # whole warm command (issue 21). click.style drops its colour off a terminal.
    from learn.visible import visible

    # Every cell is passed through `visible`: a project path is a transcript's `cwd`, and a
    # folder name can hold ESC sequences (an OSC 52 clipboard write, an OSC 8 link, a
    # cursor move) and bidi overrides that a terminal acts on instead of showing.
    if not rows:
        click.echo(visible(f"No sessions in scope ({scope.describe(matched)})."))
        if note:
            click.echo(click.style(visible(f"Skipped: {note}."), dim=True))
        if not scope.all_projects:
            click.echo(click.style("Try --all-projects, or --project DIR.", dim=True))
        return
    head = ("provider", "id", "project", "date", "turns", "human", "origin", "size")
    right = {4, 5, 7}
    cells: list[tuple[str, ...]] = [head]
    short: dict[object, str] = {}  # a few dozen projects among 1,000 rows
    for row in rows:
        # In this machine's time zone, as `--since 2026-11-01` reads a date (local
        # midnight): shown in UTC, a session at 00:30 on the 5th in Paris was dated
        # the 4th, 23:30, in a listing `--since 2026-12-05` that rightly held it.
        when = activity(row).astimezone().isoformat()
        project = short.get(row["project"])
        if project is None:
            project = short[row["project"]] = _short_project(row["project"])
        cells.append(tuple(_cell(c) for c in (
            str(row["provider"]), ids[str(row["id"])], project,
            str(when)[:16].replace("T", " "), str(row["turns"]), str(row["human_turns"]),
            "program" if row.get("origin") == "programmatic" else "person",
            _size(int(str(row["size_bytes"]))),
        )))
    widths = [max(len(c[i]) for c in cells) for i in range(len(head))]
    if sys.stdout.isatty():
        # On a terminal the project column gives way (its head kept: "…/code/app"),
        # so a row fits the width; a pipe gets whole paths.
        over = sum(widths) + 2 * (len(head) - 1) - shutil.get_terminal_size((80, 24)).columns
        if over > 0:
            widths[2] = max(len(head[2]), widths[2] - over)
            cells = [head] + [(*c[:2], _cut_left(c[2], widths[2]), *c[3:]) for c in cells[1:]]

    def line(cols: tuple[str, ...]) -> str:
        return "  ".join(c.rjust(w) if i in right else c.ljust(w)
                         for i, (c, w) in enumerate(zip(cols, widths, strict=True))).rstrip()

    out = [visible(f"{len(rows)} session(s): {scope.describe(matched)}"),
           click.style(line(head), bold=True)]
    out += [line(c) for c in cells[1:]]
    out += read_in_part(rows, ids)
    click.echo("\n".join(out))
    if note:
        click.echo(click.style(visible(f"Skipped: {note} (--json lists each file and why)."),
                               dim=True))


def read_in_part(rows: list[dict[str, object]], ids: dict[str, str] | None = None) -> list[str]:
    """A line for each session learn could read only in part, saying what it left out:
    a compressed file that inflates past its limit, lines nested too deep to read.
    `ids`: each session's id as the table shows it (`short_ids`)."""
    ids = ids if ids is not None else short_ids(str(row["id"]) for row in rows)
    from learn.transcripts.files.compressed import MAX_RATIO, inflate_limit

    out: list[str] = []
    for row in rows:
        reasons = row.get("skipped_by_reason")
        if not isinstance(reasons, dict):
            continue
        said: list[str] = []
        if reasons.get("inflate_limit"):
            size = int(str(row["size_bytes"]))
            said.append(f"compressed, it inflates past {MAX_RATIO}x its {_size(size)}: only the "
                        f"first {_size(inflate_limit(size))} were read")
        if reasons.get("too_deep"):
            said.append(f"{reasons['too_deep']} line(s) nested too deep to read, skipped")
        if said:
            out.append(click.style(f"  {ids[str(row['id'])]}: read in part: {'; '.join(said)}",
                                   fg="yellow"))
    return out


# Fewest characters of an id a listing shows: Claude Code's random UUIDs differ
# within them; more are shown only where ids share them.
SHORT_ID = 8


def known_ids(discovery: Discovery) -> list[str]:
    """Every session id `learn show` could match among the files this scan saw: those
    listed, and those left out of this listing (another project, before `--since`,
    past `--limit`, ...), which discovery names from their files as it lists them.

    `learn show` looks in every project with no `--since` or `--limit`, so an id cut
    unique among the listed rows alone could name two sessions there: two Codex
    sessions started 20 s apart in two projects were both `01a23c34` to it ("matches
    2 sessions", exit 2), and so was a listing's session whose twin `--limit` cut.
    Unique among all of them, an id shown opens the same session from any folder,
    which is what a copied id is expected to do; `learn show` preferring the current
    project's match instead would still have refused the `--limit` twin, and opened
    another session than the one listed when run from elsewhere. Nothing more is
    read for this: the ids come with the scan (a few thousand strings sorted, well
    under the listing's benchmark noise at 1,000 sessions).

    Left out: a subagent's own id (`learn show` never opens one by it; a Codex
    subagent, UUIDv7 started seconds after its parent, would lengthen every parent's
    id). A Gemini CLI chat left out before its head was read counts by the 8
    characters its file name holds."""
    ids = [f.session_id for f in discovery.files]
    ids += [s.session_id for s in discovery.skipped_files
            if s.session_id and s.reason != "subagent"]
    return ids


def short_ids(ids: Iterable[str], least: int = SHORT_ID) -> dict[str, str]:
    """Each id -> its shortest prefix of at least `least` characters that no other id
    of `ids` starts with: what `learn sessions` and `learn plan` show, given every id
    discovery saw (`known_ids`), so the id shown is one `learn show` opens. Codex's ids
    are UUIDv7, time first: two sessions started
    within about a minute share their first 8 characters, and both were shown as one
    id that `learn show` then refused ("matches 2 sessions"). Sorted, an id shares
    most with a neighbour, so each is compared with its two (n log n, not n²: a
    listing of 1,000 sessions is benchmarked)."""
    unique = sorted(set(ids))
    shared = [0] * len(unique)
    for i in range(1, len(unique)):
        a, b = unique[i - 1], unique[i]
        if a[:least] != b[:least]:
            continue  # the common case: `least` characters tell them apart
        n, end = least, min(len(a), len(b))
        while n < end and a[n] == b[n]:  # how many leading characters they share
            n += 1
        shared[i - 1] = max(shared[i - 1], n)
        shared[i] = max(shared[i], n)
    return {sid: sid[:max(least, n + 1)] for sid, n in zip(unique, shared, strict=True)}


def _cut_left(text: str, width: int) -> str:
    return text if len(text) <= width else "…" + text[len(text) - width + 1:]


def _cell(text: str) -> str:
    """`text` as one table cell: nothing hidden or acting (`visible`), and a folder name's
    newline or tab a space, so a row stays one line and its columns stay put."""
    from learn.visible import visible

    return visible(text).replace("\n", " ").replace("\t", " ")


def _short_project(project: object) -> str:
    from learn.paths import home_relative

    return home_relative(project) if isinstance(project, str) else "?"


def _size(n: int) -> str:
    value = float(n)
    for unit in ("B", "KB", "MB"):
        if value < 1024:
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"
