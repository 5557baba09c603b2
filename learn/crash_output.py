"""A traceback no command caught, and a warning, are printed redacted, by every command.

A bug's traceback ends with the exception's message, and a message quotes what the
code held: psycopg's parse error quotes LEARN_DATABASE_URL whole, password and all; a
client's error the URL or header with the key; a stage's the transcript text it was
reading. Python printed it to stderr as it was, and stderr is read by more than the
person: `/learn` runs learn inside Claude Code, whose model reads the output (and
sends it to its API), and a scheduled run's stderr goes to a log. The hook's worker
already redacted its whole output (learn.hook.worker_output); the other commands
printed Python's own traceback.

A warning is the same text by another road: a library's DeprecationWarning quotes
what it was given, a ResourceWarning the repr of the object left open (`unclosed
<...>`), and Python printed it to stderr as it was. Its text is made
by `warnings.formatwarning`, on both roads it takes to stderr: the stock
`showwarning`, and logging's when `logging.captureWarnings` sends warnings to a
handler. `install` replaces that one function (its documented hook), so the
warnings filters still decide what is shown (an ignored warning is never formatted;
`-W error` raises before, and the raise is an uncaught exception's traceback). The
one difference from the stock text: under `-X tracemalloc` a ResourceWarning's
"Object allocated at" lines are left out, as Python leaves them out whenever
`formatwarning` is replaced.

`install` is the executable's first step (learn.entry). It only sets the hooks: the
redactor (learn.redaction.redact: ~23 ms of imports, as much again as all of
`learn --help` imports) is imported when an exception or a warning is printed,
never on the way to an answer. The text is formatted whole, then redacted as one (a
PEM block spans lines), with learn.redaction.redact.redact_message: the credentials
learn holds by value, then every shape.

Not covered, as it cannot quote a value: what the interpreter writes to the file
descriptor itself. faulthandler (learn never enables it; `-X faulthandler` or
PYTHONFAULTHANDLER does) and a fatal error's "Current thread ... (most recent call
first)" write from a signal handler or a dying interpreter, where no Python code can
run: they walk the frames' code objects and print file, line and function names,
never a local's or an argument's value. (A fatal error raised while a Python
exception is pending prints that exception through the interpreter's own display,
not sys.excepthook: an interpreter failure, not learn's.) Not covered either: log
records (learn writes its failures as one-line messages, redacted where written).
"""

from __future__ import annotations

import sys
import threading
import warnings  # 0.2 ms, and `learn --help` loaded it before this module did
from types import TracebackType
from typing import Final

# Written instead of a text whose redaction failed: never the text itself.
WITHHELD: Final = "[learn: output withheld, redacting it failed]\n"

# Python's own, kept at import (learn.entry imports this module first, before anything
# could replace it): what `_formatwarning` redacts.
_stock_formatwarning: Final = warnings.formatwarning


def install() -> None:
    """Print every uncaught exception (main thread, other threads, unraisable) and
    every warning redacted."""
    sys.excepthook = _excepthook
    threading.excepthook = _thread_excepthook
    sys.unraisablehook = _unraisablehook
    warnings.formatwarning = _formatwarning


def exception_text(kind: type[BaseException], value: BaseException | None,
                   tb: TracebackType | None) -> str:
    """The traceback Python itself would print, as one text (not redacted)."""
    import traceback  # with linecache and tokenize: paid only when one is printed

    return "".join(traceback.format_exception(kind, value, tb))


def thread_exception_text(args: threading.ExceptHookArgs) -> str | None:
    """What threading's own hook prints for `args` (not redacted); None for a thread's
    SystemExit, which threading leaves unsaid too."""
    if args.exc_type is SystemExit:
        return None
    name = args.thread.name if args.thread is not None else threading.get_ident()
    return f"Exception in thread {name}:\n" + exception_text(
        args.exc_type, args.exc_value, args.exc_traceback)


def redacted(text: str, kind: type[BaseException]) -> str:
    """`text` through redact_message, or, when that fails, WITHHELD and the exception's
    type: a redaction bug (or a Ctrl-C during it) must not print the secret it missed,
    and Python prints the original traceback unredacted when its hook raises."""
    try:
        from learn.redaction.redact import redact_message

        return redact_message(text)
    except BaseException:
        return f"{WITHHELD}{kind.__name__}\n"


def _write(text: str) -> None:
    err = sys.stderr
    if err is None:  # pythonw, a detached process: nowhere to say it
        return
    try:
        try:
            err.write(text)
        except UnicodeEncodeError:
            # A stderr set to fail on what its encoding lacks (errors="strict": an
            # embedding's, a wrapper's): the ValueError below took it for a closed stream
            # and the whole traceback was lost. Written in that encoding, escaped.
            err.write(escaped(text, getattr(err, "encoding", None)))
        err.flush()
    except (OSError, ValueError):  # stderr closed or a closed pipe: nothing to say it to
        pass


def escaped(text: str, encoding: str | None) -> str:
    """`text` with what `encoding` lacks as Python's escapes (`\\u2192`), as Python writes
    its own standard error; ASCII when the encoding is unknown."""
    for name in (encoding or "ascii", "ascii"):
        try:
            return text.encode(name, "backslashreplace").decode(name)
        except (LookupError, UnicodeError):
            continue
    return text.encode("ascii", "backslashreplace").decode("ascii")


def _excepthook(kind: type[BaseException], value: BaseException,
                tb: TracebackType | None) -> None:
    if issubclass(kind, KeyboardInterrupt):
        # Ctrl-C (or SIGTERM, SIGHUP: learn.termination) before the command line's own
        # handler (learn.cli.main) was reached, while modules loaded: said as that
        # handler says it, not as a traceback.
        from learn.termination import end_while_loading  # loaded: learn.entry installed it

        end_while_loading(value, _write)
        return
    _write(redacted(exception_text(kind, value, tb), kind))


def _thread_excepthook(args: threading.ExceptHookArgs) -> None:
    text = thread_exception_text(args)
    if text is not None:
        _write(redacted(text, args.exc_type))


def _unraisablehook(args: sys.UnraisableHookArgs) -> None:
    # As Python's own hook: "Exception ignored in: <obj>", then the traceback. The
    # object's repr can quote what it held as much as the message can.
    head = args.err_msg or "Exception ignored in"
    try:
        where = f"{head}: {args.object!r}\n" if args.object is not None else f"{head}:\n"
    except Exception:  # a repr that fails: Python's hook says the object's type
        where = f"{head}: <{type(args.object).__name__} object>\n"
    body = exception_text(args.exc_type, args.exc_value, args.exc_traceback)
    _write(redacted(where + body, args.exc_type))


def _formatwarning(message: Warning | str, category: type[Warning], filename: str,
                   lineno: int, line: str | None = None) -> str:
    """The stock warning text (file:line: Category: message, then the source line),
    redacted. A failed redaction gives WITHHELD and the category; a Ctrl-C during it
    goes on up through `warnings.warn`, with nothing written, to the command's own
    handler (a hook ends the process, a warning must not swallow the interrupt)."""
    text = _stock_formatwarning(message, category, filename, lineno, line)
    try:
        from learn.redaction.redact import redact_message

        return redact_message(text)
    except Exception:
        return f"{WITHHELD}{category.__name__}\n"
