"""A team database PostgreSQL itself protects: a role per person, row-level security.

`learn team init` runs setup() as the admin (the role that owns the schema):
the schema is migrated, a NOLOGIN team role is created (one per database,
`learn_team_<database>`: roles are cluster-wide, and a single shared team role
would let a member of one team connect to another team's database), and

- members may read the team's tables but create, alter or drop nothing (CREATE
  on the schema is revoked from PUBLIC; only the owner may ALTER or DROP);
- team_candidates has row-level security: a member reads, adds, changes and
  deletes only rows whose author is their own role (current_user); everyone's
  rows are read through the team_shared view, which names a person only where
  they chose to be named and otherwise gives an opaque key (the role hashed
  with a salt in team_settings, which members cannot read);
- what team runs derive (labels, vectors, verdicts, run results) members may
  write and delete: any member runs team runs, and `learn share --forget`
  removes what was derived from the forgetter's words;
- a new vector table is created by learn_vector_table(), a SECURITY DEFINER
  function the admin owns, since members cannot CREATE.

add_member() creates a LOGIN role in the team role with a generated password
(an existing role is only added to the team).
"""

from __future__ import annotations

import re
import secrets
from urllib.parse import quote, urlsplit, urlunsplit

from learn.store.connection import Connection

TEAM_ROLE_PREFIX = "learn_team_"
_ROLE = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")

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


def check_role(name: str) -> str:
    """A member's role name: lowercase letters, digits and underscores (it is
    interpolated into DDL, and unquoted identifiers fold to lowercase)."""
    if not _ROLE.match(name) or name.startswith((TEAM_ROLE_PREFIX, "pg_")):
        raise ValueError(f"not a usable role name: {name!r} (lowercase letters, digits, _)")
    return name


def _role_exists(conn: Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM pg_roles WHERE rolname = $1", (name,)).fetchone() is not None


def team_role(conn: Connection) -> str:
    """The team role of the connected database: learn_team_<database name>."""
    db = str(conn.execute("SELECT current_database()").fetchone()[0])
    return TEAM_ROLE_PREFIX + re.sub(r"[^a-z0-9_]", "_", db.lower())[:50]


def setup(conn: Connection) -> str:
    """Roles, grants and policies on a migrated team database (idempotent); returns
    the team role."""
    from learn.store.postgres import lock_writes

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
            REVOKE ALL ON team_settings FROM {role};
            GRANT INSERT, UPDATE, DELETE ON {", ".join(DERIVED_TABLES)} TO {role};
            GRANT SELECT, USAGE ON ALL SEQUENCES IN SCHEMA public TO {role};
            ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO {role};
            GRANT SELECT, INSERT, UPDATE, DELETE ON team_candidates TO {role};
            ALTER TABLE team_candidates ENABLE ROW LEVEL SECURITY;
            DROP POLICY IF EXISTS own_rows ON team_candidates;
            CREATE POLICY own_rows ON team_candidates FOR ALL TO {role}
                USING (author = current_user) WITH CHECK (author = current_user);
            GRANT SELECT ON team_shared TO {role};
            """
        )
        conn.execute(_VECTOR_FUNCTION.replace("{team}", role))
        conn.execute("REVOKE ALL ON FUNCTION learn_vector_table(text, text, integer, text[]) "
                     "FROM PUBLIC")
        conn.execute(f"GRANT EXECUTE ON FUNCTION learn_vector_table(text, text, integer, text[]) "
                     f"TO {role}")
        # Vector tables made before init (the admin's own runs) become the team's too.
        for (name,) in conn.execute("SELECT table_name FROM vector_tables").fetchall():
            conn.execute(f'GRANT SELECT, INSERT, UPDATE, DELETE ON "{name}" TO {role}')
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return role


def add_member(conn: Connection, name: str, *, new_password: bool = False) -> str | None:
    """Make `name` a LOGIN role in the connected database's team role (setup() must
    have run). A new role gets a generated password, returned to hand to that
    person (shown once); an existing role keeps its password (roles are
    server-wide: changing it would lock them out of their other teams) unless
    `new_password`, and None is returned."""
    check_role(name)
    exists = _role_exists(conn, name)
    password = None
    if not exists or new_password:
        password = secrets.token_urlsafe(18)
        # DDL takes no bind parameters: the password is a generated URL-safe token.
        conn.execute(f"{'ALTER' if exists else 'CREATE'} ROLE {name} LOGIN "
                     f"PASSWORD '{password}' NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS")
    conn.execute(f"GRANT {team_role(conn)} TO {name}")
    return password


def member_url(admin_url: str, name: str, password: str) -> str:
    """The admin URL with the member's role and password in place of the admin's."""
    parts = urlsplit(admin_url)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{quote(name)}:{quote(password)}@{host}"))
