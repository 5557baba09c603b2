"""What any command prints when it fails is redacted: a traceback no command caught,
a thread's, a warning, an expected error's one line (learn.crash_output, learn.cli,
learn.errors).

`/learn` runs learn inside Claude Code, whose model reads the output, and a scheduled
run's stderr is a log: an exception quoting a key or a database password put it
there whole. Each case is a real `learn` process (`python -m learn`, or the
executable's entry with one crashing command added), its stderr read."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from _learn_cli import learn, learn_env
from secrets_corpus import ANTHROPIC

HELD_KEY = "proxy-7f3a9c2e1b"  # the endpoint's key, of no vendor's shape: held by value
DB_PASSWORD = "s3cret-db-pass"
MESSAGE = f"endpoint said: invalid key {HELD_KEY} (also tried {ANTHROPIC}); password {DB_PASSWORD}"
SECRETS = (HELD_KEY, ANTHROPIC, DB_PASSWORD)


def _env(home: Path, **extra: str) -> dict[str, str]:
    return learn_env(HOME=str(home), LEARN_DATA_DIR=str(home / "data"),
                     LEARN_CACHE_DIR=str(home / "cache"), LEARN_CONFIG_DIR=str(home / "config"),
                     CLAUDE_CONFIG_DIR=str(home / ".claude"), CODEX_HOME=str(home / ".codex"),
                     ANTHROPIC_API_KEY=HELD_KEY, **extra)


def _clean(stderr: str) -> None:
    for secret in SECRETS:
        assert secret not in stderr, stderr


def test_a_crash_quoting_the_database_url_prints_the_traceback_without_its_secrets(
        tmp_path: Path) -> None:
    # A real bug's path: psycopg's URL parser fails on the unclosed "[" and quotes the
    # whole URL, password and all, in an exception learn.errors does not explain.
    url = f"postgresql://learn:{DB_PASSWORD}@[{ANTHROPIC}/learn"
    done = learn("stats", cwd=tmp_path / "project", env=_env(tmp_path, LEARN_DATABASE_URL=url))
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("Traceback (most recent call last):"), done.stderr
    assert "psycopg.ProgrammingError" in done.stderr, done.stderr
    _clean(done.stderr)
    assert ("postgresql://learn:[REDACTED:password]@[[REDACTED:anthropic-key]/learn"
            in done.stderr), done.stderr


def test_an_expected_errors_line_is_redacted_too(tmp_path: Path) -> None:
    # The store's one line (learn.errors) quotes the driver's error, which quotes the
    # port: a key pasted in the wrong place is no password, and no held value.
    url = f"postgresql://learn:pw@127.0.0.1:{ANTHROPIC}/learn"
    done = learn("stats", cwd=tmp_path / "project", env=_env(tmp_path, LEARN_DATABASE_URL=url))
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("learn stats: cannot connect to"), done.stderr
    assert "Traceback" not in done.stderr
    _clean(done.stderr)
    assert "[REDACTED:anthropic-key]" in done.stderr


# One command added to the command line, failing as FAULTS says: what each hook
# (the main thread's, a thread's, an unraisable's, a warning's) and the CLI edge print.
COMMAND = """\
import sys, threading, warnings
import click

MESSAGE = {message!r}

class Holder:
    def __del__(self):
        raise ValueError(MESSAGE)

class Unclosed:  # as the standard library's sockets and files warn when dropped open
    def __del__(self):
        warnings.warn(f"unclosed connection {{MESSAGE}}", ResourceWarning, source=self)

