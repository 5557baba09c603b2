"""`learn signals`: the deterministic feedback signals in sessions, no model involved.

Useful on its own (what did I reject, interrupt, answer?) and as a check on what
the detectors feed the pipeline: a signal at or above HIGH whose text the person
typed becomes a directive candidate without a model call.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import click

from learn.commands._scope import Scope, scope_options, skipped_note
from learn.detect.confidence import BANDS, NOISE_FLOOR
from learn.detect.signals import MiningSignal

EXCERPT_CHARS = 80


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
        from learn.transcripts.discover import discover

        files = discover(all_projects=True)
        for session_id in ids:
            matches = [f.path for f in files if f.session_id.startswith(session_id)]
            if matches:
                paths.extend(matches)
            else:
                missing.append(session_id)
    return paths, missing


def mine_paths(paths: list[Path], min_confidence: float) -> Iterator[tuple[Path, MiningSignal]]:
    """Signals at or above `min_confidence`, file by file; an unreadable file is skipped."""
    from learn.detect.detectors import mine
    from learn.transcripts.parser import parse

    for path in paths:
        try:
            transcript = parse(path)
        except OSError as exc:
            click.echo(f"learn signals: cannot read {path}: {exc.strerror or exc}", err=True)
            continue
        for signal in mine(list(transcript.events), provider=transcript.provider):
            if signal.signal.confidence >= min_confidence:
                yield path, signal


def _excerpt(text: str) -> str:
    from learn.render.redact import redact

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
            note = skipped_note(discovery)
            click.echo(
                f"No sessions in scope ({scope.describe()})"
                + (f"; skipped: {note}" if note else ""),
                err=True,
            )
            return

    if as_json:
        out = sys.stdout
        for path, signal in mine_paths(paths, threshold):
            record = signal.to_json()
            record["path"] = str(path)
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
        return

    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"signals (confidence ≥ {threshold:g})", show_lines=False)
    table.add_column("detector", no_wrap=True)
    table.add_column("kind", overflow="fold")
    table.add_column("conf", no_wrap=True, justify="right")
    table.add_column("reasons", overflow="fold")
    table.add_column("time", no_wrap=True)
    table.add_column("text", overflow="fold", ratio=1, min_width=20)
    count = 0
    for _path, signal in mine_paths(paths, threshold):
        count += 1
        table.add_row(
            signal.detector,
            signal.kind,
            f"{signal.signal.confidence:.2f}",
            ", ".join(signal.signal.reasons),
            signal.occurred_at.strftime("%m-%d %H:%M"),
            _excerpt(signal.text),
        )
    console = Console()
    if count:
        console.print(table)
    console.print(f"{count} signal(s) in {len(paths)} session(s)")
