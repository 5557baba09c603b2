"""`learn eval`: the eval harness (see evals/run.py and the README's "Measuring quality")."""

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
    from learn._repo import repo_root

    repo_root()
    from evals.run import main

    sys.exit(main(list(args)))