@click.command()
@click.argument("fault")
def command(fault):
    if fault == "uncaught":
        raise RuntimeError(MESSAGE)
    if fault == "chained":
        raise RuntimeError("the stage failed") from ValueError(MESSAGE)
    if fault == "thread":
        def work():
            raise KeyError(MESSAGE)
        t = threading.Thread(target=work, name="miner")
        t.start(); t.join()
    if fault == "unraisable":
        Holder()
    if fault == "click":
        raise click.ClickException(f"cannot read the config: {{MESSAGE}}")
    if fault == "pem":  # built here, so the traceback's source line holds no key
        head, tail = "-----BEGIN " + "PRIVATE KEY-----", "-----END " + "PRIVATE KEY-----"
        body = "MIIEvQIBADANBgkqhkiG9w0" + "\\n" + "AASCBKcwggSjAgEAAoIBAQC7"
        raise ValueError("bad key:\\n" + head + "\\n" + body + "\\n" + tail)
    if fault == "interrupt":
        raise KeyboardInterrupt
    if fault == "warning":
        warnings.warn(MESSAGE)
    if fault == "resource":
        warnings.simplefilter("default", ResourceWarning)
        Unclosed()
    if fault == "logged":  # a library that sends the warnings to logging
        import logging
        logging.basicConfig()
        logging.captureWarnings(True)
        warnings.warn(MESSAGE)
