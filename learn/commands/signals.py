"""`learn signals`: the deterministic feedback signals in sessions, no model involved.

Useful on its own (what did I reject, interrupt, answer?) and as a check on what
the detectors feed the pipeline: a signal at or above HIGH whose text the person
typed becomes a directive candidate without a model call.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click
from msgspec.structs import replace

from learn.commands._scope import Scope, scope_options
from learn.detect.confidence import BANDS, NOISE_FLOOR
from learn.detect.signals import MiningSignal
from learn.transcripts.files.skip_note import skipped_note
from learn.transcripts.view.model import HumanTurn
from learn.visible import inert_json

if TYPE_CHECKING:
    from learn.transcripts.models import TranscriptEvent
    from learn.transcripts.view.model import Session

EXCERPT_CHARS = 80

# What each detector saw, in words. The signal's `kind` is a category several
# detectors share (a denied tool call and an interrupt are both
# "interrupt_rejection"), so it labelled every denial an interrupt.
WHAT: dict[str, str] = {
    "transcript_message": "message",
    "exit_plan_rejection": "plan rejected",
    "plan_reentry": "plan re-entered",
    "denial": "tool call denied",
    "interrupt": "interrupted",
    "review_comment": "review comment",
    "ask_user_question": "question answered",
}

# A reply that only agrees or says go on ("ok ship it", "looks good, thanks"):
# it starts with one of these and has no word that corrects or redirects. English
# only, like the rejecting words it leans on.
_ACK_RE = re.compile(
    r"\A\W*(?:ok(?:ay)?|k|yes|yep|yeah|sure|thanks?|thank you|ty|great|perfect|nice|cool|"
    r"lgtm|looks good|sounds good|good|fine|go ahead|go for it|ship it|do it|continue|"
    r"proceed|approved?|done)\b",
    re.IGNORECASE,
)


def is_acknowledgement(text: str) -> bool:
    from learn.detect.detectors import has_rejecting_words

    return bool(_ACK_RE.match(text)) and not has_rejecting_words(text)


def ranked(found: list[tuple[Path, MiningSignal]]) -> list[tuple[Path, MiningSignal]]:
    """Corrections first, then by confidence, newest first; acknowledgements last."""
    return sorted(found, key=lambda ps: (is_acknowledgement(ps[1].text), -ps[1].signal.confidence,
                                        -ps[1].occurred_at.timestamp()))


def _confidence(value: str) -> float:
    """A number in [0, 1] or a band name (none, low, medium, high, very_high)."""
    band = BANDS.get(value.strip().lower())
    if band is not None:
        return float(band)
    try:
        number = float(value)
    except ValueError:
        raise click.BadParameter(
            f"{value!r}: give a number in [0, 1] or one of {', '.join(BANDS)}"
        ) from None
    if not 0.0 <= number <= 1.0:
        raise click.BadParameter(f"{value!r} is outside [0, 1]")
    return number


def _resolve(sessions: tuple[str, ...], scope: Scope) -> tuple[list[Path], list[str]]:
    """Paths for SESSION arguments (a .jsonl path, or a session id), and what did not resolve."""
    paths: list[Path] = []
    missing: list[str] = []
    ids: list[str] = []
    for arg in sessions:
        candidate = Path(arg).expanduser()
        if candidate.suffix == ".jsonl" or candidate.exists():
            if candidate.is_file():
                paths.append(candidate)
            else:
                missing.append(arg)
        else:
            ids.append(arg)
    if ids:
        from learn.transcripts.files.discover import discover

        files = discover(all_projects=True)
        for session_id in ids:
            matches = [f.path for f in files if f.session_id.startswith(session_id)]
            if matches:
                paths.extend(matches)
            else:
                missing.append(session_id)
    return paths, missing


def mine_paths(paths: list[Path], min_confidence: float) -> Iterator[tuple[Path, MiningSignal]]:
    """Signals at or above `min_confidence`, file by file, each once (`_own_signals`); an
    unreadable file is skipped."""
    from learn.detect.detectors import mine
    from learn.transcripts.parser import parse
    from learn.transcripts.view.session import build_session

    read: list[tuple[Path, Session, list[MiningSignal]]] = []
    for path in dict.fromkeys(paths):  # a session named twice (its path and its id) once
        try:
            transcript = parse(path)
        except OSError as exc:
            click.echo(f"learn signals: cannot read {path}: {exc.strerror or exc}", err=True)
            continue
        events = list(transcript.events)
        found = [s for s in mine(events, provider=transcript.provider)
                 if s.signal.confidence >= min_confidence]
        read.append((path, _as_turns(build_session(transcript), events, found), found))
    yield from _own_signals(read)


def _as_turns(view: Session, events: Sequence[TranscriptEvent],
              found: Sequence[MiningSignal]) -> Session:
    """`view` holding one turn per signal found (its text, time and entry), so that
    `resume.own_turns` tells which of them a resumed or forked session copied."""
    turns = []
    for signal in found:
        meta = getattr(events[signal.event_index], "meta", None)
        # The entry a fork copied keeps its original's uuid here (learn.transcripts.view.session).
        uuid = getattr(meta, "copied_uuid", None) or signal.event_uuid or None
        turns.append(HumanTurn(signal.text, "typed", signal.occurred_at, signal.event_index, uuid))
    return replace(view, human_turns=tuple(turns), timeline=(), tool_calls=(), failures=())


def _own_signals(read: Sequence[tuple[Path, Session, list[MiningSignal]]],
                 ) -> Iterator[tuple[Path, MiningSignal]]:
    """Each file's signals less those its session copied from an older one listed with it.

    `claude --resume` and `/branch` copy the earlier conversation into the new session's
    file, and every denial, interrupt and answer in it was listed again under the new
    session (`learn signals --all-projects` of the e2e home, 2026-12: 4 of the resumed
    session's 7 signals were its original's, listed twice). Told as a run tells a copied turn
    (`resume.own_turns`: the same entry, or the same time and text, in an older
    session), so this list and the run's counts agree on what belongs where."""
    from learn.transcripts.view.resume import own_turns

    # Keyed by position: two files may name one session (a copy of a file elsewhere).
    views = [replace(view, id=f"{view.id}\0{n}") for n, (_, view, _) in enumerate(read)]
    own = own_turns(views)
    for (path, _, found), view in zip(read, views, strict=True):
        kept = {id(t) for t in own[view.id].human_turns}
        for signal, turn in zip(found, view.human_turns, strict=True):
            if id(turn) in kept:
                yield path, signal


