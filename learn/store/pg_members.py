"""A team's members on PostgreSQL: who they are to the database, and their passwords.

Each person is a LOGIN role with an opaque name (`learn_m_` and 12 random hex
digits), made for this one team database: roles are cluster-wide and every
role can read pg_roles and pg_auth_members, so a role named after its person
would list the team to each member. The name the admin gives a person is kept
in team_members, which only the admin reads; a team proposal shows it only if
its person chose `[team] show_name = true`.

A password never travels in SQL: the client computes the SCRAM-SHA-256 verifier
(libpq's PQencryptPasswordConn, as psql's \\password does) and `CREATE ROLE ...
PASSWORD 'SCRAM-SHA-256$…'` stores it as it is, so a server logging every
statement logs the verifier, never the password. A member can replace the
password the admin handed them with one only they know (set_own_password).
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from urllib.parse import quote, urlsplit, urlunsplit

from learn.store.connection import Connection
from learn.store.pg_team import grant_team, team_role

MEMBER_ROLE_PREFIX = "learn_m_"
MAX_NAME = 64
# A role learn may put in DDL: an unquoted identifier (it folds to itself).
_ROLE = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
_VERIFIER = re.compile(r"^SCRAM-SHA-256\$\d+:[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$")


@dataclass(frozen=True, slots=True)
class MemberRow:
    name: str
    role: str
    shared: int  # rows of team_candidates under their role


def check_name(name: str) -> str:
    """A person's name in the team: printable, at most MAX_NAME characters (it is
    stored as data, never put into SQL text)."""
    clean = name.strip()
    if not clean or len(clean) > MAX_NAME or not clean.isprintable():
        raise ValueError(f"not a usable member name: {name!r} (1-{MAX_NAME} printable characters)")
    return clean


def _role(name: str) -> str:
    if not _ROLE.match(name):
        raise ValueError(f"not a role learn manages: {name!r}")
    return name


def verifier(conn: Connection, role: str, password: str) -> str:
    """The SCRAM-SHA-256 verifier of `password` for `role`, computed here (libpq),
    never the password itself."""
    from learn.store.postgres import PgConnection

    assert isinstance(conn, PgConnection)
    made = conn.raw.pgconn.encrypt_password(password.encode(), role.encode(), b"scram-sha-256")
    text = made.decode("ascii")
    if not _VERIFIER.match(text):  # it goes into DDL text: nothing but the verifier's alphabet
        raise ValueError("libpq answered something that is not a SCRAM verifier")
    return text


def _new_password() -> str:
    return secrets.token_urlsafe(24)


def _find(conn: Connection, who: str) -> tuple[str, str] | None:
    row = conn.execute("SELECT role, name FROM team_members WHERE name = $1 OR role = $1 "
                       "ORDER BY name = $1 DESC LIMIT 1", (who,)).fetchone()
    return None if row is None else (str(row[0]), str(row[1]))


def add_member(conn: Connection, name: str, *, new_password: bool = False
               ) -> tuple[str, str | None]:
    """Make `name` a member of the connected database's team (setup() must have
    run): a new LOGIN role, its password set from a verifier. Returns (role,
    password to hand that person, shown once); an existing member keeps their
    password unless `new_password`, and None is returned for it."""
    from learn.isotime import now_iso

    name = check_name(name)
    team = team_role(conn)
    found = _find(conn, name)
    if found is not None and found[1] != name:
        raise ValueError(f"{name!r} is a member's role, not a name: choose another name")
    conn.execute("BEGIN")
    try:
        if found is not None:
            role = found[0]
            password = _new_password() if new_password else None
            if password is not None:
                conn.execute(f"ALTER ROLE {_role(role)} PASSWORD '{verifier(conn, role, password)}'")
        else:
            role = _fresh_role(conn)
            password = _new_password()
            conn.execute(f"CREATE ROLE {role} LOGIN INHERIT PASSWORD '{verifier(conn, role, password)}' "
                         "NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS")
            conn.execute("INSERT INTO team_members (role, name, added_at) VALUES ($1, $2, $3)",
                         (role, name, now_iso()))
        grant_team(conn, team, role)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return role, password


def _fresh_role(conn: Connection) -> str:
    while True:
        role = MEMBER_ROLE_PREFIX + secrets.token_hex(6)
        if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = $1", (role,)).fetchone() is None:
            return role


def members(conn: Connection) -> list[MemberRow]:
    """Every member (the admin's view), with how many rows each has shared."""
    rows = conn.execute(
        "SELECT m.name, m.role, (SELECT COUNT(*) FROM team_candidates c WHERE c.author = m.role) "
        "FROM team_members m ORDER BY m.name").fetchall()
    return [MemberRow(str(n), str(r), int(k)) for n, r, k in rows]


def member_role(conn: Connection, who: str) -> tuple[str, str | None]:
    """(role, name) of a member given by name or role; a role that is not a member
    but has shared rows (a superuser's, an old setup's) is (role, None)."""
    found = _find(conn, who)
    if found is not None:
        return found
    shared = conn.execute("SELECT 1 FROM team_candidates WHERE author = $1 LIMIT 1",
                          (who,)).fetchone()
    if shared is None:
        raise ValueError(f"{who!r} is not a member of this team and has shared nothing")
    return who, None


def drop_member(conn: Connection, role: str) -> bool:
    """Inside the caller's transaction: take `role` out of the team; a role learn
    made for this team is dropped, another is only revoked. True when dropped."""
    conn.execute("DELETE FROM team_members WHERE role = $1", (role,))
    exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = $1", (role,)).fetchone()
    if exists is None:
        return False
    conn.execute(f"REVOKE {team_role(conn)} FROM {_role(role)}")
    if not role.startswith(MEMBER_ROLE_PREFIX):
        return False
    # Made for this team: its only membership; it owns nothing (members create nothing).
    conn.execute(f"DROP ROLE {role}")
    return True


def set_own_password(conn: Connection) -> str:
    """A member replaces their password with a new one only they see (returned);
    the admin who handed out the first one no longer knows it."""
    from learn.store.pg_team import member

    me = member(conn)
    password = _new_password()
    conn.execute(f"ALTER ROLE {_role(me.role)} PASSWORD '{verifier(conn, me.role, password)}'")
    return password


def member_url(url: str, role: str, password: str) -> str:
    """`url` with the member's role and password in place of the user it names."""
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{quote(role)}:{quote(password, safe='')}@{host}"))