"""

RUN = """\
import sys
import learn.cli
learn.cli.COMMANDS["crash"] = ("crashing_command", "Crash.")
sys.argv = ["learn", "crash", sys.argv[1]]
from learn.entry import main
main()
"""


def _crash(tmp_path: Path, fault: str, *flags: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "crashing_command.py").write_text(COMMAND.format(message=MESSAGE),
                                                  encoding="utf-8")
    env = _env(tmp_path, LEARN_DATABASE_URL=f"postgresql://learn:{DB_PASSWORD}@db/learn")
    env["PYTHONPATH"] = f"{env['PYTHONPATH']}:{tmp_path}"
    return subprocess.run([sys.executable, *flags, "-c", RUN, fault], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("fault", ["uncaught", "chained", "thread", "unraisable"])
def test_every_uncaught_exception_is_printed_whole_and_redacted(
        tmp_path: Path, fault: str) -> None:
    done = _crash(tmp_path, fault)
    _clean(done.stderr)
    assert "Traceback (most recent call last):" in done.stderr, done.stderr
    # What failed is still said, with the secrets' places marked.
    assert ("endpoint said: invalid key [REDACTED:api-key] (also tried "
            "[REDACTED:anthropic-key])") in done.stderr, done.stderr
    expected = {
        "uncaught": (1, "RuntimeError: endpoint said"),
        "chained": (1, "The above exception was the direct cause of the following exception"),
        "thread": (0, "Exception in thread miner:"),
        "unraisable": (0, "Exception ignored in"),
    }[fault]
    assert done.returncode == expected[0], done.stderr
    assert expected[1] in done.stderr, done.stderr


def test_a_private_key_spanning_lines_is_redacted_as_one(tmp_path: Path) -> None:
    done = _crash(tmp_path, "pem")
    assert done.returncode == 1
    assert "ValueError: bad key:" in done.stderr and "[REDACTED:private-key]" in done.stderr
    assert "MIIEvQIBADANBgkqhkiG9w0" not in done.stderr
    assert "AASCBKcwggSjAgEAAoIBAQC7" not in done.stderr


def test_a_commands_failure_line_is_redacted(tmp_path: Path) -> None:
    done = _crash(tmp_path, "click")
    assert done.returncode == 1
    assert done.stderr.startswith("Error: cannot read the config: endpoint said"), done.stderr
    assert "Traceback" not in done.stderr
    _clean(done.stderr)


# MESSAGE as redact_message leaves it with the crash's environment.
REDACTED = ("endpoint said: invalid key [REDACTED:api-key] (also tried [REDACTED:anthropic-key]);"
            " password [REDACTED:password]")


def test_a_warning_is_printed_as_python_prints_it_with_its_secrets_redacted(
        tmp_path: Path) -> None:
    # A library's warning quotes what it held as an exception does; Python printed it
    # to stderr as it was.
    done = _crash(tmp_path, "warning")
    assert done.returncode == 0, done.stderr
    _clean(done.stderr)
    source = tmp_path / "crashing_command.py"
    lineno = source.read_text(encoding="utf-8").splitlines().index(
        "        warnings.warn(MESSAGE)") + 1
    assert done.stderr == (f"{source}:{lineno}: UserWarning: {REDACTED}\n"
                           "  warnings.warn(MESSAGE)\n"), done.stderr


@pytest.mark.parametrize(("fault", "said"), [
    ("resource", f": ResourceWarning: unclosed connection {REDACTED}\n"),
    ("logged", f": UserWarning: {REDACTED}\n"),
])
def test_a_warning_from_a_finalizer_or_through_logging_is_redacted(
        tmp_path: Path, fault: str, said: str) -> None:
    done = _crash(tmp_path, fault)
    assert done.returncode == 0, done.stderr
    _clean(done.stderr)
    assert said in done.stderr, done.stderr
    if fault == "logged":  # logging's own line, around the warning's text
        assert done.stderr.startswith("WARNING:py.warnings:"), done.stderr


@pytest.mark.parametrize("action", ["error", "ignore"])
def test_the_warnings_filters_still_decide_what_is_printed(tmp_path: Path, action: str) -> None:
    done = _crash(tmp_path, "warning", "-W", action)
    _clean(done.stderr)
    if action == "ignore":
        assert (done.returncode, done.stderr) == (0, ""), done.stderr
    else:  # raised where it was issued: an uncaught exception's traceback
        assert done.returncode == 1, done.stderr
        assert done.stderr.startswith("Traceback (most recent call last):"), done.stderr
        assert f"UserWarning: {REDACTED}\n" in done.stderr, done.stderr


def test_ctrl_c_still_ends_quietly(tmp_path: Path) -> None:
    done = _crash(tmp_path, "interrupt")
    assert done.returncode == 130
    assert done.stderr.strip() == "learn: interrupted (what was finished is kept)"


def test_a_usage_error_is_clicks_own(tmp_path: Path) -> None:
    done = learn("stats", "--no-such-flag", cwd=tmp_path / "project", env=_env(tmp_path))
    assert done.returncode == 2
    assert "No such option" in done.stderr and "--no-such-flag" in done.stderr


def test_help_imports_no_redactor(tmp_path: Path) -> None:
    # The hooks are set at start; the redactor (~23 ms) only when one is printed.
    code = textwrap.dedent("""\
        import sys
        sys.argv = ["learn", "--help"]
        from learn.entry import main
        try:
            main()
        except SystemExit:
            pass
        import warnings
        import learn.crash_output
        print(sys.excepthook is learn.crash_output._excepthook,
              warnings.formatwarning is learn.crash_output._formatwarning,
              sorted(m for m in ("learn.redaction.redact", "learn.held_secrets", "traceback")
                     if m in sys.modules), file=sys.stderr)
        """)
    done = subprocess.run([sys.executable, "-c", code], env=_env(tmp_path), cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert "Usage:" in done.stdout, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "True True []", done.stderr


def test_a_warning_whose_redaction_fails_is_withheld_and_ctrl_c_goes_on(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Called as `warnings` calls it, not installed: this process is pytest's.
    import importlib

    from learn import crash_output

    redact = importlib.import_module("learn.redaction.redact")  # learn.redaction.redact is a function

    def broken(text: str) -> str:
        raise RuntimeError(text)

    monkeypatch.setattr(redact, "redact_message", broken)
    said = crash_output._formatwarning(MESSAGE, UserWarning, "x.py", 1, "warnings.warn(x)")
    assert said == f"{crash_output.WITHHELD}UserWarning\n"

    def interrupted(text: str) -> str:
        raise KeyboardInterrupt

    # A hook's Ctrl-C ends a process that was ending; a warning's must reach the
    # command's handler, with nothing written.
    monkeypatch.setattr(redact, "redact_message", interrupted)
    with pytest.raises(KeyboardInterrupt):
        crash_output._formatwarning(MESSAGE, UserWarning, "x.py", 1, "warnings.warn(x)")
