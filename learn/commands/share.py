"""`learn share`: send this project's verified, redacted candidates to the team store.

Opt-in per project: the project must be listed in the config's `[team] projects`,
and `[team] database_url` says where. On PostgreSQL your identity is the member
role in that URL (`learn team init` prints one per person); the admin's URL, a
superuser's or any role init did not set up is refused in one line. A SQLite
team store takes `[team] author`. What is sent is exactly what `--dry-run` prints
(learn.reduce.sharing.shareable): quote, kind, label, a hash of the session id, when,
the repository's identity, the author; a fix only as the commands that ran.
`--forget` deletes everything you shared and what team runs derived from it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from learn.visible import inert_json

if TYPE_CHECKING:
    from learn.config import TeamConfig
    from learn.reduce.sharing import CommandsRan
    from learn.store.team import SharedCandidate


def _fail(message: str) -> None:
    click.echo(f"learn share: {message}", err=True)
    sys.exit(2)


def _who(team: TeamConfig) -> tuple[str, str]:
    """(author id, name to show) rows are shared under: a member's login role on
    PostgreSQL (learn.store.team.TeamTable.member refuses anyone else), the
    configured author on a SQLite team store."""
    from learn.store import open_store

    assert team.database_url
    with open_store(team.database_url) as store:
        me = store.team.member(team.author)
    return me.role, me.name


@click.command(name="share")
@click.option("--project", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The project to share (default: the current directory).")
@click.option("--dry-run", is_flag=True, help="Print exactly what would be sent; send nothing.")
@click.option("--forget", is_flag=True,
              help="Delete everything you shared, and what team runs derived from it.")
def command(project: Path | None, dry_run: bool, forget: bool) -> None:
    """Share this project's verified, redacted candidates with the team store."""
    from learn.config import ConfigError, load_config
    from learn.store.db import StoreError

    try:
        team = load_config().team
    except ConfigError as exc:
        _fail(str(exc))
        return
    if forget:
        if not team.database_url:
            _fail("set [team] database_url in the config (your member URL, from `learn "
                  "team init` or `add-member`)")
            return
        from learn.store import open_store

        try:
            with open_store(team.database_url) as store:
                me = store.team.member(team.author)
                n = store.team.forget(me.role)
        except (StoreError, ValueError) as exc:
            _fail(str(exc))
            return
        click.echo(f"forgot {n} shared candidates of {me.name}")
        return

    from learn.projects import checkout_folder, project_here, repository_id_of

    # Opted in by project (learn.projects): any checkout or sub-folder of an opted-in
    # repository is that repository, and is shared as it.
    root = checkout_folder(project or Path.cwd())
    here = project_here(root)
    if here not in {project_here(Path(p).expanduser()) for p in team.projects}:
        from learn.config import config_path

        _fail(f"{root} is not opted in to sharing: add it to [team] projects in "
              f"{config_path()}")
        return
    remote = repository_id_of(root)
    if remote is None:
        _fail(f"{root} has no git remote on a host: the team store groups by the "
              "repository")
        return
    if not dry_run and not team.database_url:
        _fail("set [team] database_url in the config (your member URL, from `learn "
              "team init` or `add-member`)")
        return
    try:
        author, name = _who(team) if team.database_url else ((team.author or "you"),) * 2
    except (StoreError, ValueError) as exc:
        _fail(str(exc))
        return
    rows = _local_rows(root, remote, author, show_name=team.show_name)
    if dry_run:
        for r in rows:
            click.echo(inert_json(json.dumps(r.to_json(), ensure_ascii=False)))
        click.echo(f"would share {len(rows)} candidates of {remote} as {name}", err=True)
        return
    assert team.database_url  # checked above: only a dry run goes without one
    from learn.store import open_store

    try:
        with open_store(team.database_url) as store:
            n = store.team.share(rows)
            guarded = store.team.is_postgres()
    except StoreError as exc:
        _fail(str(exc))
        return
    click.echo(f"shared {n} candidates of {remote} as {name}")
    if not guarded:
        click.echo("learn share: warning: a SQLite team store protects no one: anyone who can "
                   "open the file can read, change or delete every row (a team shares into "
                   "PostgreSQL set up by `learn team init`)", err=True)


def _commands_ran(paths: dict[str, str]) -> CommandsRan:
    """session id -> the commands that ran in it, read again from its transcript
    (None when it cannot be read: a fix that cannot be checked is not shared)."""
    from learn.mining.verify import session_commands
    from learn.transcripts.parser import parse
    from learn.transcripts.view.session import build_session

    cache: dict[str, Sequence[str] | None] = {}

    def ran(session_id: str) -> Sequence[str] | None:
        if session_id not in cache:
            path = paths.get(session_id)
            try:
                cache[session_id] = (session_commands(build_session(parse(Path(path))))
                                     if path else None)
            except (OSError, ValueError):
                cache[session_id] = None
        return cache[session_id]

    return ran


def _local_rows(root: Path, remote: str, author: str, *, show_name: bool) -> list[SharedCandidate]:
    from learn.reduce.sharing import shareable
    from learn.store import open_store
    from learn.store.postgres import is_database_url
    from learn.store.runs import default_store_target

    local = default_store_target()
    if not is_database_url(local) and not Path(local).is_file():
        return []
    with open_store(local) as store:
        candidates = store.scans.candidates()
        paths = {sid: s.path for sid, s in store.scans.scanned_sessions().items()}
    ran = _commands_ran(paths)
    return shareable(candidates, {root: remote}, author, show_name=show_name,
                     commands_ran=ran)
