"""`learn team`: set up a team database that PostgreSQL itself protects.

`learn team init --admin-url URL [--member NAME ...]`, run once by the team's
admin (the role that will own the schema), migrates the database, creates the
team role, its grants, row-level security and the trigger that holds everyone
to their own rows (learn.store.pg_team), and for each member a login role with
an opaque name (learn.store.pg_members); it prints what each member puts in
their config. `learn team add-member NAME` adds one more person later (or gives
one a new password), `learn team remove-member NAME` takes one out with
everything they shared, `learn team members` lists who is in. The admin URL may
also come from LEARN_TEAM_ADMIN_URL. `learn team password`, run by a member,
replaces the password the admin handed them with one only they know.
"""

from __future__ import annotations

import sys

import click

_ADMIN = click.option("--admin-url", envvar="LEARN_TEAM_ADMIN_URL", required=True,
                      help="postgresql:// URL of the admin role (or LEARN_TEAM_ADMIN_URL).")


def _fail(message: str) -> None:
    click.echo(f"learn team: {message}", err=True)
    sys.exit(2)


def _problem(exc: Exception) -> str:
    from learn.store.db import StoreError

    if isinstance(exc, (StoreError, ValueError)):
        return str(exc)
    # psycopg's errors: a one-line message, not a traceback
    return f"{type(exc).__name__}: {exc}".splitlines()[0]


def _members(admin_url: str, names: tuple[str, ...], *, new_password: bool = False) -> None:
    from learn.store.pg_members import add_member, member_url
    from learn.store.postgres import connect, redact_url

    conn = connect(admin_url)
    shown = False
    try:
        for name in names:
            role, password = add_member(conn, name, new_password=new_password)
            if password is None:
                click.echo(f"\n# {name}: already a member (role {role}); their password is "
                           "unchanged (--new-password to set one)")
                continue
            shown = True
            click.echo(f"\n# {name}: member role {role}, its password set from a SCRAM "
                       "verifier made here (the password itself never went to the server)")
            click.echo(f"# Send {name}, privately, for their ~/.config/learn/config.toml "
                       "([team] section); `learn team password` then lets them choose their own:")
            click.echo(f'database_url = "{member_url(admin_url, role, password)}"')
    finally:
        conn.close()
    if shown:
        click.echo(f"\n# The admin's own URL stays {redact_url(admin_url)} (it can share nothing: "
                   "add yourself as a member to share); the passwords above are shown once.")


@click.group(name="team")
def command() -> None:
    """Set up a shared team database (PostgreSQL roles and row-level security)."""


@command.command(name="init",
                 short_help="Create the team database: schema, roles, policies.")
@_ADMIN
@click.option("--member", "members", multiple=True, help="A person's name (repeatable).")
def init(admin_url: str, members: tuple[str, ...]) -> None:
    """Create the schema, the team role, its policies, and a role per member."""
    from learn.store import open_store
    from learn.store.pg_members import check_name
    from learn.store.pg_team import require_server, setup
    from learn.store.postgres import connect, is_database_url, redact_url

    if not is_database_url(admin_url):
        _fail("the team database must be PostgreSQL (a postgresql:// URL)")
        return
    try:
        for name in members:
            check_name(name)
        conn = connect(admin_url)
        try:
            require_server(conn)  # before the migrations, which an old server would fail
            open_store(admin_url).close()  # the schema, owned by the admin
            done = setup(conn)
        finally:
            conn.close()
        click.echo(f"team database ready at {redact_url(admin_url)}: members read the team's "
                   "shared candidates and write only their own")
        if done.registered:
            click.echo(f"# members set up by an earlier learn keep their role names, which every "
                       f"member can see: {', '.join(done.registered)} (remove-member and "
                       "add-member again gives one an opaque role)")
        if done.uncounted:
            click.echo(f"# {done.uncounted} shared rows are under roles that are not members "
                       "(the admin's, a superuser's): team runs count them as no one; "
                       "`learn team members` names those roles, `learn team remove-member ROLE` "
                       "deletes their rows")
        _members(admin_url, members)
    except Exception as exc:
        _fail(_problem(exc))


@command.command(name="add-member",
                 short_help="Add people, each with a login role of their own.")
@_ADMIN
@click.option("--new-password", is_flag=True,
              help="Give an existing member a new password (their old URL stops working).")
@click.argument("names", nargs=-1, required=True)
def add_member(admin_url: str, names: tuple[str, ...], new_password: bool) -> None:
    """Add a person to the team: a login role of their own for each NAME."""
    from learn.store.pg_members import check_name

    try:
        for name in names:
            check_name(name)
        _members(admin_url, names, new_password=new_password)
    except Exception as exc:
        _fail(_problem(exc))


@command.command(name="remove-member",
                 short_help="Take a person out, with all they shared and their role.")
@_ADMIN
@click.argument("name")
def remove_member(admin_url: str, name: str) -> None:
    """Take a person out: everything they shared (and what team runs derived from
    it), their membership and their role. NAME may also be a role that shared
    without being a member."""
    from learn.store import open_store

    try:
        with open_store(admin_url) as store:
            role, who, n, dropped = store.team.remove(name)
    except Exception as exc:
        _fail(_problem(exc))
        return
    what = f"{who} (role {role})" if who else f"role {role}"
    gone = ("; their role is dropped" if dropped
            else "; their role is no longer a member" if who else "")
    click.echo(f"removed {what}: {n} shared candidates deleted{gone}")


@command.command(name="members",
                 short_help="Who is in the team: name, role, rows shared.")
@_ADMIN
def members(admin_url: str) -> None:
    """Who is in the team (the admin's view): name, role, rows shared."""
    from learn.store.pg_members import members as listing
    from learn.store.postgres import connect

    try:
        conn = connect(admin_url)
        try:
            rows = listing(conn)
            strays = conn.execute(
                "SELECT author, COUNT(*) FROM team_candidates WHERE author NOT IN "
                "(SELECT role FROM team_members) GROUP BY author ORDER BY author").fetchall()
        finally:
            conn.close()
    except Exception as exc:
        _fail(_problem(exc))
        return
    for r in rows:
        click.echo(f"{r.name}\t{r.role}\t{r.shared} shared")
    for author, n in strays:
        click.echo(f"(not a member)\t{author}\t{n} shared, counted as no one")


@command.command(name="password",
                 short_help="As a member: set a new password only you know.")
def password() -> None:
    """As a member: replace your password with a new one only you know, and print
    the database_url to put in your config (the old one stops working)."""
    from learn.config import load_config
    from learn.store.pg_members import member_url, set_own_password
    from learn.store.postgres import connect, is_database_url

    url = load_config().team.database_url
    if not url or not is_database_url(url):
        _fail("set [team] database_url in the config to your member URL first")
        return
    try:
        conn = connect(url)
        try:
            new = set_own_password(conn)
            role = str(conn.execute("SELECT session_user").fetchone()[0])
        finally:
            conn.close()
    except Exception as exc:
        _fail(_problem(exc))
        return
    click.echo("# Your password is changed; put this in [team] database_url (shown once):")
    click.echo(f'database_url = "{member_url(url, role, new)}"')
