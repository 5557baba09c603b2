"""`learn demo`: the whole pipeline on the bundled demo corpus, with no key.

The corpus (eight sessions in three projects, written for the purpose) is built
into a HOME of its own under learn's data dir, kept so that `learn demo --apply`
can write the proposals into the demo's own projects (the next step a user
expects after a digest, without touching their files). The model's answers come
from recorded fixtures in cache/ (the replay backend), so the demo is free,
offline and deterministic.
Those answers are fixtures that stand in for a model, not a model's live output;
`learn eval --live` measures a real one.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import click

from learn.visible import inert_json


def demo_dir() -> Path:
    """Where the demo's corpus and its own store live between `learn demo` and
    `learn demo --apply` (replaced by the next `learn demo`)."""
    from learn.paths import data_dir

    return data_dir() / "demo"


@click.command("demo")
@click.option("--json", "as_json", is_flag=True, help="Print the run's JSON instead of the digest.")
@click.option("--keep", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Build the demo corpus here (default: learn's data dir, demo/).")
@click.option("--offline", is_flag=True, help="No model answers at all: detectors only.")
@click.option("--apply", "apply_", is_flag=True,
              help="Write the last demo's pending proposals into the demo's own projects (a "
                   "copy, never your files), showing each diff.")
def command(as_json: bool, keep: Path | None, offline: bool, apply_: bool) -> None:
    """Run learn end to end on the bundled demo corpus (recorded model answers)."""
    base = keep if keep is not None else demo_dir()
    from learn._repo import repo_root

    root = repo_root()  # puts the eval harness (evals/) on sys.path
    if apply_:
        sys.exit(_apply_demo(base))
    from evals.corpora.demo import build
    from evals.corpus import isolated_home
    from learn.config import load_config
    from learn.models.replay import ReplayBackend
    from learn.pipeline import RunOptions, run_pipeline
    from learn.report.digest import render_digest_markdown

    if keep is None:
        # learn's data dir holds the demo: 0700 like the rest of it, made before anything
        # is written there (the demo's files were 0644 in 0755 folders, a privacy audit
        # found, until the next command tightened the data dir; demo/ stayed open).
        from learn.paths import data_dir, ensure_private_dir

        ensure_private_dir(data_dir())
        ensure_private_dir(base)
    gold = build(base)
    with isolated_home(base):
        config = load_config()
        backend = None if offline else ReplayBackend(root / "cache")
        options = RunOptions(all_projects=True, since=None, show_all=True, offline=offline)
        result, _ = run_pipeline(options, config, backend=backend)
    # The digest's next step is the demo's own apply, not `learn apply` on your files.
    result = dataclasses.replace(
        result, extra={**result.extra, "demo": True},
        failures=planted_said(result.failures, planted_naming=bool(gold.naming_omit)))
    if as_json:
        click.echo(inert_json(json.dumps(result.to_json(), indent=2, ensure_ascii=False)))
    else:
        from learn.report.wrap import for_terminal

        click.echo(for_terminal(render_digest_markdown(result), isatty=sys.stdout.isatty()))
        click.echo(
            "\n(demo: the model answers above are recorded fixtures (the repository's "
            "cache/, bundled in an installed learn), not a live model; `learn eval` scores them)",
            err=True,
        )
    sys.exit(1 if result.usage.sessions_failed else 0)


# Said after a failure the demo's recorded answers cause on purpose (docs/evals.md: the
# stand-in model leaves an item unlabelled), so the README's first command does not read
# as broken: "name: directive batch 0: 1 of 1 items unlabelled; they fell back" was
# printed under "What failed" with nothing to say it was planted.
PLANTED = (" (planted: the bundled demo's recorded answers leave this item unlabelled on "
           "purpose, to show how a fallback is reported; a real run reports its own failures)")


def planted_said(failures: tuple[str, ...], *, planted_naming: bool) -> tuple[str, ...]:
    """The run's failures, the ones the demo's fixtures plant marked as planted.

    Only a naming answer that left items out ("items unlabelled", not a cut answer)
    is planted, and only when the corpus's gold says its namer omits some
    (`Gold.naming_omit`); any other failure is the demo's own, said as it is."""
    def planted(line: str) -> bool:
        return (planted_naming and line.startswith("name: ") and "items unlabelled;" in line
                and "(answer truncated)" not in line)

    return tuple(f"{line}{PLANTED}" if planted(line) else line for line in failures)


# How the demo's writes are put back: `learn demo` rebuilds the corpus, its projects and
# its store from scratch (evals.builder.fresh_root).
DEMO_UNDO = "`learn demo` puts it back: it rebuilds the demo"


def demo_states_hint(base: Path, project: Path) -> str:
    """The command that lists the demo project's proposals in every state: the demo's
    store, not the person's (`learn digest --all`, said by apply, read their own)."""
    import shlex

    return (f"`LEARN_DATA_DIR={shlex.quote(str(base / 'data'))} learn digest --all --project "
            f"{shlex.quote(str(project))}` lists the demo's proposals in every state")


def _apply_demo(base: Path) -> int:
    """`learn apply --yes` in each of the demo's projects, inside the demo's HOME."""
    if not (base / "gold.json").is_file() or not (base / "data" / "learn.db").is_file():
        raise click.ClickException(f"no demo run in {base}: run `learn demo` first")
    from evals.corpus import isolated_home
    from learn.commands.apply import command as apply_command

    worst = 0
    with isolated_home(base):
        for project in sorted(p for p in (base / "home" / "code").iterdir() if p.is_dir()):
            click.echo(f"## {project.name}")
            try:
                # The demo's store is its own: the person's `learn apply --undo` finds
                # nothing of it, and `learn demo` rebuilds the copies (evals.builder).
                apply_command.main(["--project", str(project), "--yes"], standalone_mode=False,
                                   obj={"undo_hint": DEMO_UNDO,
                                        "states_hint": demo_states_hint(base, project)})
            except SystemExit as exc:
                worst = max(worst, int(exc.code or 0))
            except click.ClickException as exc:
                exc.show()
                worst = max(worst, 1)
    click.echo(f"(demo: written into the demo's own projects under {base / 'home'}, "
               "not your files; `learn demo` puts them back: it rebuilds the demo from scratch)",
               err=True)
    return worst
