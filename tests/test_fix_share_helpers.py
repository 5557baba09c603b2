"""The helpers that look for a project's files never open a folder on a network share,
whoever calls them (Windows, simulated).

learn.windows_names.not_opened decides; the callers (learn.pipeline.read, .warm,
`learn show`) asked it before handing a project over, but the helpers themselves
resolved or walked whatever they were given: `project_template_paths` and `_ancestors`
realpath'ed `\\\\evil\\share\\proj` (on Windows: asks that server, with the person's
login), as did Gemini CLI's and OpenCode's project roots; `view_files` handed a share's
project to the template lookup, and the scripted-prompt readers handed it to discovery's
scan. Each now asks not_opened itself. Modelled as tests/test_unc_paths.py models it:
every file system call with the server's name in its path is recorded and fails.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest
from _windows_sim import windows, windows_paths
from test_unc_paths import SPELLINGS, contact

from learn.transcripts.files import discover
from learn.transcripts.files.discover import SessionFile
from learn.transcripts.view.model import Session
from learn.transcripts.view.replay import Fingerprints
from learn.transcripts.view.replay_files import FingerprintCache

__all__ = ["contact", "windows", "windows_paths"]  # the fixtures


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_CONFIG_HOME", "OPENCODE_CONFIG_DIR",
                 "OPENCODE_CONFIG", "GEMINI_CLI_HOME"):
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture
def scans(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every project discovery's scan is asked about (it resolves the folder)."""
    asked: list[str] = []

    def scan(*, project: Path | None = None, **kwargs: Any) -> discover.Discovery:
        asked.append(str(project))
        return discover.Discovery(files=[])

    monkeypatch.setattr(discover, "scan", scan)
    return asked


@pytest.mark.parametrize("share", SPELLINGS)
def test_the_template_lookup_never_resolves_a_share(
        share: str, windows_paths: None, contact: list[str], home: Path) -> None:
    from learn.transcripts.view.replay_files import _ancestors, project_template_paths

    assert project_template_paths(Path(share)) == []
    assert list(_ancestors(Path(share))) == []
    FingerprintCache().for_project(share)
    assert contact == []


def test_the_template_lookup_still_reads_a_local_project(
        windows_paths: None, contact: list[str], home: Path, tmp_path: Path) -> None:
    from learn.transcripts.view.replay_files import project_template_paths

    project = tmp_path / "proj"
    (project / ".claude" / "commands").mkdir(parents=True)
    (project / ".claude" / "commands" / "ship.md").write_text("Ship it: $ARGUMENTS\n")
    assert [p.name for p in project_template_paths(project)] == ["ship.md"]


@pytest.mark.parametrize("share", SPELLINGS)
def test_gemini_project_roots_keep_a_share_as_spelled(
        share: str, windows_paths: None, contact: list[str], home: Path, tmp_path: Path) -> None:
    from learn.transcripts.gemini import places

    gemini = tmp_path / ".gemini"
    (gemini / "tmp" / places._hash(share)).mkdir(parents=True)
    assert places.project_roots(gemini, [Path(share)]) == {places._hash(share): share}
    assert contact == []


@pytest.mark.parametrize("share", SPELLINGS)
def test_opencode_project_roots_keep_a_share_as_spelled(
        share: str, windows_paths: None, contact: list[str]) -> None:
    from learn.transcripts.opencode import project_storage

    roots = project_storage.project_roots([Path(share)])
    assert roots[project_storage.slug(str(Path(share)))] == str(Path(share))
    assert contact == []


@pytest.mark.parametrize("share", SPELLINGS)
def test_view_files_reads_no_template_of_a_share_project(
        share: str, windows_paths: None, contact: list[str], home: Path, tmp_path: Path) -> None:
    from learn.transcripts.view.many import view_files

    asked: list[str | None] = []

    class Recording(FingerprintCache):
        def for_project(self, project: str | None) -> Fingerprints:
            asked.append(project)
            return super().for_project(project)

    local = str(tmp_path / "proj")
    files = []
    for n, cwd in enumerate((share, local)):
        path = tmp_path / f"s{n}.jsonl"
        path.write_text(json.dumps({
            "type": "user", "uuid": f"u{n}", "sessionId": f"s{n}", "cwd": cwd,
            "timestamp": "2026-11-01T10:00:00Z",
            "message": {"role": "user", "content": "use bun, not npm"}}) + "\n")
        files.append(SessionFile(path=path, provider="claude", session_id=f"s{n}", mtime=0.0,
                                 size=path.stat().st_size, project=cwd))
    assert [f.session_id for f, _ in view_files(files, fingerprints=Recording())] == ["s0", "s1"]
    assert asked == [None, local]
    assert contact == []


@pytest.mark.parametrize("share", SPELLINGS)
def test_the_scripted_prompt_readers_never_scan_a_share_project(
        share: str, windows_paths: None, contact: list[str], scans: list[str]) -> None:
    from learn.index.project_turns import project_turn_views
    from learn.transcripts.templates.keys import Keys
    from learn.transcripts.templates.scripted import project_prompts, project_views

    assert project_views(share) == [] and project_prompts(share) == []
    view = cast(Session, type("View", (), {"project": share, "path": Path("s.jsonl")})())
    assert project_turn_views(view, (), index=cast(Any, None), heads=cast(Any, None),
                              limit=20, keys=Keys()) == []
    assert scans == [] and contact == []
    # A local project is still scanned for its other sessions.
    assert project_views("/home/ana/proj") == []
    assert scans == ["/home/ana/proj"]
