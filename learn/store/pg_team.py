"""A team database PostgreSQL itself protects: a role per person, row-level security.

`learn team init` runs setup() as the admin (the role that owns the schema):
the schema is migrated, a NOLOGIN team role is created (one per database,
`learn_team_<database>`: roles are cluster-wide, and a single shared team role
would let a member of one team connect to another team's database), and

- a person is a member: a LOGIN role with an opaque name (learn.store.pg_members)
  listed in team_members, which only the admin reads; the role is granted the
  team role's privileges but (PostgreSQL 16+) may not SET ROLE to it;
- a shared row's author is the session's login role, `session_user`, which
  SET ROLE and `options=-c role=…` do not change (on servers before 16, where
  every membership allows SET ROLE, this is what keeps one person one person);
- members may read the team's tables but create, alter or drop nothing (CREATE
  on the schema is revoked from PUBLIC; only the owner may ALTER or DROP);
- team_candidates has row-level security: a member reads, adds, changes and
  deletes only rows whose author is their own login role; everyone's rows are
  read through the team_shared view, which counts only members' rows, names a
  person only where they chose to be named and otherwise gives an opaque key
  (the role hashed with a salt in team_settings, which members cannot read);
- a trigger on team_candidates holds every role to the same, the admin and
  superusers included (they pass row-level security): only a member adds or
  changes a row, only under their own role, and a row is deleted only by its
  author, or by the admin removing that person (learn.store.pg_members), so no
  URL anyone puts in a config can make `learn share --forget` delete a
  colleague's rows;
- what team runs derive (labels, vectors, verdicts, run results) members may
  write and delete: any member runs team runs, and `learn share --forget`
  removes what was derived from the forgetter's words;
- a new vector table is created by learn_vector_table(), a SECURITY DEFINER
  function the admin owns, since members cannot CREATE.

member() is the one check learn makes before sharing, forgetting or running as
a team: the connected login role must be a member, not the schema's owner, not
a superuser.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from learn.store.connection import Connection
from learn.store.db import StoreError

TEAM_ROLE_PREFIX = "learn_team_"
# gen_random_uuid() in core, EXECUTE FUNCTION triggers; pgvector's HNSW (0.5+)
# builds on 12+, so 13 is the floor.
MIN_SERVER = 130000
# GRANT ... WITH INHERIT TRUE, SET FALSE: a member gets the team role's
# privileges without being able to act as it.
SET_OPTION_SERVER = 160000
# Set (transaction-local) by the admin removing a member: the trigger then lets
# the schema's owner delete that role's rows.
REMOVING = "learn.remove_member"

# The team's derived tables: written by whichever member runs `learn run --team`.
# Not vector_tables: only learn_vector_table() registers a table there, so no member
# can point the team's vector lookups at another table.
DERIVED_TABLES = ("runs", "feedback_events", "verdicts", "verdict_evidence", "labels",
                  "label_examples", "embedding_cache", "name_cache")

_VECTOR_FUNCTION = """
CREATE OR REPLACE FUNCTION learn_vector_table(purpose text, space text, dim integer,
                                              metadata text[])
RETURNS text LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $fn$
DECLARE
    name text;
    col text;
    cols text := '';
BEGIN
    SELECT table_name INTO name FROM vector_tables v
        WHERE v.purpose = learn_vector_table.purpose AND v.space = learn_vector_table.space;
    IF name IS NOT NULL THEN
        RETURN name;
    END IF;
    IF purpose !~ '^[a-z_]+$' OR dim < 1 OR dim > 16000 THEN
        RAISE EXCEPTION 'bad vector table request (%, %)', purpose, dim;
    END IF;
    FOREACH col IN ARRAY metadata LOOP
        IF col !~ '^[a-z_]+$' THEN
            RAISE EXCEPTION 'bad metadata column %', col;
        END IF;
        cols := cols || format(', %I TEXT', col);
    END LOOP;
    name := 'vec_' || purpose || '_' || left(encode(sha256(convert_to(space, 'UTF8')), 'hex'), 12);
    EXECUTE format('CREATE TABLE %I (id BIGINT PRIMARY KEY, embedding vector(%s) NOT NULL%s)',
                   name, dim, cols);
    EXECUTE format('CREATE INDEX %I ON %I USING hnsw (embedding vector_cosine_ops)',
                   name || '_hnsw', name);
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %I TO %I', name, '{team}');
    INSERT INTO vector_tables (purpose, space, dim, table_name)
        VALUES (learn_vector_table.purpose, learn_vector_table.space, dim, name);
    RETURN name;
END
$fn$;
"""

# Row-level security binds members only: the owner and superusers pass it. This
# trigger binds everyone (a superuser could switch triggers off, on purpose, in
# psql; no learn command can). It reads team_members, so it runs as its owner.
_OWN_ROWS_FUNCTION = """
CREATE OR REPLACE FUNCTION learn_own_rows() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $fn$
DECLARE
    me text := session_user;
    member boolean;
