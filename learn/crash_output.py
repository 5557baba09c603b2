"""A traceback no command caught is printed redacted, by every command.

A bug's traceback ends with the exception's message, and a message quotes what the
code held: psycopg's parse error quotes LEARN_DATABASE_URL whole, password and all; a
client's error the URL or header with the key; a stage's the transcript text it was
reading. Python printed it to stderr as it was, and stderr is read by more than the
person: `/learn` runs learn inside Claude Code, whose model reads the output (and
sends it to its API), and a scheduled run's stderr goes to a log. The hook's worker
already redacted its whole output (learn.hook.worker_output); the other commands
printed Python's own traceback.

`install` is the executable's first step (learn.entry). It only sets the hooks: the
redactor (learn.render.redact: ~23 ms of imports, as much again as all of
`learn --help` imports) is imported when an exception is printed, never on the way
to an answer. The text is formatted whole, then redacted as one (a PEM block spans lines), with
learn.render.redact.redact_message: the credentials learn holds by value, then
every shape. Not covered: what the interpreter writes to the file descriptor itself
(fatal errors), warnings and log records (learn writes its failures as one-line
messages, redacted where written).
"""

from __future__ import annotations

import sys
import threading
from types import TracebackType
from typing import Final

# Written instead of a text whose redaction failed: never the text itself.
WITHHELD: Final = "[learn: output withheld, redacting it failed]\n"


def install() -> None:
    """Print every uncaught exception (main thread, other threads, unraisable) redacted."""
    sys.excepthook = _excepthook
    threading.excepthook = _thread_excepthook
    sys.unraisablehook = _unraisablehook


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
        from learn.render.redact import redact_message

        return redact_message(text)
    except BaseException:
        return f"{WITHHELD}{kind.__name__}\n"


def _write(text: str) -> None:
    err = sys.stderr
    if err is None:  # pythonw, a detached process: nowhere to say it
        return
    try:
        err.write(text)
        err.flush()
    except (OSError, ValueError):  # stderr closed or a closed pipe: nothing to say it to
        pass


def _excepthook(kind: type[BaseException], value: BaseException,
                tb: TracebackType | None) -> None:
    if issubclass(kind, KeyboardInterrupt):
        # Ctrl-C before the command line's own handler (learn.cli.main) was reached,
        # while modules loaded: said as that handler says it, not as a traceback.
        _write("\nlearn: interrupted\n")
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
