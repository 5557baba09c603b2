"""`learn show` through the session index (issue 17) and what a listing imports (issue 21).

Show judges the session with its project's other sessions (origin, templates,
prompts repeated across them); with the index filled it reads their turns from
the index, opening no other session's file, and shows exactly what reading
every head showed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import apsw
import pytest
from click.testing import CliRunner
from test_transcripts_scripted import CHECKLIST, SCRIPT

from evals.builder import ClaudeSession, session_id
from learn.cli import cli
from learn.transcripts.view.serialise import session_to_dict

REPO = Path(__file__).resolve().parent.parent
_OPENED: list[str] = []
_WATCH: list[Path] = []


def _audit(event: str, args: tuple[object, ...]) -> None:
    if event == "open" and _WATCH and isinstance(args[0], str | Path):
        path = str(args[0])
        if any(path.startswith(str(w)) for w in _WATCH):
            _OPENED.append(path)


sys.addaudithook(_audit)


@pytest.fixture
def opened() -> Iterator[list[str]]:
    _WATCH.append(Path.home() / ".claude")
    _OPENED.clear()
    yield _OPENED
    _WATCH.clear()
    _OPENED.clear()


def _t(day: int) -> datetime:
    return datetime(2026, 11, day, 9, 0, tzinfo=UTC)


def _project(home: Path) -> dict[str, Path]:
    """A project of 13 sessions: a harness script opening 3, a checklist pasted into 3,
    one that pastes the checklist inside a longer turn, one that types one paragraph
    of it, and 5 with nothing repeated."""
    claude, project = home / ".claude", home / "code" / "svc"
    project.mkdir(parents=True, exist_ok=True)
    out: dict[str, Path] = {}

    def add(name: str, day: int, *turns: str) -> None:
        s = ClaudeSession(session_id(name), str(project), _t(day))
        for turn in turns:
            s.user(turn)
            s.assistant("Done.")
        out[name] = s.write(claude)

    for n in range(3):
        add(f"script-{n}", 2 + n, SCRIPT)
    for n, ask in enumerate(["add retries to the fetcher", "cache the config", "drop python 3.9"]):
        add(f"hand-{n}", 6 + n, ask, CHECKLIST)
    add("amended", 12, CHECKLIST.replace("\n\nNo new", "\n\nskip the dependency rule today\n\nNo new"))
    # One paragraph of the checklist, typed alone: cut by its fingerprint.
    add("paragraph", 13, "Error messages say what to do next and name the file involved, always.",
        "then ship it")
    for n in range(5):
        add(f"plain-{n}", 14 + n, f"rename the helper number {n}", "and run the tests")
    return out


def _show(ref: str) -> dict:  # type: ignore[type-arg]
    result = CliRunner().invoke(cli, ["show", ref, "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert isinstance(out, dict)
    return out


def _unindexed(path: Path) -> dict:  # type: ignore[type-arg]
    """What `learn show` printed before the index: every head of the project read."""
    from learn.commands.show import load_view
    from learn.transcripts.files.discover import scan

    file = next(f for f in scan(all_projects=True).files if f.path == path)
    return session_to_dict(load_view(path, file))


@pytest.mark.parametrize("name", ["script-1", "hand-2", "amended", "paragraph", "plain-0"])
def test_show_through_the_index_equals_reading_every_head(name: str, opened: list[str]) -> None:
    files = _project(Path.home())
    sid = session_id(name)
    expected = _unindexed(files[name])
    cold = _show(sid)  # nothing indexed yet: heads are read as before
    assert cold == expected
    CliRunner().invoke(cli, ["sessions", "--all-projects"], catch_exceptions=False)
    opened.clear()
    warm = _show(sid)
    assert warm == expected
    others = {p for p in opened if p.endswith(".jsonl")} - {str(files[name])}
    # The session's own file only: the others' turns come from the index.
    assert not others, others
    if name in ("script-1", "hand-2"):
        turns = [t["text"] for t in warm["human_turns_detail"]]
        assert SCRIPT not in turns and CHECKLIST not in turns
    if name == "amended":
        assert [t["text"] for t in warm["human_turns_detail"]] == ["skip the dependency rule today"]
    if name == "paragraph":
        assert [t["text"] for t in warm["human_turns_detail"]] == ["then ship it"]


def _importtime(args: list[str], env: dict[str, str]) -> set[str]:
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "learn", *args], env=env,
                          capture_output=True, text=True, timeout=300, cwd=REPO)
    assert done.returncode == 0, done.stderr[-2000:]
    return {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()
            if line.startswith("import time:")}


def test_a_listing_imports_no_vectors_detectors_or_mining(tmp_path: Path) -> None:
    # numpy came in through sqlite-vec just to list (issue 21); a listing runs
    # no detector and renders nothing for a model.
    _project(Path.home())
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LEARN_", "ANTHROPIC_"))}
    env.update(HOME=str(Path.home()), LEARN_DATA_DIR=str(tmp_path / "data"),
               LEARN_CACHE_DIR=str(tmp_path / "cache"), LEARN_CONFIG_DIR=str(tmp_path / "config"),
               PYTHONPATH=str(REPO))
    never = {"sqlite_vec", "numpy", "anthropic", "sklearn", "onnxruntime", "learn.detect",
             "learn.mining.cache", "learn.mining.miner", "rich"}
    cold = _importtime(["sessions", "--all-projects"], env)
    warm = _importtime(["sessions", "--all-projects", "--json"], env)
    assert "learn.index.indexed" in cold and "learn.index.indexed" in warm
    assert not never & cold
    assert not never & warm
    # Nothing to read on a warm listing: no parser, no process pool.
    assert not {"learn.transcripts.parser", "concurrent.futures.process"} & warm


def test_show_without_a_usable_store_reads_the_files(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # The index only saves reading: a store show cannot open (here a directory
    # where the database file should be) is not an error.
    files = _project(Path.home())
    data = tmp_path / "data"
    monkeypatch.setenv("LEARN_DATA_DIR", str(data))
    (data / "learn.db").mkdir(parents=True)
    from learn.store import open_store

    with pytest.raises(apsw.Error), open_store(local_only=True) as local:
        assert local.index
    assert _show(session_id("amended")) == _unindexed(files["amended"])


_LOOP = ("You are the release bot. Work through story US-{n:03d} in docs/prd.json: read the "
         "acceptance criteria, implement them, run the whole test suite, and commit with the "
         "story id in the message. Stop when the story passes; never edit another story.")


def test_the_listing_judges_from_the_stored_turns_as_from_whole_views(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Origin and templates are judged across the listed sessions (issue 17) from
    # the turns the index keeps, never from decoded views (issue 21): the same
    # counts, origins and evidence as judging every whole stored view.
    from fixtures.fidelity.writers import set_entrypoint

    from learn.index.indexed import indexed_views, min_signal_confidence
    from learn.store import open_store
    from learn.transcripts.files.discover import scan
    from learn.transcripts.templates.scripted import machinery
    from learn.transcripts.view.replay_files import (
        FingerprintCache,
    )

    home = Path.home()
    _project(home)
    loop = home / "code" / "bot"
    loop.mkdir(parents=True)
    for n in range(4):
        s = ClaudeSession(session_id(f"loop-{n}"), str(loop), _t(20 + n))
        s.user(_LOOP.format(n=n))
        s.assistant("Done.")
        if n == 3:  # a person answered inside this one
            s.user("no, keep the old migration and add a new one instead")
            s.assistant("Done.")
        set_entrypoint(s.lines, "sdk-cli")
        s.write(home / ".claude")
    CliRunner().invoke(cli, ["sessions", "--all-projects"], catch_exceptions=False)

    def no_view(blob: bytes) -> None:
        raise AssertionError("a listing decoded a stored view")

    with monkeypatch.context() as patch:
        patch.setattr("learn.index.indexed.decode_view", no_view)
        result = CliRunner().invoke(cli, ["sessions", "--all-projects", "--json"],
                                    catch_exceptions=False)
    listed = {r["id"]: r for r in json.loads(result.output)["sessions"]}

    cache = FingerprintCache()
    with open_store(local_only=True) as local:
        index = local.index
        items = indexed_views(scan(all_projects=True).files, index=index,
                              min_confidence=min_signal_confidence(),
                              fingerprints_for=lambda f: cache.for_project(f.project))
    assert not any(i.from_index for i in items)  # whole views: the listing built none
    judged = machinery([i.session for i in items]).views
    assert len(judged) == len(listed) == 17
    assert_rows_are_the_views(listed, judged)
    origins = [listed[session_id(f"loop-{n}")]["origin"] for n in range(4)]
    assert origins == ["programmatic"] * 3 + ["interactive"], origins


def assert_rows_are_the_views(listed: dict[str, dict[str, Any]], judged: list[Any]) -> None:
    """Each listed row counts and judges its session as the judged view does."""
    from learn.transcripts.view.serialise import session_counts

    for view in judged:
        row = listed[view.id]
        counts = session_counts(view)
        for key in ("human_turns", "human_turns_by_origin", "off_branch_human_turns"):
            assert row[key] == counts[key], (view.id, key)
        assert (row["origin"], row["origin_evidence"]) == (view.origin, list(view.origin_evidence))
