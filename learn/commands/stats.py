"""`learn stats`: proposals, decisions, runs, tokens and cost so far, and rule-file sizes.

It creates nothing: without a store it says "no runs yet" and exits 0. A store an older
learn wrote is migrated, as digest and apply do (learn.report.stats.read_store_stats).
"""

from __future__ import annotations

import json
from pathlib import Path

import click


@click.command(name="stats")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--project", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The project whose CLAUDE.md / AGENTS.md to measure (default: the current "
                   "directory).")
def command(as_json: bool, project: Path | None) -> None:
    """Proposals, decisions, runs, tokens and cost so far; sizes of your rule files."""
    from learn.commands._scope import existing_project
    from learn.report.stats import collect_stats, render_stats_text, stats_to_json

    existing_project(project)

    # A corrupt, locked or newer store is one line from the CLI edge (learn.errors).
    stats = collect_stats(project=(project or Path.cwd()).expanduser())
    if as_json:
        click.echo(json.dumps(stats_to_json(stats), indent=2))
    else:
        click.echo(render_stats_text(stats), nl=False)
