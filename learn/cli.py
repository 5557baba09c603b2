"""The `learn` command line: a thin shell over the library.

Subcommands live in `learn/commands/<name>.py`, each exposing a click command
named `command`. They are imported only when invoked, so `learn --help` never
pays for anthropic, numpy or onnxruntime.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from typing import NoReturn

import click

from learn import __version__

# name -> (module, one-line help). The help is duplicated here so that listing
# the commands does not import them.
COMMANDS: dict[str, tuple[str, str]] = {
    "sessions": ("learn.commands.sessions", "List the sessions learn can read."),
    "show": ("learn.commands.show", "Show one session as learn sees it."),
    "signals": ("learn.commands.signals", "Print deterministic feedback signals."),
    "plan": ("learn.commands.plan", "Say what a run would read and cost, without calling a model."),
    "run": ("learn.commands.run", "Mine sessions and propose rules (the main job)."),
    "batches": ("learn.commands.batches", "Pending Message Batches; --collect collects them now."),
    "digest": ("learn.commands.digest", "This project's pending proposals, from the store."),
    "apply": ("learn.commands.apply", "Write pending proposals into CLAUDE.md / AGENTS.md."),
    "decline": (
        "learn.commands.decline",
        "Decline a proposal: not proposed again until said in twice as many sessions.",
    ),
    "report": ("learn.commands.report", "Write a self-contained HTML report."),
    "outcomes": ("learn.commands.outcomes", "Did the rules work: per rule, loaded or not, rates."),
    "check": ("learn.commands.check", "learn's check: stop commands you told the agent never to run."),
    "stats": ("learn.commands.stats", "Proposals, runs, tokens and cost so far."),
    "share": ("learn.commands.share", "Share verified, redacted candidates with a team store."),
    "team": ("learn.commands.team", "Set up a team database: a role per person, row-level security."),
    "doctor": ("learn.commands.doctor", "Check directories, store, config, embedder, backend and hooks."),
    "schedule": ("learn.commands.schedule", "Set up periodic digests."),
    "demo": ("learn.commands.demo", "Run the whole pipeline on the bundled demo corpus."),
    "eval": ("learn.commands.eval", "Measure quality and cost on labelled corpora."),
    "hook": ("learn.commands.hook", "Run by Claude Code hooks: mine an ended session in the background."),
    "install-claude-command": (
        "learn.commands.install_claude_command",
        "Install the /learn command for Claude Code.",
    ),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return [name for name, (module, _) in COMMANDS.items() if _available(module)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None or not _available(entry[0]):
            return None
        module = importlib.import_module(entry[0])
        command = module.command
        assert isinstance(command, click.Command)
        return command

    def resolve_command(self, ctx: click.Context,
                        args: list[str]) -> tuple[str | None, click.Command | None, list[str]]:
        # The commands load lazily, so click has no list to suggest from: `learn rnu`
        # said only "No such command". The nearest names, as click does for options.
        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            from difflib import get_close_matches

            near = get_close_matches(name, self.list_commands(ctx), n=3, cutoff=0.6)
            hint = (f" Did you mean {near[0]!r}?" if len(near) == 1 else
                    f" (Did you mean one of: {', '.join(repr(n) for n in near)}?)" if near else "")
            raise click.UsageError(f"No such command {name!r}.{hint}", ctx)
        return super().resolve_command(ctx, args)

    def invoke(self, ctx: click.Context) -> object:
        # The one place a damaged setup becomes one line and an exit code
        # (learn.errors); a command never catches these itself.
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM / SIGHUP (learn.termination)
            _interrupted(exc)
        except click.Abort as exc:
            # click.confirm / prompt turn Ctrl-C into Abort; EOF stays a failure.
            if isinstance(exc.__context__, KeyboardInterrupt):
                _interrupted(exc.__context__)
            raise
        except (click.UsageError, click.exceptions.Exit):
            raise  # click's own words about the command line: the person's flags
        except click.ClickException as exc:
            # A command's failure line often quotes an exception (`str(exc)` of a
            # config, OS or model error; learn.commands.run's BackendUnavailable, the
            # endpoint's refusal) and is read where a traceback would be
            # (learn.crash_output): redacted the same way, on the way out only. The
            # same exception, its message replaced, so a command's own subclass keeps
            # its exit code and its way of showing itself; click declares the
            # attribute Final, and reads it only when the exception is shown.
            from learn.redaction.redact import redact_message

            exc.message = redact_message(exc.message)  # type: ignore[misc]
            exc.args = (exc.message,)
            raise
        except Exception as exc:
            from learn.errors import explain

            said = explain(exc)
            if said is None:
                raise
            line, code = said
            name = ctx.invoked_subcommand or ctx.info_name or "learn"
            click.echo(f"learn {name}: {line}" if name != "learn" else f"learn: {line}", err=True)
            raise click.exceptions.Exit(code) from exc

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][1]) for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def _available(module: str) -> bool:
    # A command whose module does not exist yet is simply not listed.
    from importlib.util import find_spec

    try:
        return find_spec(module) is not None
    except ModuleNotFoundError:
        return False


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="learn")
def cli() -> None:
    """Find what you keep telling your coding agent, and propose it as rules.

    learn reads Claude Code, Codex, Gemini CLI, Copilot CLI and OpenCode
    transcripts on this machine, verifies every quote against what you typed,
    counts distinct sessions, and proposes rules for CLAUDE.md / AGENTS.md with
    the evidence.
    """


def _interrupted(exc: KeyboardInterrupt) -> NoReturn:
    from learn.termination import ending

    line, code = ending(exc)
    click.echo(f"{line} (what was finished is kept)", err=True)
    raise click.exceptions.Exit(code)


def main() -> None:
    from learn.errors import EXIT_INTERRUPTED
    from learn.termination import EXIT_CODES, ending

    try:
        cli.main(prog_name="learn")
    except KeyboardInterrupt as exc:  # before or after a command ran
        line, code = ending(exc)
        click.echo(line, err=True)
        _end_now(code)
    except SystemExit as exc:
        if isinstance(exc.code, int) and (exc.code == EXIT_INTERRUPTED or exc.code in EXIT_CODES):
            _end_now(exc.code)
        if exc.code in (0, None) and _nothing_left_to_run() and _flushed():
            os._exit(0)
        raise


# The commands that only read and print: once they return, the interpreter's
# teardown (a full cyclic collection, every module freed) is all that is left,
# 0.03-0.1 s of a warm `learn sessions`' 0.3 s CPU (issue 32).
_READ_ONLY = frozenset({"sessions", "show"})


def _nothing_left_to_run() -> bool:
    """A read-only command returned and nothing is registered to run at exit: no
    atexit handler, no thread but this one (the teardown would then only free memory)."""
    import atexit
    import threading

    # A profiler or tracer (`python -m cProfile -m learn sessions`, coverage) writes
    # what it gathered after the command returns: the teardown is then not all that is left.
    return (len(sys.argv) > 1 and sys.argv[1] in _READ_ONLY and atexit._ncallbacks() == 0
            and threading.active_count() == 1
            and sys.getprofile() is None and sys.gettrace() is None)


def _flushed() -> bool:
    """Whether what was printed is out; if not (a closed pipe), the normal exit says so."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return False
    return True


def _end_now(code: int) -> NoReturn:
    """Exit with `code` (130, or 143 / 129 for SIGTERM / SIGHUP) at once, not after
    the threads still running.

    Everything a stage finished is already written (the mining cache entry of
    each session, the store's committed transactions), and every `finally` up
    the stack has run. What is left are worker threads in a model call or in
    an SDK's socket read: a normal exit joins them, and with the API
    unreachable Ctrl-C printed "interrupted" and the process ran on; a second
    Ctrl-C did nothing. Measured by tests/test_interrupt_points.py: within 2 s
    at every stage (and tests/test_terminate_signal.py for SIGTERM).
    """
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)
