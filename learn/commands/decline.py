"""`learn decline KEY`: the person does not want this proposal; remember it.

Per project (the current directory's, or `--project`); a user-scope rule is the
person's, so declining it holds everywhere. A declined proposal is not offered
again unless it is said in REOFFER_FACTOR times as many distinct sessions as
when it was declined (learn.store.proposals).
"""

from __future__ import annotations

from pathlib import Path

import click


@click.command(name="decline")
@click.argument("keys", nargs=-1, required=True, metavar="KEY...")
@click.option("--project", "project_dir", type=click.Path(file_okay=False, path_type=Path),
              default=None, help="The project the proposal belongs to (default: the current "
                                 "directory's).")
def command(keys: tuple[str, ...], project_dir: Path | None) -> None:
    """Decline proposals (KEY or label as the digest shows it): they are not offered again."""
    from learn.commands.apply import decline_keys, here_project
    from learn.report.runs import NoRunError, require_proposals

    here = here_project(project_dir)
    try:
        require_proposals(here)
    except (NoRunError, ValueError) as exc:
        raise click.ClickException(str(exc)) from exc
    decline_keys(keys, here)
