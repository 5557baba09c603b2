"""`learn digest`: this project's pending proposals, from the store. No model calls, no prompts.

Pending: proposed by any run and not yet applied, declined or superseded; the
header is the newest run that read this project. `--all` shows every state.

Safe to run unattended (cron, systemd): it never asks anything, exits non-zero
on failure, and with --out says what it did in one line on stderr.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click
from click.core import ParameterSource

from learn.report.digest import render_digest_json, render_digest_markdown
from learn.report.errors import ConfinementError
from learn.report.html import render_html
from learn.report.out_file import check_out, write_out
from learn.report.runs import NoRunError
from learn.report.words import plural

RENDERERS = {"md": render_digest_markdown, "json": render_digest_json, "html": render_html}


@click.command(name="digest")
@click.option("--since", default=None, metavar="SPAN|DATE",
              help="Only a run recorded since then (7d, 12h, 2w, or a date like "
                   "2026-11-01); exit 1 when there is none (for unattended checks).")
@click.option("--project", "project_dir", type=click.Path(file_okay=False, path_type=Path),
              default=None, help="The project (default: the current directory's).")
@click.option("--all-projects", is_flag=True, help="Pending proposals of every project.")
@click.option("--all", "every_state", is_flag=True,
              help="Every proposal, applied and declined ones too (each says its state).")
@click.option("--format", "fmt", type=click.Choice(sorted(RENDERERS)), default="md",
              show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write to FILE (atomically, 0600) instead of stdout.")
def command(since: str | None, project_dir: Path | None, all_projects: bool, every_state: bool,
            fmt: str, as_json: bool, out: Path | None) -> None:
    """This project's pending proposals from the store (markdown, JSON or HTML)."""
    from learn.commands._scope import (
        NothingToShow,
        existing_project,
        since_time,
        stored_proposals,
    )
    from learn.index.known import named_project

    if as_json:
        # `--json` is `--format json`: said with another format it was silently taken
        # over it (`--json --format md` printed JSON), so the two are refused together.
        given = click.get_current_context().get_parameter_source("fmt")
        if given is ParameterSource.COMMANDLINE and fmt != "json":
            raise click.UsageError(f"--json and --format {fmt} cannot be combined: choose one")
        fmt = "json"
    since_at = since_time(since)
    existing_project(project_dir)
    if out is not None:
        _check_out(out)
    project = None if all_projects else named_project(project_dir)
    try:
        result = stored_proposals(project, since_at, since, folder=project_dir,
                                  every_state=every_state)
    except NothingToShow as exc:
        click.echo(f"learn digest: {exc}", err=True)
        return
    except NoRunError as exc:
        click.echo(f"learn digest: {exc}", err=True)
        sys.exit(1)
    text = RENDERERS[fmt](result)
    if out is None:
        from learn.report.wrap import for_terminal

        click.echo(for_terminal(text, isatty=fmt == "md" and sys.stdout.isatty()), nl=False)
        return
    try:
        write_out(out, text)
    except ConfinementError as exc:
        click.echo(f"learn digest: {exc}", err=True)
        sys.exit(1)
    except OSError as exc:
        click.echo(f"learn digest: cannot write {out}: {exc}", err=True)
        sys.exit(1)
    click.echo(f"learn digest: wrote {out} ({fmt}, {plural(len(result.proposals), 'proposal')})",
               err=True)


def _check_out(out: Path) -> None:
    """`--out` names a file of its own (learn.report.out_file), asked before any work: one
    that is not is a usage error (exit 2), as for `learn run --out`."""
    try:
        check_out(out)
    except ConfinementError as exc:
        click.echo(f"learn digest: {exc}", err=True)
        sys.exit(2)
