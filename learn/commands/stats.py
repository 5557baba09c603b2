"""`learn stats`: proposals, decisions, runs, tokens and cost so far, and rule-file sizes.

Read-only: without a store it says "no runs yet" and exits 0, creating nothing.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click


@click.command(name="stats")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--project", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The project whose CLAUDE.md / AGENTS.md to measure (default: the current "
                   "directory).")
def command(as_json: bool, project: Path | None) -> None:
    """Proposals, decisions, runs, tokens and cost so far; sizes of your rule files."""
    import apsw

    from learn.report.stats import collect_stats, render_stats_text, stats_to_json
    from learn.store.db import SchemaMismatchError, StoreError

    try:
        stats = collect_stats(project=(project or Path.cwd()).expanduser())
    except SchemaMismatchError as exc:
        # Stats only reads, so an older store is not upgraded here.
        click.echo(f"learn stats: cannot read the store: {exc}\n"
                   "  hint: the next `learn run` upgrades a store from an older learn; "
                   "`learn doctor` checks it", err=True)
        sys.exit(1)
    except (StoreError, apsw.Error) as exc:  # a corrupt or locked file
        click.echo(f"learn stats: cannot read the store: {exc}\n"
                   "  hint: `learn doctor` checks it", err=True)
        sys.exit(1)
    if as_json:
        click.echo(json.dumps(stats_to_json(stats), indent=2))
    else:
        click.echo(render_stats_text(stats), nl=False)
