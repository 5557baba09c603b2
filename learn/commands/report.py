"""`learn report --out report.html`: this project's pending proposals (or the last team run)
as one self-contained HTML file."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import click

from learn.errors import EXIT_USAGE
from learn.records.proposal import RunResult
from learn.report.errors import ConfinementError
from learn.report.html import render_html
from learn.report.out_file import check_out, write_out
from learn.report.runs import NoRunError
from learn.report.words import plural


@click.command(name="report")
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path),
              default=Path("learn-report.html"), show_default=True,
              help="Where to write the HTML file (written 0600: it quotes what you typed).")
@click.option("--since", default=None, metavar="SPAN|DATE",
              help="Only a run recorded since then (7d, 12h, 2w, or a date like "
                   "2026-11-01).")
@click.option("--project", "project_dir", type=click.Path(file_okay=False, path_type=Path),
              default=None, help="The project (default: the current directory's).")
@click.option("--all-projects", is_flag=True, help="Pending proposals of every project.")
@click.option("--team", is_flag=True,
              help="The last `learn run --team` of this repository, from the team database.")
def command(out: Path, since: str | None, project_dir: Path | None, all_projects: bool,
            team: bool) -> None:
    """Write this project's pending proposals, evidence, timeline, funnel and cost as one HTML file.

    No network: the page has no external resources and forbids loading any.
    """
    from learn.commands._scope import (
        NothingToShow,
        existing_project,
        since_time,
        stored_proposals,
    )

    since_at = since_time(since)
    existing_project(project_dir)
    try:
        check_out(out)
    except ConfinementError as exc:
        # A file that may not take a report is a usage error, as `learn run --out` says.
        raise click.UsageError(str(exc)) from exc
    try:
        if team:
            result = _team_run(since_at, since)
        else:
            from learn.index.known import named_project

            project = None if all_projects else named_project(project_dir)
            result = stored_proposals(project, since_at, since, folder=project_dir)
    except NothingToShow as exc:
        click.echo(f"{exc}; nothing written", err=True)
        return
    except NoRunError as exc:
        raise click.ClickException(str(exc)) from exc
    # A team run is read back from a database every member can write: the page says
    # so, and that what the shared rows can tell was checked against them.
    title = TEAM_TITLE if team else "learn report"
    try:
        write_out(out, render_html(result, title=title))
    except ConfinementError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"wrote {out} ({plural(len(result.proposals), 'proposal')})", err=True)


TEAM_TITLE = ("learn team report: the last team run stored by a member; people, sessions, "
              "names and quotes rechecked against what was shared")


class TeamSetupProblem(click.ClickException):
    """A `--team` the configuration or the folder cannot serve: exit 2 (learn.errors), as
    `learn run --team` exits for the same lines; a plain ClickException exited 1."""

    exit_code = EXIT_USAGE


def _team_run(since_at: datetime | None, since: str | None) -> RunResult:
    from learn.config import load_config
    from learn.projects import repository_id_of

    team = load_config().team
    url = team.database_url
    if not url:
        raise TeamSetupProblem("--team needs [team] database_url in the config")
    root = Path.cwd().resolve()
    remote = repository_id_of(root)
    if remote is None:
        raise TeamSetupProblem(f"{root} has no git remote on a host: a team run groups "
                               "by the repository")
    from learn.reduce.team_recheck import latest_rechecked_run
    from learn.store import open_store

    # Any member can write a run: its counts, names and quotes are checked against
    # what was shared, as `learn run --team` counts them, and a run whose funnel or
    # cost cannot be a run's is skipped, never shown with its numbers
    # (learn.reduce.team_recheck).
    with open_store(url) as store:
        rows = store.team.shared_rows(remote)
        stored = store.runs.stored_results()
    notes: list[str] = []
    result = latest_rechecked_run(stored, rows, remote=remote, since=since_at,
                                  min_people=team.min_people, min_sessions=team.min_sessions,
                                  notes=notes)
    for note in notes:
        click.echo(f"learn: {note}", err=True)
    if result is None:
        window = f" since {since}" if since else ""
        raise NoRunError(f"no stored team run{window} of {remote} that can be shown: run "
                         "`learn run --team` first")
    return result
