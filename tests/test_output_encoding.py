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


def test_an_encoding_the_person_chose_is_kept_and_what_it_lacks_is_escaped(
        tmp_path: Path) -> None:
    code, out, err = _run("show", SID, tmp_path=tmp_path, PYTHONIOENCODING="cp1252")
    assert code == 0, err
    text = out.decode("cp1252")
    assert "move the cache \\u2192 redis, \\u65e5\\u672c\\u8a9e too \\ud83d\\ude80" in text
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
    ("cp1252", True, ("cp1252", "learn-json-escape")),
    ("ascii", True, ("learn-ascii", "learn-json-escape")),
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



# PYTHONIOENCODING=ascii in a UTF-8 locale: click 8.5 took the ASCII stream for a
# misconfigured one and wrote every `click.echo` (errors, listings, help) in UTF-8 past
# it, while what went to sys.stdout itself was "?". The person asked for ASCII.
_UTF8_LOCALE = {"LC_ALL": "C.UTF-8"}
_MISSING = "nö-such-→"


@pytest.mark.parametrize("asked", ["ascii", "ascii:strict"])
def test_ascii_asked_for_is_ascii_with_escapes_never_utf8(tmp_path: Path, asked: str) -> None:
    code, out, err = _run("show", SID, tmp_path=tmp_path, PYTHONIOENCODING=asked,
                          **_UTF8_LOCALE)
    assert code == 0, err
    assert out.isascii(), out
    assert ("move the cache \\u2192 redis, \\u65e5\\u672c\\u8a9e too \\ud83d\\ude80"
            in out.decode("ascii"))
    assert "UnicodeEncodeError" not in err


@pytest.mark.parametrize("asked", ["ascii", "ascii:strict", "latin-1", "cp1252"])
def test_json_in_the_encoding_asked_for_reads_back_exactly(tmp_path: Path, asked: str) -> None:
    code, out, err = _run("show", SID, "--json", tmp_path=tmp_path, PYTHONIOENCODING=asked,
                          **_UTF8_LOCALE)
    assert code == 0, err
    shown = json.loads(out.decode(asked.partition(":")[0]))
    assert [t["text"] for t in shown["human_turns_detail"]] == [TYPED]
    if asked.startswith("ascii"):
        assert out.isascii()


def test_an_error_line_is_in_the_encoding_asked_for(tmp_path: Path) -> None:
    import subprocess
    import sys

    home, _ = _home(tmp_path)
    for asked, expected in (("ascii", b"n\\xf6-such-\\u2192"), ("latin-1", b"n\xf6-such-\\u2192")):
        done = subprocess.run([sys.executable, "-m", "learn", "show", _MISSING],
                              env=_env(home, tmp_path, PYTHONIOENCODING=asked, **_UTF8_LOCALE),
                              cwd=tmp_path, capture_output=True, timeout=300)
        assert done.returncode == 2, done.stderr
        assert expected in done.stderr, (asked, done.stderr)
        assert "ö".encode() not in done.stderr and "→".encode() not in done.stderr


def test_a_listing_in_a_folder_named_in_unicode_is_ascii_when_asked(tmp_path: Path) -> None:
    import subprocess
    import sys

    home, _ = _home(tmp_path)
    folder = tmp_path / "prøj→"
    folder.mkdir()
    done = subprocess.run([sys.executable, "-m", "learn", "sessions"],
                          env=_env(home, tmp_path, PYTHONIOENCODING="ascii", **_UTF8_LOCALE),
                          cwd=folder, capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.isascii() and done.stderr.isascii(), (done.stdout, done.stderr)
    assert b"pr\\u00f8j\\u2192" in done.stdout + done.stderr


def test_an_error_handler_the_person_named_is_kept(tmp_path: Path) -> None:
    code, out, err = _run("show", SID, tmp_path=tmp_path, PYTHONIOENCODING="ascii:replace",
                          **_UTF8_LOCALE)
    assert code == 0, err
    assert "move the cache ? redis, ??? too ?" in out.decode("ascii")


def test_click_writes_in_a_chosen_ascii_stream_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    import click

    from learn.output_encoding import make_errors_writable

    monkeypatch.delenv("PYTHONIOENCODING", raising=False)
    out = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    err = io.TextIOWrapper(io.BytesIO(), encoding="ascii", errors="backslashreplace")
    make_writable(out, chosen=True)
    make_errors_writable(err, chosen=True)
    assert (err.encoding, err.errors) == ("learn-ascii", "backslashreplace")
    monkeypatch.setattr("sys.stdout", out)
    monkeypatch.setattr("sys.stderr", err)
    click.echo("a → b 🚀")
    click.echo("c → d 🚀", err=True)
    out.flush()
    err.flush()
    assert out.buffer.getvalue() == b"a \\u2192 b \\ud83d\\ude80\n"  # type: ignore[attr-defined]
    assert err.buffer.getvalue() == b"c \\u2192 d \\U0001f680\n"  # type: ignore[attr-defined]


def test_an_unchosen_stderr_is_left_as_it_is() -> None:
    from learn.output_encoding import make_errors_writable

    err = io.TextIOWrapper(io.BytesIO(), encoding="ascii", errors="backslashreplace")
    make_errors_writable(err, chosen=False)
    assert (err.encoding, err.errors) == ("ascii", "backslashreplace")


@pytest.mark.parametrize("text", ["→", "🚀", "café 日本", "\udc80"])
def test_what_an_encoding_lacks_is_escaped_as_json_reads_it(text: str) -> None:
    stream = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    make_writable(stream, chosen=True)
    stream.write(json.dumps({"t": text}, ensure_ascii=False))
    stream.flush()
    assert json.loads(stream.buffer.getvalue()) == {"t": text}  # type: ignore[attr-defined]


def test_a_traceback_to_a_strict_stderr_is_escaped_not_lost(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from learn import crash_output

    err = io.TextIOWrapper(io.BytesIO(), encoding="ascii", errors="strict")
    monkeypatch.setattr("sys.stderr", err)
    try:
        raise RuntimeError("cache → redis 🚀")
    except RuntimeError as exc:
        crash_output._excepthook(RuntimeError, exc, exc.__traceback__)
    written = err.buffer.getvalue()  # type: ignore[attr-defined]
    assert b"RuntimeError: cache \\u2192 redis \\U0001f680" in written, written
