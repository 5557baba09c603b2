"""Discovery: where transcripts live, which belong to the project, and the caps."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fixtures.view.corpus import CODEX_ID, MAIN_ID, OTHER_ID, SUBDIR_ID, encode, install

from learn.transcripts.discover import discover, in_project, parse_since, read_head, scan


@pytest.fixture
def home(tmp_path: Path):  # type: ignore[no-untyped-def]
    h = Path.home()
    return install(h / ".claude", h / ".codex", tmp_path / "work" / "shop")


def ids(files: list) -> list[str]:  # type: ignore[type-arg]
    return [f.session_id for f in files]


def test_default_scope_is_cwd_project_newest_first(home, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(home.project)
    files = discover()
    # main (newest), codex, then the session run in a subdirectory; never the
    # look-alike "shop-old" project, and never a subagent file on its own.
    assert ids(files) == [MAIN_ID, CODEX_ID, SUBDIR_ID]
    assert [f.provider for f in files] == ["claude", "codex", "claude"]
    assert files[0].mtime > files[1].mtime > files[2].mtime
    assert files[0].project == str(home.project)
    assert files[2].project == str(home.project / "api")
    assert files[0].size == home.files["main"].stat().st_size


def test_subagents_attach_to_parent_in_both_layouts(home) -> None:  # type: ignore[no-untyped-def]
    [main] = [f for f in discover(project=home.project) if f.session_id == MAIN_ID]
    assert set(main.subagent_paths) == {home.files["subagent_new"], home.files["subagent_old"]}
    # The macOS resource fork beside the new-layout file is not a subagent.
    assert all(not p.name.startswith("._") for p in main.subagent_paths)
    everything = discover(all_projects=True)
    assert not any(f.path.name.startswith("agent-") for f in everything)


def test_all_projects(home) -> None:  # type: ignore[no-untyped-def]
    files = discover(all_projects=True, project=Path("/elsewhere"))
    assert ids(files) == [MAIN_ID, CODEX_ID, SUBDIR_ID, OTHER_ID]


def test_project_is_compared_by_realpath_through_symlinks(home, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    link = tmp_path / "link-to-shop"
    link.symlink_to(home.project)
    # Asking through the symlink finds the sessions recorded under the real path...
    assert ids(discover(project=link)) == [MAIN_ID, CODEX_ID, SUBDIR_ID]
    # ...and a session recorded under the symlinked path belongs to the real project.
    path = home.files["main"]
    text = path.read_text().replace(str(home.project), str(link))
    linked = home.claude / "projects" / encode(link) / "4c0ffee0-0000-4000-8000-000000000004.jsonl"
    linked.parent.mkdir(parents=True)
    linked.write_text(text.replace(MAIN_ID, "4c0ffee0-0000-4000-8000-000000000004"))
    assert "4c0ffee0-0000-4000-8000-000000000004" in ids(discover(project=home.project))
    assert in_project(str(link / "api"), home.project)
    assert not in_project(str(home.project) + "-old", home.project)
    assert not in_project(None, home.project)


def test_since_and_limit(home) -> None:  # type: ignore[no-untyped-def]
    # Last activity: main ends at 09:47, the others at or before 09:02 (mtimes,
    # all in 2027, say nothing about it).
    since = datetime(2026, 11, 20, 9, 30, tzinfo=UTC)
    assert ids(discover(all_projects=True, since=since)) == [MAIN_ID]
    assert ids(discover(all_projects=True, limit=2)) == [MAIN_ID, CODEX_ID]
    assert ids(discover(project=home.project, limit=1)) == [MAIN_ID]
    result = scan(all_projects=True, since=datetime(2026, 11, 20, 9, 1, tzinfo=UTC), limit=1)
    assert ids(result.files) == [MAIN_ID]
    assert result.skipped == {"over_limit": 2, "too_old": 1}
    assert [(f.session_id, f.reason) for f in result.skipped_files] == [
        (CODEX_ID, "too_old"), (SUBDIR_ID, "over_limit"), (OTHER_ID, "over_limit")]


def test_scan_counts_other_projects(home) -> None:  # type: ignore[no-untyped-def]
    result = scan(project=home.project)
    assert result.skipped.get("other_project") == 1


def test_config_dir_env_vars(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg, cx = tmp_path / "cfg", tmp_path / "cx"
    home = install(cfg, cx, tmp_path / "p")
    # Nothing in ~/.claude or ~/.codex, so the default locations find nothing.
    assert discover(all_projects=True) == []
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(cfg))
    monkeypatch.setenv("CODEX_HOME", str(cx))
    assert ids(discover(project=home.project)) == [MAIN_ID, CODEX_ID, SUBDIR_ID]
    # Explicit dirs win over the environment.
    assert discover(all_projects=True, claude_dir=tmp_path / "none", codex_dir=tmp_path / "none") == []


def test_unreadable_entries_are_skipped_and_counted(home) -> None:  # type: ignore[no-untyped-def]
    pdir = home.files["main"].parent
    (pdir / "dangling.jsonl").symlink_to(pdir / "gone.jsonl")
    (pdir / "not-a-file.jsonl").mkdir()
    result = scan(project=home.project)
    assert ids(result.files) == [MAIN_ID, CODEX_ID, SUBDIR_ID]
    assert result.skipped.get("unreadable") == 1


def test_discovery_never_writes(home) -> None:  # type: ignore[no-untyped-def]
    def snapshot() -> dict[str, tuple[float, int]]:
        out = {}
        for root in (home.claude, home.codex):
            for dirpath, _, names in os.walk(root):
                for name in names:
                    st = (Path(dirpath) / name).stat()
                    out[os.path.join(dirpath, name)] = (st.st_mtime, st.st_size)
        return out

    before = snapshot()
    discover(all_projects=True)
    discover(project=home.project, limit=1)
    assert snapshot() == before


def test_head_reads_cwd_past_a_huge_first_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    big = '{"type":"summary","summary":"' + "x" * 200_000 + '"}\n'
    path.write_text(big + '{"type":"user","cwd":"/a/b","sessionId":"s1"}\n')
    head = read_head(path, "claude")
    assert head.cwd == "/a/b" and head.session_id == "s1"


def test_head_without_cwd(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"type":"summary","summary":"x"}\nnot json\n')
    assert read_head(path, "claude").cwd is None


def test_session_without_cwd_is_only_listed_for_all_projects(home, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    pdir = home.files["main"].parent
    (pdir / "5c0ffee0-0000-4000-8000-000000000005.jsonl").write_text('{"type":"summary","summary":"x"}\n')
    assert "5c0ffee0-0000-4000-8000-000000000005" not in ids(discover(project=home.project))
    assert "5c0ffee0-0000-4000-8000-000000000005" in ids(discover(all_projects=True))
    assert scan(project=home.project).skipped.get("no_cwd") == 1


NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "delta"),
    [("30d", timedelta(days=30)), ("12h", timedelta(hours=12)), ("2w", timedelta(weeks=2)),
     (" 7D ", timedelta(days=7))],
)
def test_parse_since_relative(text: str, delta: timedelta) -> None:
    assert parse_since(text, now=NOW) == NOW - delta


def test_parse_since_dates() -> None:
    day = parse_since("2026-11-01")
    assert day.tzinfo is not None
    assert (day.year, day.month, day.day, day.hour) == (2026, 11, 1, 0)
    assert parse_since("2026-11-01T10:00:00+00:00") == datetime(2026, 11, 1, 10, tzinfo=UTC)


@pytest.mark.parametrize("bad", ["", "30", "thirty days", "3y", "2026-13-01", "-5d"])
def test_parse_since_rejects_with_a_clear_message(bad: str) -> None:
    with pytest.raises(ValueError, match=r"--since .*30d, 12h or 2w.*2026-11-01"):
        parse_since(bad)
