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
    """Decline proposals (KEY or label as the digest shows it): they are not proposed again
    until said in twice as many sessions as when declined (`learn apply --dismiss KEY` does
    the same)."""
    from learn.commands._scope import NothingToShow, stored_proposals
    from learn.commands.apply import decline_keys, here_project
    from learn.commands.apply_lock import after_runs
    from learn.report.runs import NoRunError

    here = here_project(project_dir)
    # Read and recorded with no `learn run` storing meanwhile, in one hold: the KEY asked
    # is the one on record when the decline is, not one a run renamed in between.
    with after_runs(f"declining {', '.join(keys)}"):
        try:
            stored_proposals(here, None, None, folder=project_dir)
        except NothingToShow as exc:
            # Nothing here can be declined: KEY names no proposal, a usage error.
            raise click.UsageError(f"not a proposal of {here}: {', '.join(keys)}; "
                                   f"{exc}") from exc
        except NoRunError as exc:
            raise click.ClickException(str(exc)) from exc
        decline_keys(keys, here)
