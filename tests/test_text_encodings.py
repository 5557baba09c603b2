"""Every text file learn reads or writes names its encoding.

Without one, Python uses the locale's: UTF-8 on Linux and macOS, but the code page
(cp1252 and the like) on Windows, where a UTF-8 CLAUDE.md, config.toml or JSON file
with one accented letter or arrow is read as other characters, or fails to decode.
The files learn handles are UTF-8 by their formats (JSON, TOML, Markdown, JSONL), so
each text-mode `open`, `Path.open`, `read_text` and `write_text` in learn/ (and
evals/, which `learn eval` runs) passes
`encoding=` (binary mode needs none). Read from the source, so a new call site is
held to it the day it is written.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _mode(call: ast.Call, position: int) -> str | None:
    """The call's mode argument when it is a literal ("r" when absent), else None."""
    given = [kw.value for kw in call.keywords if kw.arg == "mode"]
    if not given and len(call.args) > position:
        given = [call.args[position]]
    if not given:
        return "r"
    value = given[0]
    return value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else None


_MODE_CHARS = frozenset("rwxabt+")


def _path_open(call: ast.Call) -> bool:
    """`x.open(...)` read as Path.open: no positional argument, or a mode literal first
    (`os.open(path, flags)` opens by a path, which no mode reads as)."""
    if not call.args:
        return True
    first = call.args[0]
    return (isinstance(first, ast.Constant) and isinstance(first.value, str)
            and bool(first.value) and set(first.value) <= _MODE_CHARS)


def _unnamed(call: ast.Call) -> bool:
    """A text-mode file call that leaves the encoding to the locale."""
    if any(kw.arg == "encoding" for kw in call.keywords):
        return False
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in ("read_text", "write_text"):
        # read_text(encoding, errors), write_text(data, encoding, errors): positional too.
        return len(call.args) < (1 if func.attr == "read_text" else 2)
    if isinstance(func, ast.Name) and func.id == "open":
        mode = _mode(call, 1)
    elif isinstance(func, ast.Attribute) and func.attr == "open" and _path_open(call):
        mode = _mode(call, 0)
    else:
        return False
    return mode is not None and "b" not in mode


def unnamed_encodings(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _unnamed(node):
                found.append(f"{path.relative_to(root.parent)}:{node.lineno}")
    return found


def test_every_text_file_call_in_learn_and_its_evals_names_its_encoding() -> None:
    assert unnamed_encodings(REPO / "learn") + unnamed_encodings(REPO / "evals") == []


def test_the_check_finds_a_call_that_leaves_the_encoding_to_the_locale(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "a.py").write_text(
        "from pathlib import Path\n"
        "p = Path('x')\n"
        "p.read_text()\n"                               # 3: found
        "p.read_text(encoding='utf-8')\n"
        "p.read_text('utf-8')\n"
        "p.write_text('data')\n"                        # 6: found
        "p.write_text('data', encoding='utf-8')\n"
        "open('f')\n"                                   # 8: found
        "open('f', 'w')\n"                              # 9: found
        "open('f', 'rb')\n"
        "open('f', mode='wb')\n"
        "open('f', encoding='utf-8')\n"
        "p.open()\n"                                    # 13: found
        "p.open('rb')\n"
        "p.open('a', encoding='utf-8')\n"
        "os.open('f', 0)\n",
        encoding="utf-8")
    assert unnamed_encodings(pkg) == [f"pkg/a.py:{n}" for n in (3, 6, 8, 9, 13)]
