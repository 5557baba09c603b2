"""Discovery over names that are not UTF-8: a `\\xff` byte in a file or folder name
(Python gives it as a surrogate escape) is skipped and counted, never a traceback.

`learn sessions --all-projects` crashed with a UnicodeEncodeError storing such a
path's head in the session index (audit, repro 1_nonutf8_name).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from fixtures.view.corpus import CODEX_ID, MAIN_ID, OTHER_ID, SUBDIR_ID, Home, install

from learn.cli import cli
from learn.transcripts.files.discover import scan
from learn.transcripts.files.listing import NOT_UTF8

ALL_IDS = {MAIN_ID, SUBDIR_ID, OTHER_ID, CODEX_ID}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Home:
    h = Path.home()  # conftest points HOME at a temp dir
    installed = install(h / ".claude", h / ".codex", tmp_path / "work" / "shop")
    monkeypatch.chdir(installed.project)
    return installed


def odd(directory: Path, name: bytes) -> Path:
    """`directory / name` for a name of raw bytes, as Python lists it (surrogate escapes);
    skips the test on a file system that refuses names that are not UTF-8 (macOS)."""
    path = directory / os.fsdecode(name)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
        path.unlink()
    except OSError:
        pytest.skip("this file system refuses names that are not UTF-8")
    return path


def shown(*paths: Path) -> list[str]:
    """How a skip lists these paths: their bytes that are not UTF-8 escaped, printable."""
    return sorted(str(p).replace("\udcff", "\\xff").replace("\udcfe", "\\xfe") for p in paths)


def not_utf8_skips(home: Home) -> list[str]:
    result = scan(all_projects=True)
    assert {f.session_id for f in result.files} == ALL_IDS
    return sorted(str(s.path) for s in result.skipped_files if s.detail == NOT_UTF8)


def test_a_session_file_whose_name_is_not_utf8_is_skipped_as_unreadable(home: Home) -> None:
    bad = odd(home.files["main"].parent, b"eeeeeeee-eeee-\xff.jsonl")
    shutil.copy(home.files["main"], bad)
    result = scan(all_projects=True)
    assert {f.session_id for f in result.files} == ALL_IDS
    assert all(f.path != bad for f in result.files)
    [skipped] = result.skipped_files
    assert (skipped.reason, skipped.provider, skipped.detail) == ("unreadable", "claude", NOT_UTF8)
    assert skipped.path == home.files["main"].parent / "eeeeeeee-eeee-\\xff.jsonl"
    assert result.skipped == {"unreadable": 1}


def test_every_session_of_a_project_folder_whose_name_is_not_utf8_is_skipped(home: Home) -> None:
    folder = odd(home.claude / "projects", b"-tmp-\xffodd")
    folder.mkdir()
    copied = shutil.copy(home.files["other"], folder / "4c0ffee0-0000-4000-8000-000000000004.jsonl")
    assert not_utf8_skips(home) == shown(Path(copied))


def test_a_codex_rollout_in_a_folder_whose_name_is_not_utf8_is_skipped(home: Home) -> None:
    day = odd(home.codex / "sessions" / "2026" / "11", b"\xff21")
    day.mkdir()
    copied = shutil.copy(home.files["codex"], day / "rollout-2026-11-21T09-00-00-0199a0b1-2c3d-7e4f"
                                                  "-8a9b-0c1d2e3f4a5c.jsonl")
    bad_name = odd(home.files["codex"].parent, b"rollout-2026-11-20T09-00-00-\xff.jsonl")
    shutil.copy(home.files["codex"], bad_name)
    assert not_utf8_skips(home) == shown(Path(copied), bad_name)


def test_subagent_files_whose_names_are_not_utf8_are_skipped_not_attached(home: Home) -> None:
    new_layout = odd(home.files["subagent_new"].parent, b"agent-\xff.jsonl")
    shutil.copy(home.files["subagent_new"], new_layout)
    old_layout = odd(home.files["main"].parent, b"agent-\xfe.jsonl")
    shutil.copy(home.files["subagent_old"], old_layout)
    assert not_utf8_skips(home) == shown(new_layout, old_layout)
    [main] = [f for f in scan(all_projects=True).files if f.session_id == MAIN_ID]
    assert set(main.subagent_paths) == {home.files["subagent_new"], home.files["subagent_old"]}


def test_a_copilot_session_folder_whose_name_is_not_utf8_is_skipped(home: Home) -> None:
    folder = odd(Path.home() / ".copilot" / "session-state", b"\xff")
    folder.mkdir()
    events = folder / "events.jsonl"
    events.write_text('{"type":"session.start","data":{"sessionId":"x"}}\n')
    assert not_utf8_skips(home) == shown(events)


def test_learn_sessions_and_show_list_the_others_when_a_name_is_not_utf8(home: Home) -> None:
    bad = odd(home.files["main"].parent, b"eeeeeeee-eeee-\xff.jsonl")
    shutil.copy(home.files["main"], bad)
    runner = CliRunner()
    listed = runner.invoke(cli, ["sessions", "--all-projects", "--json"], catch_exceptions=False)
    assert listed.exit_code == 0, listed.output
    out = json.loads(listed.output)
    assert {r["id"] for r in out["sessions"]} == ALL_IDS
    assert [(s["reason"], s["detail"], s["path"]) for s in out["skipped"]] == [
        ("unreadable", NOT_UTF8, *shown(bad))]
    table = runner.invoke(cli, ["sessions", "--all-projects"], catch_exceptions=False)
    assert table.exit_code == 0 and "1 unreadable" in table.output
    one = runner.invoke(cli, ["show", MAIN_ID[:8]], catch_exceptions=False)
    assert one.exit_code == 0, one.output
