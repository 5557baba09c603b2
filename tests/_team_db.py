"""A team database as `learn team init` leaves it: the schema owned by the admin,
one login role per person, row-level security on their shared rows."""

from __future__ import annotations

from learn.store import FeedbackStore
from learn.store.pg_team import add_member, member_url, setup
from learn.store.postgres import connect


def team_database(admin_url: str, *members: str) -> dict[str, str]:
    """Set the database at admin_url up for a team; each member's database URL."""
    FeedbackStore.open(admin_url).close()
    conn = connect(admin_url)
    try:
        setup(conn)
        return {name: member_url(admin_url, name, add_member(conn, name, new_password=True) or "")
                for name in members}
    finally:
        conn.close()
