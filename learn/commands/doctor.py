"""`learn doctor`: check directories, config, sqlite-vec, embedder, transcripts and backend.

Exit 1 when a required check fails; warnings (fallback embedder, no backend,
no transcripts yet) leave it at 0. Changes nothing; calls only an endpoint the
config names (is the openai server there?).
"""

from __future__ import annotations

import json
import sys

import click

from learn.visible import inert_json


@click.command(name="doctor")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def command(as_json: bool) -> None:
    """Check directories, the store, config, sqlite-vec, the embedder, transcripts and the
    backend, and what learn installed (hooks, /learn, the schedule): one line each, with
    the fix."""
    from learn.doctor import checks_to_json, failed, render_checks_text, run_checks

    checks = run_checks()
    if as_json:
        click.echo(inert_json(json.dumps(checks_to_json(checks), indent=2, ensure_ascii=False)))
    else:
        from learn.report.wrap import for_terminal

        # A hint is one line to a pipe; a terminal gets it wrapped at its width.
        click.echo(for_terminal(render_checks_text(checks), isatty=sys.stdout.isatty()), nl=False)
    sys.exit(1 if failed(checks) else 0)
