"""What `learn doctor` says of the team database `[team] database_url` names.

Doctor said nothing of it: a wrong password, a server without pgvector, a schema a
newer learn migrated, or the admin's URL pasted where a member's belongs each came
out only at the next `learn share` or `learn run --team`, as that command's failure.
team_health() asks the same questions up front, over one read-only connection that
gives up connecting after DOCTOR_CONNECT_TIMEOUT_S and runs no statement longer than
DOCTOR_STATEMENT_TIMEOUT_MS, and changes nothing. Every line names the database by
its URL with the password taken out (redact_url).
"""

from __future__ import annotations

from dataclasses import dataclass

from learn.store.connection import Connection

# Doctor runs its checks one after another and a person waits for all of them: a
# server on the same network answers in milliseconds and one across the internet
# (TLS included) in well under a second, so 3 s tells "down or filtered" from "slow"
# without holding doctor for the 10 s learn's own connections allow
# (learn.store.postgres.CONNECT_TIMEOUT_S). A URL's own shorter limit wins.
DOCTOR_CONNECT_TIMEOUT_S = 3
# Each question is a catalog lookup; one that takes seconds means a server too busy
# to be called usable, not a reason to hang.
DOCTOR_STATEMENT_TIMEOUT_MS = 5_000
# HNSW indexes, which every vector table of learn's has, came with pgvector 0.5.
MIN_PGVECTOR = (0, 5)


@dataclass(frozen=True, slots=True)
class TeamHealth:
    ok: bool
    detail: str  # one line; names the database by its redacted URL
    fix: str = ""  # one line, when not ok


def _one_line(text: str) -> str:
    # psycopg's connection errors run over several lines (one per address tried).
    return " ".join(str(text).split())


def _version(text: str) -> tuple[int, ...]:
    parts = []
    for part in text.split("."):
        digits = "".join(c for c in part if c.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


def team_health(url: str) -> TeamHealth:
    """Whether learn can use the team database at `url` (a postgresql:// URL): it
    answers within DOCTOR_CONNECT_TIMEOUT_S, has pgvector 0.5+, holds learn's team
    schema at the version this learn reads, and the URL's role is a member."""
    from learn.store.db import StoreError
    from learn.store.postgres import connect, redact_url

    where = redact_url(url)
    try:
        conn = connect(url, readonly=True, connect_timeout_s=DOCTOR_CONNECT_TIMEOUT_S)
    except ImportError:
        return TeamHealth(False, f"{where}: psycopg is not installed",
                          "pip install 'learn[team]' in learn's environment")
    except StoreError as exc:  # "cannot connect to <redacted URL>: …"
        return TeamHealth(False, _one_line(str(exc)),
                          "check the host, port, user and password in [team] database_url, "
                          f"and that the server is up (doctor waits {DOCTOR_CONNECT_TIMEOUT_S} s)")
    except Exception as exc:  # a URL psycopg cannot parse (ProgrammingError)
        return TeamHealth(False, f"{where}: {_one_line(str(exc))}",
                          "fix [team] database_url (postgresql://USER:PASSWORD@HOST/DATABASE)")
    try:
        conn.execute(f"SET statement_timeout = {int(DOCTOR_STATEMENT_TIMEOUT_MS)}")
        return _inspect(conn, where)
    except Exception as exc:  # the server went away, or a statement ran out of time
        return TeamHealth(False, f"{where}: {type(exc).__name__}: {_one_line(str(exc))}",
                          "check that the database is reachable and not overloaded, then run "
                          "`learn doctor` again")
    finally:
        conn.close()


def _inspect(conn: Connection, where: str) -> TeamHealth:
    from learn.store.migrations import STEP_NAMES
    from learn.store.pg_team import MIN_SERVER, TeamAccessError, member, server_version

    version = server_version(conn)
    server = f"PostgreSQL {version // 10000}.{version % 10000}"
    if version < MIN_SERVER:
        return TeamHealth(False, f"{where}: {server} is older than 13, which a learn team needs",
                          "move the team database to PostgreSQL 13 or newer")
    row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
    vector = str(row[0]) if row else None
    # Through pg_class, which every role reads: to_regclass() and current_schemas()
    # leave out a schema the role has no USAGE on (anyone not in the team), as if
    # there were no team. One on the role's search path first.
    found = conn.execute(
        "SELECT c.oid, has_table_privilege(c.oid, 'SELECT') FROM pg_class c "
        "JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE c.relname = '_migrations' AND c.relkind = 'r' "
        "AND n.nspname NOT IN ('pg_catalog', 'information_schema') "
        "ORDER BY n.nspname = ANY(current_schemas(false)) DESC, n.nspname = 'public' DESC "
        "LIMIT 1").fetchone()
    set_up, readable = found is not None, found is not None and bool(found[1])
    if vector is None:
        available = conn.execute(
            "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone()
        if available is None:
            return TeamHealth(False, f"{where}: the server has no pgvector extension",
                              "install pgvector 0.5 or newer on the database server; the "
                              "admin's `learn team init` then creates it in the database")
        if set_up:
            return TeamHealth(False, f"{where}: pgvector is not created in this database",
                              "the database's owner runs CREATE EXTENSION vector")
    elif _version(vector) < MIN_PGVECTOR:
        return TeamHealth(False, f"{where}: pgvector {vector} is older than 0.5 (HNSW indexes)",
                          "install pgvector 0.5 or newer on the server, then ALTER EXTENSION "
                          "vector UPDATE as the database's owner")
    if not set_up:
        return TeamHealth(False, f"{where}: no learn team here yet ({server}"
                          + (f", pgvector {vector})" if vector else ", pgvector available)"),
                          "the team's admin runs `learn team init --admin-url URL --member "
                          "NAME`, which creates the schema, and sends you your database_url")
    if not readable:  # the team's tables are the team role's to read (learn.store.pg_team)
        me = conn.execute("SELECT session_user").fetchone()[0]
        return TeamHealth(False, f"{where}: {me} is not a member set up by `learn team init`",
                          "use the database_url `learn team init` or `learn team add-member` "
                          "printed for you")
    applied = {str(r[0]) for r in conn.execute("SELECT name FROM _migrations").fetchall()}
    newer = sorted(applied - set(STEP_NAMES))
    if newer:
        return TeamHealth(False, f"{where}: its schema is newer than this learn "
                          f"({len(newer)} migration{'s' if len(newer) != 1 else ''} "
                          "it does not know)",
                          "upgrade learn (pip install -U learn) to the version the team's "
                          "admin set the database up with")
    pending = [n for n in STEP_NAMES if n not in applied]
    if pending:
        return TeamHealth(False, f"{where}: its schema is older than this learn "
                          f"({len(pending)} migration{'s' if len(pending) != 1 else ''} "
                          "to apply, which only its owner may)",
                          "ask the team's admin to run `learn team init` with this version "
                          "of learn")
    try:
        me = member(conn)
    except TeamAccessError as exc:
        problem, _, fix = str(exc).partition(": ")
        return TeamHealth(False, f"{where}: {problem}", fix or
                          "put the database_url `learn team init` or `learn team add-member` "
                          "printed for you in [team] database_url")
    return TeamHealth(True, f"{where}: {server}, pgvector {vector}, schema as this learn "
                      f"reads it ({len(applied)} migrations); you share as member "
                      f"{me.name!r}")
