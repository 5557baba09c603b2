"""`learn report --out report.html`: the last run as one self-contained HTML file."""

from __future__ import annotations

from pathlib import Path

import click

from learn.paths import atomic_write_text
from learn.report.html import render_html
from learn.report.runs import NoRunError, require_run


@click.command(name="report")
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path),
              default=Path("learn-report.html"), show_default=True,
              help="Where to write the HTML file (written 0600: it quotes what you typed).")
@click.option("--since", default=None, metavar="AGE",
              help="Only a run recorded within AGE (7d, 12h, 2w or a date).")
def command(out: Path, since: str | None) -> None:
    """Write the last run's proposals, evidence, timeline, funnel and cost as one HTML file.

    No network: the page has no external resources and forbids loading any.
    """
    try:
        result = require_run(since)
    except (NoRunError, ValueError) as exc:
        raise click.ClickException(str(exc)) from exc
    atomic_write_text(out, render_html(result))
    click.echo(f"wrote {out} ({len(result.proposals)} proposals)", err=True)
