"""`learn team`: set up a team database that PostgreSQL itself protects.

`learn team init --admin-url URL [--member NAME ...]`, run once by the team's
admin (the role that will own the schema), migrates the database, creates the
team role, its grants and row-level security (learn.store.pg_team), and for each
member a login role; it prints what each member puts in their config.
`learn team add-member NAME` adds one more person later (or gives one a new
password). The admin URL may also come from LEARN_TEAM_ADMIN_URL.
"""

from __future__ import annotations

import sys

import click

_ADMIN = click.option("--admin-url", envvar="LEARN_TEAM_ADMIN_URL", required=True,
                      help="postgresql:// URL of the admin role (or LEARN_TEAM_ADMIN_URL).")


def _fail(message: str) -> None:
    click.echo(f"learn team: {message}", err=True)
    sys.exit(2)


def _members(admin_url: str, names: tuple[str, ...], *, new_password: bool = False) -> None:
    from learn.store.pg_team import add_member, member_url, team_role
    from learn.store.postgres import connect, redact_url

    conn = connect(admin_url)
    try:
        team = team_role(conn)
        for name in names:
            password = add_member(conn, name, new_password=new_password)
            if password is None:
                click.echo(f"\n# {name}: an existing role, now in {team}; their password "
                           "is unchanged (--new-password to set one)")
            else:
                click.echo(f"\n# {name}: ran CREATE ROLE {name} LOGIN PASSWORD '…' "
                           f"IN ROLE {team}")
            click.echo(f"# Send {name}, privately, for their ~/.config/learn/config.toml "
                       "([team] section):")
            click.echo(f'database_url = "{member_url(admin_url, name, password or "PASSWORD")}"')
    finally:
        conn.close()
    if names:
        click.echo(f"\n# The admin's own URL stays {redact_url(admin_url)}; the passwords "
                   "above are shown once.")


@click.group(name="team")
def command() -> None:
    """Set up a shared team database (PostgreSQL roles and row-level security)."""


@command.command(name="init")
@_ADMIN
@click.option("--member", "members", multiple=True, help="A person's role name (repeatable).")
def init(admin_url: str, members: tuple[str, ...]) -> None:
    """Create the schema, the team role, its policies, and a role per member."""
    from learn.store import open_store
    from learn.store.db import StoreError
    from learn.store.pg_team import check_role, setup
    from learn.store.postgres import connect, is_database_url, redact_url

    if not is_database_url(admin_url):
        _fail("the team database must be PostgreSQL (a postgresql:// URL)")
        return
    try:
        for name in members:
            check_role(name)
        open_store(admin_url).close()  # the schema, owned by the admin
        conn = connect(admin_url)
        try:
            setup(conn)
        finally:
            conn.close()
        click.echo(f"team database ready at {redact_url(admin_url)}: members read the team's "
                   "shared candidates and write only their own")
        _members(admin_url, members)
    except (StoreError, ValueError) as exc:
        _fail(str(exc))
    except Exception as exc:  # psycopg's errors: a one-line message, not a traceback
        _fail(f"{type(exc).__name__}: {exc}".splitlines()[0])


@command.command(name="add-member")
@_ADMIN
@click.option("--new-password", is_flag=True,
              help="Give an existing role a new password (roles are server-wide: it changes "
                   "for every database on the server).")
@click.argument("names", nargs=-1, required=True)
def add_member(admin_url: str, names: tuple[str, ...], new_password: bool) -> None:
    """Add a person to the team: a login role for each NAME (kept if it exists)."""
    from learn.store.db import StoreError
    from learn.store.pg_team import check_role

    try:
        for name in names:
            check_role(name)
        _members(admin_url, names, new_password=new_password)
    except (StoreError, ValueError) as exc:
        _fail(str(exc))
    except Exception as exc:
        _fail(f"{type(exc).__name__}: {exc}".splitlines()[0])
