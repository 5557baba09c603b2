"""`learn eval`: the eval harness (see evals/run.py and docs/evals.md).

From an installed learn the harness and its recorded answers come from the
package (learn/_repo.py). A live run records the answers it gets; from an
installed package those go to learn's cache directory (eval-live/), never into
the package's recorded fixtures, unless --cache-dir says otherwise.

`--live` means a real model: its backend is built once, from the person's config,
before any corpus runs (evals.corpus.build_live_backend, with learn run's own check,
learn.commands.run.build_backend, so a missing key or `claude` is the same one line
and exit code as there, said as `learn eval:`), and every corpus asks that backend on
every call, none answered from the recordings (evals.corpus.make_backend records over).
Built inside a corpus's isolated home it read the corpus's empty config instead: the
check asked the person's server, the corpora the default one.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, NoReturn

import click


@click.command("eval", context_settings={"ignore_unknown_options": True,
                                         "allow_extra_args": True, "help_option_names": []})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def command(args: tuple[str, ...]) -> None:
    """Measure quality and cost on the labelled corpora (offline replay by default).

    learn eval [CORPUS...] [--live --backend anthropic --model M] [--out F]
    [--baseline evals/baseline.json] [--gate]
    """
    from learn._repo import is_bundled, repo_root

    root = repo_root()
    argv = list(args)
    live = live_backend_name(argv)
    if is_bundled(root):
        argv = live_cache_args(argv)
    if live is None:
        from evals.run import main

        sys.exit(main(argv))
    sys.exit(_run_live(live, argv))


def live_backend_name(argv: list[str]) -> str | None:
    """The backend a `--live` run asks (evals/run.py's default: anthropic), or None when
    the run is not live (replay, --record-oracle) or only asks for --help."""
    known = _live_flags(argv)
    if known is None or not known.live or known.record_oracle or known.help:
        return None
    return str(known.backend)


def _live_flags(argv: list[str]) -> argparse.Namespace | None:
    # The harness's own parser reads the same flags later; this one only finds them.
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--live", action="store_true")
    parser.add_argument("--record-oracle", action="store_true")
    parser.add_argument("--backend", default="anthropic")
    parser.add_argument("--model", default=None)
    parser.add_argument("-h", "--help", action="store_true")
    try:
        known, _ = parser.parse_known_args(argv)
    except SystemExit:  # a flag missing its value: the harness says so itself
        return None
    return known


def _run_live(name: str, argv: list[str]) -> int:
    from learn.config import load_config
    from learn.models.base import ModelError

    known = _live_flags(argv)
    backend = _check_backend(name, load_config(), known.model if known is not None else None)
    from evals.run import main

    try:
        return main(argv, live=backend)
    except ModelError as exc:
        # A backend that passed the check and still cannot be built (learn run maps
        # the same ModelError from get_backend to its exit 2): one line, no traceback.
        _stop(str(exc), 2)
    except click.ClickException as exc:
        _stop(exc.format_message(), exc.exit_code)


def _check_backend(name: str, config: Any, model: str | None) -> Any:
    """Backend `name` as every corpus will ask it, built once from the person's `config`;
    stop with learn run's line and exit code when it cannot work at all."""
    from evals.corpus import build_live_backend

    try:
        return build_live_backend(name, model, config)
    except click.ClickException as exc:
        # run's UsageProblem (2) or BackendUnavailable (3): its line, said as eval's.
        _stop(exc.format_message(), exc.exit_code)


def _stop(line: str, code: int) -> NoReturn:
    from learn.redaction.redact import redact_message

    # The line can quote an HTTP client's error, which can quote a header: the key.
    click.echo(f"learn eval: {redact_message(line)}", err=True)
    raise click.exceptions.Exit(code)


def live_cache_args(argv: list[str]) -> list[str]:
    """`argv` with a writable --cache-dir when it records answers and names none."""
    records = "--live" in argv or "--record-oracle" in argv
    names_dir = any(a == "--cache-dir" or a.startswith("--cache-dir=") for a in argv)
    if not records or names_dir:
        return argv
    from learn.paths import cache_dir, ensure_private_dir

    return [*argv, "--cache-dir", str(ensure_private_dir(cache_dir() / "eval-live"))]
