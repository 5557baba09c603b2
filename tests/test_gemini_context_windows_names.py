"""On Windows, a Gemini context file name Windows does not keep as spelled is left out
by the planner, with why, by the same rule the writer asks (learn.windows_names).

Gemini's context file name comes from the person's settings (`context.fileName`). A
name like `AUX.md` (a DOS device in every folder) or `why?.md` (no file's name) was
planned as Gemini's file on Windows and only refused when written: every `learn apply`
there exited 1. Modelled as tests/test_confine_windows.py models Windows: its names
flag (`learn.windows_names.WINDOWS`) is turned on; the names are the same strings.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_apply_gemini_project_names import KEY, _gets_nothing, apply, shop, users

from learn import windows_names
from learn.reduce.agent_files import (
    gemini_context,
    gemini_context_refusal,
    gemini_writable_names,
)
from learn.report.edits import has_marker

# Names every other rule of gemini_context_refusal lets through: bare *.md names.
NOT_KEPT = ["AUX.md", "aux.md", "com1.md", "CON.md", "nul .md", "conin$.md", "why?.md",
            "a*b.md", "a|b.md", 'a"b.md', "a<b>.md"]


@pytest.fixture
def windows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(windows_names, "WINDOWS", True)


@pytest.mark.parametrize("name", NOT_KEPT)
def test_a_context_name_windows_does_not_keep_is_refused_there_with_windows_own_reason(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert gemini_context_refusal(name) is None  # a file of its own name on POSIX, as before
    monkeypatch.setattr(windows_names, "WINDOWS", True)
    why = windows_names.name_refusal(name)
    assert why is not None  # the one rule, asked by the planner as by the writer
    assert gemini_context_refusal(name) == f"not a name Windows keeps ({why})"


@pytest.mark.parametrize("name", ["CONTEXT.md", "my-aux.md", "auxiliary.md", "com10.md",
                                  "GEMINI.md", "AGENTS.md", "CLAUDE.md"])
def test_a_context_name_windows_keeps_is_written_there(name: str, windows: None) -> None:
    assert gemini_context_refusal(name) is None


def test_the_planner_skips_a_device_name_for_the_next_one_on_windows(
        tmp_path: Path, windows: None) -> None:
    home, root = tmp_path / "home", tmp_path / "p"
    (root / ".git").mkdir(parents=True)
    users(tmp_path, ["AUX.md", "CONTEXT.md"])
    assert gemini_writable_names(root, home) == ("CONTEXT.md",)
    assert gemini_context(root, home).name == "CONTEXT.md"
    users(tmp_path, "AUX.md")
    found = gemini_context(root, home)
    assert found.name is None
    assert "`AUX.md` is not a name Windows keeps" in found.why and "device AUX" in found.why
    assert "one Windows keeps as spelled" in found.why and "\n" not in found.why


def test_the_same_settings_on_posix_plan_the_name_as_before(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "p"
    (root / ".git").mkdir(parents=True)
    users(tmp_path, ["AUX.md", "CONTEXT.md"])
    assert gemini_writable_names(root, home) == ("AUX.md", "CONTEXT.md")
    assert gemini_context(root, home).name == "AUX.md"


@pytest.mark.parametrize(("name", "said"), [("AUX.md", "device AUX"), ("why?.md", "holds '?'")])
def test_apply_on_windows_writes_the_other_agents_and_says_why_gemini_gets_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, said: str) -> None:
    # Before: Gemini's file was planned as `AUX.md`, the writer refused it, apply exited 1
    # and nobody got the rule.
    root = shop(tmp_path, monkeypatch, None)
    users(tmp_path, name)
    monkeypatch.setattr(windows_names, "WINDOWS", True)
    done = apply(root, "--yes")
    assert done.exit_code == 0, done.output
    assert "refused" not in done.output
    [note] = _gets_nothing(done)
    assert f"`{name}` is not a name Windows keeps" in note and said in note, note
    assert has_marker((root / "CLAUDE.md").read_text(), KEY)
    assert not (root / name).exists()
