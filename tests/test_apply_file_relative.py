"""`learn apply --file CLAUDE.md` as a person types it: a relative path is the file in the
current directory (it was refused as "a relative path" every time)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from test_report_digest import sample_result

from learn.commands.apply import command
from learn.report import runs


def test_a_relative_file_is_the_file_in_the_current_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / "src").mkdir()
    (project / "src" / "CLAUDE.md").write_text("# Src\n")
    result = sample_result()
    monkeypatch.setattr(runs, "_proposals", lambda since, project, every_state: result)
    recorded: list[str | None] = []
    monkeypatch.setattr(runs, "_recorder", lambda k, d, t, f, **kw: recorded.append(f))
    monkeypatch.chdir(project)

    for name in ("CLAUDE.md", "src/CLAUDE.md"):
        res = CliRunner().invoke(command, ["--project", str(project), "--file", name,
                                           "--only", "fix:pytest-needs-venv", "--yes"])
        assert res.exit_code == 0, res.output
        assert "Run tests with `.venv/bin/pytest`." in (project / name).read_text()
    assert recorded == [str((project / "CLAUDE.md").resolve()),
                        str((project / "src" / "CLAUDE.md").resolve())]
    assert (project / "src" / "CLAUDE.md").read_text().startswith("# Src\n\n<!-- learn:begin")
