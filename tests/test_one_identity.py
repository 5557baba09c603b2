"""One function decides what project a folder belongs to (learn.projects.project_of).

Two answers existed (a POSIX-only root glued to learn's cwd, and a Windows-aware
key): proposals were stored under one and looked up under the other, so from any
other folder a Windows vault showed no pending proposal. This test reads every
module of learn outside learn/projects and fails on a second answer: a function
named as one, a look for `.git` on disk, a git dir's `commondir` / `gitdir:`
read, or path-flavour folding (`ntpath`, `os.path.normcase`). It also shows, on
a planted copy, that it catches one.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
IDENTITY = ("learn", "projects")
# Modules that may compare paths on their own, each with its reason.
EXEMPT = {
    # learn's PreToolUse check: every shell call of the agent starts it, so it first
    # asks by string whether the session's folder is inside the project's; only when
    # not does it ask learn.projects.checkout (standard library only) whose it is.
    ("learn", "guard", "hook.py"),
}

# Names a second identity would carry (one for a project, a repository's root,
# a checkout's, or whether two folders are one project).
NAMES = re.compile(
    r"^_?(?:project_(?:key|root|of|id|identity|here)|(?:git|repository|checkout|worktree)_"
    r"(?:root|key|of|dir)|same_project|within_project|in_project|common_dir|main_checkout)$")
# What only reading a repository's layout on disk needs.
GIT_TEXT = frozenset({".git", "commondir", "gitdir", "gitdir:"})
PATH_CALLS = frozenset({"join", "joinpath", "Path", "PurePath", "exists", "is_dir", "is_file",
                        "isdir", "isfile", "open", "read_text"})


def _call_name(node: ast.Call) -> str:
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def second_identities(root: Path) -> list[str]:
    """Every place under `root`/learn outside learn/projects that decides identity."""
    found: list[str] = []
    for path in sorted((root / "learn").rglob("*.py")):
        rel = path.relative_to(root)
        if rel.parts[: len(IDENTITY)] == IDENTITY or rel.parts in EXEMPT:
            continue
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            where = f"{rel}:{getattr(node, 'lineno', '?')}"
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and NAMES.match(node.name):
                found.append(f"{where} defines {node.name}()")
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and any(
                    isinstance(side, ast.Constant) and side.value in GIT_TEXT
                    for side in (node.left, node.right)):
                found.append(f"{where} builds a path to .git")
            elif isinstance(node, ast.Call) and _call_name(node) in PATH_CALLS and any(
                    isinstance(a, ast.Constant) and a.value in GIT_TEXT for a in node.args):
                found.append(f"{where} reads .git on disk")
            elif isinstance(node, ast.Import | ast.ImportFrom):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                    [node.module or ""]
                if "ntpath" in names:
                    found.append(f"{where} imports ntpath (path flavour)")
            elif isinstance(node, ast.Attribute) and node.attr == "normcase":
                found.append(f"{where} folds a path's case (os.path.normcase)")
    return found


def test_learn_has_one_project_identity() -> None:
    assert second_identities(REPO) == []


def test_a_second_identity_is_caught(tmp_path: Path) -> None:
    (tmp_path / "learn" / "projects").mkdir(parents=True)
    (tmp_path / "learn" / "projects" / "identity.py").write_text(
        'def project_of(p):\n    return (p / ".git").exists()\n')
    (tmp_path / "learn" / "apply_here.py").write_text(
        "import ntpath\nfrom pathlib import Path\n\n\n"
        "def git_root(start: Path) -> Path | None:\n"
        "    for d in (start, *start.parents):\n"
        '        if (d / ".git").exists():\n'
        "            return d\n"
        "    return None\n\n\n"
        "def key(p: str) -> str:\n"
        "    import os\n"
        '    return os.path.normcase(os.path.join(p, ".git"))\n')
    found = second_identities(tmp_path)
    assert any("defines git_root()" in f for f in found)
    assert any("builds a path to .git" in f for f in found)
    assert any("reads .git on disk" in f for f in found)
    assert any("imports ntpath" in f for f in found)
    assert any("normcase" in f for f in found)
    assert not any("learn/projects" in f for f in found)  # the one place it may live
