"""The schema the migration steps build is the one the two-file DDL built (issue 23).

The steps 0001..0016 were rewritten from one DDL module per engine into one
definition per step (learn.store.migrations). The fixture holds the schema the
old code built on both engines (sqlite_master; information_schema and pg_catalog),
made by running `python tests/test_store_schema_snapshot.py OUT_DIR` against the
old tree. Steps added later are not part of it: the database is migrated up to
0016 only.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

FIXTURE = Path(__file__).parent / "fixtures" / "store_schema"
LAST = "0016_session_index_derived"


def dump_schema(conn: Any) -> dict[str, list[list[Any]]]:
    """Every table, column, type, default, index, constraint and view, in a stable order."""
    if getattr(conn, "dialect", None) != "postgresql":
        rows = conn.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master "
            "WHERE name NOT LIKE 'sqlite_%' AND name <> '_migrations' ORDER BY type, name"
        ).fetchall()
        return {"sqlite_master": [list(r) for r in rows]}
    queries = {
        "columns": "SELECT table_name, column_name, ordinal_position, data_type, is_nullable, "
                   "column_default, is_identity, identity_generation FROM information_schema.columns "
                   "WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position",
        "indexes": "SELECT tablename, indexname, indexdef FROM pg_indexes "
                   "WHERE schemaname = current_schema() ORDER BY tablename, indexname",
        "constraints": "SELECT c.conrelid::regclass::text, c.conname, pg_get_constraintdef(c.oid) "
                       "FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace "
                       "WHERE n.nspname = current_schema() ORDER BY 1, 2",
        "views": "SELECT viewname, definition FROM pg_views "
                 "WHERE schemaname = current_schema() ORDER BY viewname",
    }
    return {k: [list(r) for r in conn.execute(q).fetchall()] for k, q in queries.items()}


def _built(target: Path | str) -> dict[str, list[list[Any]]]:
    from learn.store.core import open_connection
    from learn.store.schema import STEP_NAMES, StoreSchema, migrate

    conn, _, _ = open_connection(target)
    try:
        migrate(conn, StoreSchema(), upto=STEP_NAMES.index(LAST) + 1)
        return dump_schema(conn)
    finally:
        conn.close()


def _expected(engine: str) -> dict[str, list[list[Any]]]:
    data: dict[str, list[list[Any]]] = json.loads((FIXTURE / f"{engine}.json").read_text("utf-8"))
    return data


def test_sqlite_schema_is_what_the_old_ddl_built(tmp_path: Path) -> None:
    assert _built(tmp_path / "s.db") == _expected("sqlite")


def test_postgres_schema_is_what_the_old_ddl_built(pg_url: str) -> None:
    assert _built(pg_url) == _expected("postgresql")


if __name__ == "__main__":  # regenerate: python tests/test_store_schema_snapshot.py OUT SQLITE PGURL
    out = Path(sys.argv[1])
    for engine, target in (("sqlite", sys.argv[2]), ("postgresql", sys.argv[3])):
        parts = [json.dumps(k) + ": [\n" + ",\n".join("  " + json.dumps(r, ensure_ascii=False)
                                                     for r in rows) + "\n]"
                 for k, rows in _built(target).items()]
        text = "{\n" + ",\n".join(parts) + "\n}\n"
        (out / f"{engine}.json").write_text(text, encoding="utf-8")
