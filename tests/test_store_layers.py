"""learn.store is layers that only point down (issue 23): every import between two of
its modules goes to one listed earlier in LAYERS, so there is no circle and the
connection layer never reaches up into the tables.

A module not listed yet counts as the top layer: it may import any listed module,
and no listed module may import it (list it to give it a place).
"""

from __future__ import annotations

import ast
from pathlib import Path

STORE = Path(__file__).resolve().parent.parent / "learn" / "store"

# Bottom first; within a layer, a module may import those before it.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("connection", ("connection", "db", "postgres", "target")),
    ("definitions", ("layout", "dialects", "run_json", "vector_tables", "feedback_rows",
                     "points")),
    ("table DDL", ("session_index_ddl", "proposals_ddl", "apply_journal_ddl", "project_keys")),
    ("migration steps", ("migrations",)),
    ("migration engine", ("schema",)),
    ("vector index", ("pg_vectors", "vectors")),
    ("ledger", ("core", "feedback")),
    ("tables", ("label_tables", "run_table", "scan_tables", "shown_table", "proposals",
                "verdict_table", "pg_team", "pg_members", "team_forget", "team", "session_index",
                "mine_batches", "apply_journal", "answer_table")),
    ("API", ("api", "runs")),
    ("package", ("__init__",)),
)
ORDER = [m for _, mods in LAYERS for m in mods]


def store_imports(path: Path) -> set[str]:
    """The learn.store modules `path` imports, at module level or inside functions."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith("learn.store."):
                found.add(node.module.split(".")[2])
            elif node.module == "learn.store":
                found.update(a.name for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[2] for a in node.names
                         if a.name.startswith("learn.store."))
    return found


def upward_imports(store: Path, order: list[str]) -> list[str]:
    bad: list[str] = []
    rank = {m: i for i, m in enumerate(order)}
    top = len(order)
    for path in sorted(store.glob("*.py")):
        me = rank.get(path.stem, top)
        for dep in sorted(store_imports(path)):
            if not (store / f"{dep}.py").exists():
                continue  # a name imported from the package, not a module
            if rank.get(dep, top) >= me and dep != path.stem:
                bad.append(f"learn.store.{path.stem} imports learn.store.{dep}")
    return bad


def test_store_modules_import_only_layers_below() -> None:
    assert upward_imports(STORE, ORDER) == []


def test_an_upward_import_is_caught(tmp_path: Path) -> None:
    (tmp_path / "db.py").write_text("from learn.store.feedback import FeedbackStore\n")
    (tmp_path / "feedback.py").write_text("def f():\n    from learn.store import db\n")
    assert upward_imports(tmp_path, ORDER) == ["learn.store.db imports learn.store.feedback"]
