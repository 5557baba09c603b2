"""A team database as `learn team init` leaves it: the schema owned by the admin,
one login role per person (an opaque name), row-level security on their shared
rows and the trigger that holds every role to its own."""

from __future__ import annotations

from learn.store import FeedbackStore
from learn.store.pg_members import add_member, member_url
from learn.store.pg_team import setup
from learn.store.postgres import connect


def team_database(admin_url: str, *members: str) -> dict[str, str]:
    """Set the database at admin_url up for a team; each member's database URL."""
    return {name: url for name, (_, url) in team_members(admin_url, *members).items()}


def team_members(admin_url: str, *members: str) -> dict[str, tuple[str, str]]:
    """Set the database at admin_url up for a team; each member's (role, database URL)."""
    FeedbackStore.open(admin_url).close()
    conn = connect(admin_url)
    try:
        setup(conn)
        out = {}
        for name in members:
            role, password = add_member(conn, name, new_password=True)
            assert password is not None
            out[name] = (role, member_url(admin_url, role, password))
        return out
    finally:
        conn.close()


def printed_urls(output: str) -> dict[str, str]:
    """name -> database_url, from what `learn team init` / `add-member` printed."""
    import re

    urls: dict[str, str] = {}
    name = None
    for line in output.splitlines():
        m = re.match(r"^# (.+?): member role learn_m_[0-9a-f]{12},", line)
        if m:
            name = m.group(1)
        m = re.match(r'^database_url = "(postgresql://[^"]+)"$', line)
        if m and name is not None:
            urls[name] = m.group(1)
            name = None
    return urls


def roles(admin_url: str) -> dict[str, str]:
    """name -> login role of every member, read as the admin."""
    import psycopg

    with psycopg.connect(admin_url) as conn:
        return {str(n): str(r) for n, r in conn.execute("SELECT name, role FROM team_members")}
