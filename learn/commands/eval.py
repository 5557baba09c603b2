"""`learn eval`: the eval harness (see evals/run.py and docs/evals.md).

From an installed learn the harness and its recorded answers come from the
package (learn/_repo.py). A live run records the answers it gets; from an
installed package those go to learn's cache directory (eval-live/), never into
the package's recorded fixtures, unless --cache-dir says otherwise.
"""

from __future__ import annotations

import sys

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
    if is_bundled(root):
        argv = live_cache_args(argv)
    from evals.run import main

    sys.exit(main(argv))


def live_cache_args(argv: list[str]) -> list[str]:
    """`argv` with a writable --cache-dir when it records answers and names none."""
    records = "--live" in argv or "--record-oracle" in argv
    names_dir = any(a == "--cache-dir" or a.startswith("--cache-dir=") for a in argv)
    if not records or names_dir:
        return argv
    from learn.paths import cache_dir, ensure_private_dir

    return [*argv, "--cache-dir", str(ensure_private_dir(cache_dir() / "eval-live"))]