def _excerpt(text: str) -> str:
    from learn.redaction.redact import redact

    # Redacted like `learn show`: this table gets pasted too.
    flat = " ".join(redact(text).split())
    return flat if len(flat) <= EXCERPT_CHARS else flat[: EXCERPT_CHARS - 1] + "…"


@click.command(name="signals")
@click.argument("sessions", nargs=-1)
@scope_options(default_since="30d", default_limit=20)
@click.option("--json", "as_json", is_flag=True, help="One JSON object per signal, one per line.")
@click.option(
    "--min-confidence",
    default=str(NOISE_FLOOR),
    show_default=True,
    metavar="X|BAND",
    help="Hide signals below this confidence (a number, or none/low/medium/high/very_high).",
)
def command(sessions: tuple[str, ...], scope: Scope, as_json: bool, min_confidence: str) -> None:
    """Print deterministic feedback signals: denials, interrupts, plan rejections, answers.

    Ranked: corrections first, by confidence, newest first; replies that only
    agree ("ok ship it") last.

    SESSION is a transcript path (.jsonl) or a session id (prefix); with none,
    the sessions of the current project (see --project, --all-projects).
    """
    threshold = _confidence(min_confidence)
    if sessions:
        paths, missing = _resolve(sessions, scope)
        for arg in missing:
            click.echo(f"learn signals: no session {arg!r}", err=True)
        if not paths:
            sys.exit(1)
    else:
        discovery = scope.scan()
        paths = [f.path for f in discovery.files]
        if not paths:
            note = skipped_note(discovery.skipped, discovery.skipped_files)
            click.echo(
                f"No sessions in scope ({scope.describe()})"
                + (f"; skipped: {note}" if note else ""),
                err=True,
            )
            return

    from learn.redaction.redact import redact

    # Redacted like everything else learn shows: a key pasted into a session was
    # printed whole in this table.
    found = ranked(list(mine_paths(paths, threshold)))
    if as_json:
        out = sys.stdout
        for path, signal in found:
            record = signal.to_json()
            record["text"] = redact(signal.text)
            record["path"] = str(path)
            record["what"] = WHAT.get(signal.detector, signal.detector)
            record["acknowledgement"] = is_acknowledgement(signal.text)
            out.write(inert_json(json.dumps(record, ensure_ascii=False)) + "\n")
        return

    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from learn.report.words import plural

    # Four columns fit 80: the detector's name is in --json; the reasons go under the text.
    table = Table(title=f"signals (confidence ≥ {threshold:g})", show_lines=False)
    table.add_column("what", no_wrap=True)
    table.add_column("conf", no_wrap=True, justify="right")
    table.add_column("time", no_wrap=True)
    table.add_column("text (reasons)", overflow="fold", ratio=1, min_width=24)
    count = 0
    for _path, signal in found:
        count += 1
        reasons = [*signal.signal.reasons, *(["acknowledgement"] if is_acknowledgement(signal.text)
                                             else [])]
        table.add_row(
            WHAT.get(signal.detector, signal.detector),
            f"{signal.signal.confidence:.2f}",
            signal.occurred_at.strftime("%m-%d %H:%M"),
            Text(_excerpt(redact(signal.text))) + Text(f"\n{', '.join(reasons)}", style="dim"),
        )
    console = Console()
    if count:
        console.print(table)
    console.print(f"{plural(count, 'signal')} in {plural(len(paths), 'session')}")
