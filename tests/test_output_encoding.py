"""learn's output carries any text a transcript holds, whatever the stream's encoding.

On Windows, output redirected to a file or pipe is in the locale's code page
(cp1252), which lacks "→", emoji and CJK: `learn show > out.txt` ended in a
UnicodeEncodeError traceback. Simulated here on Linux with an ASCII locale
(LC_ALL=C with locale coercion and UTF-8 mode off), and with PYTHONIOENCODING.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from _learn_cli import learn_env
from fixtures.fidelity.writers import Chain, claude_path

from learn.output_encoding import holds_all_text, make_writable

SID = "0e0c0d00-0000-4000-8000-00000000e0c0"
TYPED = "move the cache → redis, 日本語 too 🚀"


def _home(tmp_path: Path) -> tuple[Path, Path]:
    home, project = tmp_path / "home", tmp_path / "proj"
    project.mkdir(parents=True)
    c = Chain(SID, cwd=str(project))
    c.user(TYPED, parent=False)
    c.assistant("Done → moved.")
    return home, c.write(claude_path(home, SID, str(project)))


def _env(home: Path, tmp_path: Path, **extra: str) -> dict[str, str]:
    env = learn_env(HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"),
                    CODEX_HOME=str(home / ".codex"), LEARN_DATA_DIR=str(tmp_path / "data"),
                    LEARN_CACHE_DIR=str(tmp_path / "cache"),
                    LEARN_CONFIG_DIR=str(tmp_path / "config"))
    for key in ("PYTHONIOENCODING", "PYTHONUTF8", "LANG", "LC_CTYPE"):
        env.pop(key, None)
    return {**env, **extra}


# A locale whose encoding is ASCII, as a redirected Windows stream's code page lacks
# these characters: Python would otherwise coerce the C locale to UTF-8 (PEP 538, 540).
_ASCII_LOCALE = {"LC_ALL": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"}


def _run(*args: str, tmp_path: Path, **extra: str) -> tuple[int, bytes, str]:
    import subprocess
    import sys

    home, _ = _home(tmp_path)
    done = subprocess.run([sys.executable, "-m", "learn", *args], env=_env(home, tmp_path, **extra),
                          cwd=tmp_path, capture_output=True, timeout=300)
    return done.returncode, done.stdout, done.stderr.decode("utf-8", "replace")


def test_show_to_a_pipe_in_an_ascii_locale_prints_utf8(tmp_path: Path) -> None:
    code, out, err = _run("show", SID, tmp_path=tmp_path, **_ASCII_LOCALE)
    assert code == 0, err
    assert "UnicodeEncodeError" not in err
    assert TYPED in out.decode("utf-8")


def test_json_in_an_ascii_locale_is_exact_utf8_json(tmp_path: Path) -> None:
    code, out, err = _run("show", SID, "--json", tmp_path=tmp_path, **_ASCII_LOCALE)
    assert code == 0, err
    shown = json.loads(out.decode("utf-8"))
    assert [t["text"] for t in shown["human_turns_detail"]] == [TYPED]


def test_an_encoding_the_person_chose_is_kept_and_what_it_lacks_is_replaced(
        tmp_path: Path) -> None:
    code, out, err = _run("show", SID, tmp_path=tmp_path, PYTHONIOENCODING="cp1252")
    assert code == 0, err
    text = out.decode("cp1252")
    assert "move the cache ? redis, ??? too ?" in text
    assert "UnicodeEncodeError" not in err


def test_a_terminal_in_a_narrow_encoding_keeps_it_and_replaces() -> None:
    class Tty(io.TextIOWrapper):
        def isatty(self) -> bool:
            return True

    stream = Tty(io.BytesIO(), encoding="ascii")
    make_writable(stream, chosen=False)
    assert (stream.encoding, stream.errors) == ("ascii", "replace")
    stream.write("a → b")
    stream.flush()
    assert stream.buffer.getvalue() == b"a ? b"  # type: ignore[attr-defined]


@pytest.mark.parametrize(("encoding", "chosen", "after"), [
    ("cp1252", False, ("utf-8", "strict")),
    ("cp1252", True, ("cp1252", "replace")),
    ("utf-8", False, ("utf-8", "strict")),
    ("utf-16-le", True, ("utf-16-le", "strict")),
])
def test_a_stream_is_set_up_by_its_encoding_and_who_chose_it(
        encoding: str, chosen: bool, after: tuple[str, str]) -> None:
    stream = io.TextIOWrapper(io.BytesIO(), encoding=encoding)
    make_writable(stream, chosen=chosen)
    assert (stream.encoding, stream.errors) == after


def test_only_a_utf_holds_all_text() -> None:
    assert [holds_all_text(e) for e in ("UTF8", "utf_8_sig", "utf-16", "UTF-32-BE")] == [True] * 4
    assert [holds_all_text(e) for e in ("cp1252", "ascii", "latin-1", "", None, "nope")] == \
        [False] * 6


def test_a_stream_that_cannot_be_reconfigured_is_left_alone() -> None:
    stream = io.StringIO()
    make_writable(stream)
    stream.write("→")
    assert stream.getvalue() == "→"