BEGIN
    SELECT EXISTS (SELECT 1 FROM team_members t JOIN pg_roles r ON r.rolname = t.role
                   WHERE t.role = me AND NOT r.rolsuper AND NOT r.rolbypassrls) INTO member;
    IF TG_OP = 'DELETE' THEN
        IF (member AND OLD.author = me)
           OR (OLD.author = current_setting('learn.remove_member', true)
               AND pg_has_role(me, (SELECT relowner FROM pg_class WHERE oid = TG_RELID),
                               'MEMBER')) THEN
            RETURN OLD;
        END IF;
        RAISE EXCEPTION 'learn: % may delete only its own shared rows', me
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF NOT member THEN
        RAISE EXCEPTION 'learn: % is not a member of this team: share with the database_url '
                        '`learn team init` or `learn team add-member` printed for you', me
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF NEW.author IS DISTINCT FROM me OR (TG_OP = 'UPDATE' AND OLD.author IS DISTINCT FROM me) THEN
        RAISE EXCEPTION 'learn: a shared row carries its author''s login role (%)', me
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END
$fn$;
"""


class TeamAccessError(StoreError):
    """The connected role may not share, forget or run as a team (one line: which
    URL to use instead)."""


@dataclass(frozen=True, slots=True)
class Member:
    role: str  # the login role: a shared row's author
    name: str  # the name the admin gave them (shown only where they chose)


@dataclass(frozen=True, slots=True)
class TeamSetup:
    role: str  # the team role
    registered: tuple[str, ...]  # members set up before team_members: role = name
    uncounted: int  # shared rows of roles that are not members (counted as no one)


def team_role(conn: Connection) -> str:
    """The team role of the connected database: learn_team_<database name>."""
    db = str(conn.execute("SELECT current_database()").fetchone()[0])
    return TEAM_ROLE_PREFIX + re.sub(r"[^a-z0-9_]", "_", db.lower())[:50]


def server_version(conn: Connection) -> int:
    return int(conn.execute("SELECT current_setting('server_version_num')").fetchone()[0])


def grant_team(conn: Connection, team: str, role: str) -> None:
    """Give `role` the team role's privileges; on PostgreSQL 16+ without the right to
    SET ROLE to it (older servers cannot say that: session_user keeps them apart)."""
    if server_version(conn) >= SET_OPTION_SERVER:
        conn.execute(f"GRANT {team} TO {role} WITH INHERIT TRUE, SET FALSE")
    else:
        conn.execute(f"GRANT {team} TO {role}")


def _role_exists(conn: Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM pg_roles WHERE rolname = $1", (name,)).fetchone() is not None


def _register_existing(conn: Connection, team: str) -> tuple[str, ...]:
    """Members granted the team role before team_members existed: listed under their
    role name (the name the admin chose for them then). Superusers, the admin and
    roles holding the team role WITH ADMIN are not members."""
    from learn.isotime import now_iso

    rows = conn.execute(
        "SELECT r.rolname FROM pg_auth_members a JOIN pg_roles r ON r.oid = a.member "
        "WHERE a.roleid = (SELECT oid FROM pg_roles WHERE rolname = $1) "
        "AND NOT a.admin_option AND NOT r.rolsuper AND NOT r.rolbypassrls AND r.rolcanlogin "
        "AND NOT pg_has_role(r.oid, (SELECT relowner FROM pg_class "
        "WHERE oid = to_regclass('team_candidates')), 'MEMBER') "
        "AND r.rolname NOT IN (SELECT role FROM team_members) ORDER BY r.rolname",
        (team,)).fetchall()
    added = []
    for (role,) in rows:
        conn.execute("INSERT INTO team_members (role, name, added_at) VALUES ($1, $2, $3) "
                     "ON CONFLICT DO NOTHING", (role, role, now_iso()))
        if conn.changes():
            added.append(str(role))
    return tuple(added)


def require_server(conn: Connection) -> None:
    """TeamAccessError, in one line, for a server too old for a team."""
    version = server_version(conn)
    if version < MIN_SERVER:
        raise TeamAccessError(f"a learn team needs PostgreSQL 13 or newer (this server is "
                              f"{version // 10000}.{version % 10000})")


def setup(conn: Connection) -> TeamSetup:
    """Roles, grants, policies and the trigger on a migrated team database
    (idempotent: a newer learn's `team init` brings an older setup up to date)."""
    from learn.store.postgres import lock_writes

    require_server(conn)
    role = team_role(conn)
    conn.execute("BEGIN")
    try:
        lock_writes(conn)
        if not _role_exists(conn, role):
            conn.execute(f"CREATE ROLE {role} NOLOGIN")
        db = str(conn.execute("SELECT current_database()").fetchone()[0]).replace('"', '""')
        conn.execute(f'REVOKE ALL ON DATABASE "{db}" FROM PUBLIC')
        conn.execute(f'GRANT CONNECT ON DATABASE "{db}" TO {role}')
        conn.execute(
            f"""
            REVOKE ALL ON SCHEMA public FROM PUBLIC;
            GRANT USAGE ON SCHEMA public TO {role};
            REVOKE ALL ON ALL TABLES IN SCHEMA public FROM PUBLIC;
            GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role};
            REVOKE ALL ON team_settings, team_members FROM {role};
            GRANT INSERT, UPDATE, DELETE ON {", ".join(DERIVED_TABLES)} TO {role};
            GRANT SELECT, USAGE ON ALL SEQUENCES IN SCHEMA public TO {role};
            ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO {role};
            GRANT SELECT, INSERT, UPDATE, DELETE ON team_candidates TO {role};
            ALTER TABLE team_candidates ENABLE ROW LEVEL SECURITY;
            DROP POLICY IF EXISTS own_rows ON team_candidates;
            CREATE POLICY own_rows ON team_candidates FOR ALL TO {role}
                USING (author = session_user) WITH CHECK (author = session_user);
            GRANT SELECT ON team_shared, team_me TO {role};
            """
        )
        conn.execute(_VECTOR_FUNCTION.replace("{team}", role))
        conn.execute(_OWN_ROWS_FUNCTION)
        conn.execute(
            f"""
            REVOKE ALL ON FUNCTION learn_vector_table(text, text, integer, text[]) FROM PUBLIC;
            GRANT EXECUTE ON FUNCTION learn_vector_table(text, text, integer, text[]) TO {role};
            REVOKE ALL ON FUNCTION learn_own_rows() FROM PUBLIC;
            DROP TRIGGER IF EXISTS team_candidates_own_rows ON team_candidates;
            CREATE TRIGGER team_candidates_own_rows
                BEFORE INSERT OR UPDATE OR DELETE ON team_candidates
                FOR EACH ROW EXECUTE FUNCTION learn_own_rows();
            """
        )
        # Vector tables made before init (the admin's own runs) become the team's too.
        for (name,) in conn.execute("SELECT table_name FROM vector_tables").fetchall():
            conn.execute(f'GRANT SELECT, INSERT, UPDATE, DELETE ON "{name}" TO {role}')
        registered = _register_existing(conn, role)
        # Every member's grant as this server can best say it (an older learn
        # granted SET ROLE with it).
        for (member,) in conn.execute("SELECT role FROM team_members ORDER BY role").fetchall():
            if _role_exists(conn, str(member)):
                grant_team(conn, role, str(member))
        uncounted = int(conn.execute(
            "SELECT COUNT(*) FROM team_candidates WHERE author NOT IN "
            "(SELECT role FROM team_members)").fetchone()[0])
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return TeamSetup(role, registered, uncounted)


def member(conn: Connection) -> Member:
    """The member the connection shares as; TeamAccessError (one line, saying which
    URL to use instead) for the schema's owner, a superuser, a database `learn
    team init` has not set up, or a role it did not set up as a member."""
    row = conn.execute(
        "SELECT session_user, r.rolsuper OR r.rolbypassrls, "
        "to_regclass('team_candidates') IS NOT NULL AND pg_has_role(session_user, "
        "(SELECT relowner FROM pg_class WHERE oid = to_regclass('team_candidates')), 'MEMBER'), "
        "to_regclass('team_me') IS NOT NULL AND EXISTS (SELECT 1 FROM pg_trigger "
        "WHERE tgname = 'team_candidates_own_rows'), current_database() "
        "FROM pg_roles r WHERE r.rolname = session_user").fetchone()
    me, superuser, owner, ready, db = (str(row[0]), bool(row[1]), bool(row[2]), bool(row[3]),
                                       str(row[4]))
    own_url = "put your own member URL in [team] database_url (the admin's `learn team " \
              "add-member NAME` prints one)"
    if not ready:
        raise TeamAccessError(f"database {db} is not set up for a team: its admin runs `learn "
                              "team init --admin-url URL --member NAME` and sends each person "
                              "their own database_url")
    if superuser:
        raise TeamAccessError(f"{me} is a superuser, who could read and delete everyone's rows: "
                              f"{own_url}")
    if owner:
        raise TeamAccessError(f"{me} owns the team database (the admin's URL): {own_url}")
    found = None
    if conn.execute("SELECT has_table_privilege('team_me', 'SELECT')").fetchone()[0]:
        found = conn.execute("SELECT role, name FROM team_me").fetchone()
    if found is None:
        raise TeamAccessError(f"{me} is not a member set up by `learn team init`: use the "
                              "database_url it (or `learn team add-member`) printed for you")
    return Member(role=str(found[0]), name=str(found[1]))
