"""`learn outcomes`: did the rules work? Each rule in place, from the newest run that read
this project: loaded or never loaded (why, and the fix), holding or ignored, and the
rate the person had to say it again per loaded session before and since, with its
95% interval. No model call: it re-reads what the last `learn run` measured."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from learn.visible import inert_json


@click.command("outcomes")
@click.option("--project", "project_dir", type=click.Path(file_okay=False, path_type=Path),
              default=None, help="The project (default: the current directory's).")
@click.option("--all-projects", is_flag=True, help="Rules of every project.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per rule, in a list.")
def command(project_dir: Path | None, all_projects: bool, as_json: bool) -> None:
    """Did the rules work: loaded or not, holding or ignored, rates before and since."""
    from learn.commands._scope import NothingToShow, existing_project, stored_proposals
    from learn.index.known import named_project
    from learn.report.outcomes import outcome_lines, outcomes_of
    from learn.report.runs import NoRunError

    # The project and "nothing here" are decided as `learn digest` decides them
    # (learn.commands._scope.stored_proposals): a folder learn reads no session of exits 0
    # saying so; outcomes alone said "run `learn run` there first" with exit 1.
    existing_project(project_dir)
    project = None if all_projects else named_project(project_dir)
    try:
        result = stored_proposals(project, None, None, folder=project_dir)
    except NothingToShow as exc:
        click.echo(f"learn outcomes: {exc}", err=True)
        return
    except (NoRunError, ValueError) as exc:
        click.echo(f"learn outcomes: {exc}", err=True)
        sys.exit(1)
    found = outcomes_of(result)
    if as_json:
        click.echo(inert_json(json.dumps([o.to_json() for o in found], indent=2,
                                          ensure_ascii=False)))
        return
    if not found:
        click.echo("no rule measured yet: the newest `learn run` here found no rule in place; "
                   "a rule you apply (or write yourself) is measured from the next run")
        return
    click.echo("\n".join(outcome_lines(result)).strip())
