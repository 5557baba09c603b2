"""A run with nothing new gives the last run's result, read from the store.

A run's result is a function of what it reads: the session files in scope,
the command and skill templates cut from them, the rule files coverage is
checked against, the options, the configuration and the backend, and what the
store remembers (verdicts, labels, proposals shown, pending, decided). When
none of it changed since a run whose own writes changed nothing the next run
reads (`store.state`: the first run after a change marks its proposals shown,
the one after it finds the same store it leaves), a run would compute that
run's result again: mining from the cache, judging from the verdicts
remembered, storing what is stored. So it does none of it: no session is
decoded, no batch planned, no model asked, nothing written, and the digest is
that run's, from the store.

`remember` keeps, per scope, the key of a finished run's inputs
(`inputs_key`: every file's size, mtime and inode as the index read it, and
the rest), the store's fingerprint and the run's id, in the cache directory
(deleting it costs one full run). `unchanged` answers the next run from them:
one stat per file, through the session index's heads and entries.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from learn.pipeline.types import RunOptions

if TYPE_CHECKING:
    from learn.config import Config
    from learn.records.proposal import RunResult
    from learn.store.api import Store
    from learn.store.session_index import IndexRow
    from learn.transcripts.files.discover import SessionFile

FILE_NAME: Final = "last-runs.json"
# Bump when what `inputs_key` covers changes: every record then differs.
WARM_VERSION: Final = 1


def _path() -> Path:
    from learn.paths import cache_dir

    return cache_dir() / FILE_NAME


def scope_key(options: RunOptions) -> str:
    from learn.projects import project_here

    return "all projects" if options.all_projects else project_here(options.project_dir())


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns, st.st_ino


def config_key(config: Config | None) -> str:
    """The configuration as text: its every setting; with no config file and no
    override to check, the defaults and the overrides taken as given, so a run with
    nothing new need not load the config to know it."""
    from learn.config_defaults import defaults_apply, defaults_key

    if defaults_apply():
        import learn

        defaults = f"{learn.__version__} {defaults_key()}"
        if config is None:
            return defaults
        from learn.config import load_config

        if config == load_config():  # not changed by a flag (--model)
            return defaults
    if config is None:
        from learn.config import load_config

        config = load_config()
    from learn.config import config_json

    return config_json(config)


def inputs_key(options: RunOptions, config: str, backend: str,
               files: Sequence[SessionFile], rows: dict[str, IndexRow | None]) -> str:
    """What a run of `options` reads besides the store, as one key (`config`: `config_key`).

    `rows`: each file's session-index entry as the run read it (None: not read);
    its size, mtime and inode are the file's then, its version and context
    (replay fingerprints, asides, detector threshold) what its view was built with.
    """
    from learn.index.indexed import entry_version
    from learn.render_version import RENDER_VERSION

    h = hashlib.sha256()
    # `since` is a moment that moves with the clock: the files it lets in are what count.
    # Batching only changes how what is not cached is mined: a run answered again has none.
    settings = {k: v for k, v in asdict(options).items()
                if k not in ("since", "store_path", "batch", "collect_only")}
    h.update(json.dumps([WARM_VERSION, entry_version(), RENDER_VERSION, backend, config, settings],
                        sort_keys=True, default=str).encode())
    for f in files:
        row = rows.get(str(f.path))
        entry = None if row is None else (row.size, row.mtime_ns, row.inode, row.version,
                                          row.context)
        h.update(json.dumps([str(f.path), entry, [str(p) for p in f.subagent_paths]]).encode(
            "utf-8", "surrogateescape"))
    for path in _read_also(options, files):
        h.update(f"{path}\0{_stamp(path)}\0".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def _read_also(options: RunOptions, files: Sequence[SessionFile]) -> list[Path]:
    """The other files a run reads: command and skill templates (`read._templates`),
    rule files and skills (`coverage_scope.rule_corpora`)."""
    from learn.projects import as_folder
    from learn.reduce.rules import rule_sources
    from learn.transcripts.view.replay_files import template_paths
    from learn.windows_names import not_opened

    if options.all_projects:
        # As read._templates: never a folder on a share (learn.windows_names.not_opened).
        templated: list[Path | None] = sorted(
            {Path(f.project) for f in files if f.project and not_opened(f.project) is None},
            key=str) or [None]
        ruled: list[Path | None] = sorted({folder for f in files if f.project_id and (
            folder := as_folder(f.project_id)) is not None}, key=str) or [None]
    else:
        templated = ruled = [options.project_dir()]
    out: list[Path] = []
    for project in templated:
        out += template_paths(project)
    for project in ruled:
        rules, skills = rule_sources(project)
        out += [p for p, _ in (*rules, *skills)]
    return sorted(set(out), key=str)


def unchanged(options: RunOptions, config: str, backend: str) -> RunResult | None:
    """The stored result of the last run of this scope when nothing it read changed
    since, None when anything did (or nothing is remembered). `config`: `config_key`."""
    record = _load().get(scope_key(options))
    if not isinstance(record, dict) or options.collect_only:
        return None
    from learn.index.indexed import same_file, stamp
    from learn.pipeline.read import discover
    from learn.store import open_store
    from learn.store.run_json import result_from_full_json
    from learn.store.state import state_fingerprint

    with open_store(options.store_path) as store:
        files = discover(options, store.index).files
        stored = store.index.get_many([str(f.path) for f in files], views=False, texts=False)
        # An entry counts as read only while its file is as the entry says: else the key differs.
        rows: dict[str, IndexRow | None] = {}
        for f in files:
            row = stored.get(str(f.path))
            rows[str(f.path)] = row if same_file(row, stamp(f.path)) else None
        if inputs_key(options, config, backend, files, rows) != record.get("inputs"):
            return None
        if store.batches.pending() or state_fingerprint(store) != record.get("state"):
            return None
        run = store.runs.get_run(int(record.get("run", -1)))
    if run is None or not isinstance(run.result_full, dict):
        return None
    result = result_from_full_json(run.result_full)
    return replace(result, extra={**result.extra, "unchanged_since": run.finished_at})


def remember(options: RunOptions, store: Store, *, inputs: str, run_id: int,
             state_before: str | None, result: RunResult, clean: bool) -> None:
    """After a finished run: keep what `unchanged` compares when it left the store as it
    found it (`state_before`) and nothing failed; else forget the scope's record."""
    from learn.store.state import state_fingerprint

    records = _load()
    after = state_fingerprint(store) if clean and state_before is not None else None
    if after is not None and after == state_before and not store.batches.pending():
        records[scope_key(options)] = {"inputs": inputs, "state": after, "run": run_id}
    elif records.pop(scope_key(options), None) is None:
        return
    from learn.paths import atomic_write_text

    # An unwritable cache costs the next run a full one, not this run.
    with contextlib.suppress(OSError):
        atomic_write_text(_path(), json.dumps(records, sort_keys=True))


def _load() -> dict[str, Any]:
    try:
        data = json.loads(_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # none yet, unreadable or damaged: a full run, nothing lost
    return data if isinstance(data, dict) else {}
