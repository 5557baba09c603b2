"""`learn share`: send this project's verified, redacted candidates to the team store.

Opt-in per project: the project must be listed in the config's `[team] projects`,
and `[team] database_url` / `[team] author` say where and under which id. What
is sent is exactly what `--dry-run` prints (learn.store.team.shareable): quote,
kind, label, a hash of the session id, when, the remote URL, the author id.
`--forget` deletes everything this author shared from the team store.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from learn.store.team import SharedCandidate


def _remote_url(root: Path) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(root), "remote", "get-url", "origin"],
                             capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    url = out.stdout.strip()
    # A token in an https remote (https://user:token@host/...) is not the team's to see.
    return re.sub(r"(://)[^/@]+@", r"\1", url) if out.returncode == 0 and url else None


def _fail(message: str) -> None:
    click.echo(f"learn share: {message}", err=True)
    sys.exit(2)


@click.command(name="share")
@click.option("--project", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The project to share (default: the current directory).")
@click.option("--dry-run", is_flag=True, help="Print exactly what would be sent; send nothing.")
@click.option("--forget", is_flag=True, help="Delete everything you shared from the team store.")
def command(project: Path | None, dry_run: bool, forget: bool) -> None:
    """Share this project's verified, redacted candidates with the team store."""
    from learn.config import ConfigError, load_config

    try:
        team = load_config().team
    except ConfigError as exc:
        _fail(str(exc))
        return
    if not team.author:
        _fail("set [team] author in the config: the id your shared rows carry")
        return
    author = team.author
    if forget:
        if not team.database_url:
            _fail("set [team] database_url in the config")
            return
        from learn.store.feedback import FeedbackStore
        from learn.store.team import forget as forget_rows

        with FeedbackStore.open(team.database_url) as store:
            n = forget_rows(store, author)
        click.echo(f"forgot {n} shared candidates of {author}")
        return

    root = (project or Path.cwd()).expanduser().resolve()
    opted = {Path(p).expanduser().resolve() for p in team.projects}
    if root not in opted:
        _fail(f"{root} is not opted in to sharing: add it to [team] projects in the config")
        return
    remote = _remote_url(root)
    if remote is None:
        _fail(f"{root} has no git remote 'origin': the team store groups by the repository")
        return
    rows = _local_rows(root, remote, author)
    if dry_run:
        for r in rows:
            click.echo(json.dumps(r.to_json(), ensure_ascii=False))
        click.echo(f"would share {len(rows)} candidates of {remote} as {author}", err=True)
        return
    if not team.database_url:
        _fail("set [team] database_url in the config")
        return
    from learn.store.feedback import FeedbackStore
    from learn.store.team import share

    with FeedbackStore.open(team.database_url) as store:
        n = share(store, rows)
    click.echo(f"shared {n} candidates of {remote} as {author}")


def _local_rows(root: Path, remote: str, author: str) -> list[SharedCandidate]:
    from learn.store.feedback import FeedbackStore
    from learn.store.learn_tables import LearnTables
    from learn.store.postgres import is_database_url
    from learn.store.runs import default_store_target
    from learn.store.team import shareable

    local = default_store_target()
    if not is_database_url(local) and not Path(local).is_file():
        return []
    with FeedbackStore.open(local) as store:
        candidates = LearnTables(store).candidates()
    return shareable(candidates, {root: remote}, author)
