"""Replay fingerprints: slash-command bodies must never read as typed turns."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from learn.textfold import fold
from learn.transcripts.view.replay import (
    REPLAY_FINGERPRINT_CHARS,
    is_replayed_turn,
    replay_fingerprints,
)
from learn.transcripts.view.replay_files import (
    load_templates,
    template_paths,
)

RUN_A = "Review the staged changes for correctness and naming."  # 53 chars
RUN_B = "Then write a short summary of every risk you found here."


def test_threshold_39_gives_none_40_gives_one() -> None:
    assert REPLAY_FINGERPRINT_CHARS == 40
    assert replay_fingerprints(["a" * 39]) == []
    assert replay_fingerprints(["a" * 40]) == ["a" * 40]
    # Measured after whitespace is collapsed: 39 letters padded with spaces is still 39.
    assert replay_fingerprints(["  " + "b" * 39 + " \n\n "]) == []


def test_normalizes_whitespace_and_case() -> None:
    [fp] = replay_fingerprints(["Review  THE\nstaged\t\tchanges for correctness, please now"])
    assert fp == "review the staged changes for correctness, please now"


def test_frontmatter_is_stripped() -> None:
    template = "---\ndescription: a long description that is over forty characters\n---\nshort body"
    assert replay_fingerprints([template]) == []
    template2 = "---\nname: x\n---\n" + RUN_A
    assert replay_fingerprints([template2]) == [RUN_A.casefold()]


def test_frontmatter_only_at_the_top() -> None:
    # A horizontal rule mid-body is not frontmatter.
    template = RUN_A + "\n---\n" + RUN_B
    fps = replay_fingerprints([template])
    assert len(fps) == 1 and RUN_A.casefold() in fps[0] and RUN_B.casefold() in fps[0]


@pytest.mark.parametrize(
    "placeholder",
    [
        "$ARGUMENTS",
        "$ARGUMENTS[0]",
        "$ARGUMENTS[12]",
        "$1",
        "$0",
        "$@",
        "${@:2}",
        "${@:2:3}",
        "$*",
        "${CLAUDE_SESSION_ID}",
        "${CLAUDE_PLUGIN_ROOT}",
        "${CLAUDE_PROJECT_DIR}",
        "!`git diff --staged`",
    ],
)
def test_every_placeholder_splits_runs(placeholder: str) -> None:
    fps = replay_fingerprints([f"{RUN_A} {placeholder} {RUN_B}"])
    assert fps == [RUN_A.casefold(), RUN_B.casefold()]
    # The substituted text is unknown, so the expansion still matches either run.
    expansion = f"{RUN_A} some argument the user passed {RUN_B}"
    assert is_replayed_turn(expansion, fps)


def test_more_than_one_run_per_template_and_short_runs_dropped() -> None:
    template = f"{RUN_A}\n$1\nshort bit\n$2\n{RUN_B}"
    assert replay_fingerprints([template]) == [RUN_A.casefold(), RUN_B.casefold()]


def test_file_refs_stay_literal() -> None:
    [fp] = replay_fingerprints([f"Read @docs/style.md and then {RUN_A}"])
    assert fp.startswith("read @docs/style.md and then")


def test_duplicates_across_templates_are_dropped() -> None:
    assert replay_fingerprints([RUN_A, RUN_A + " "]) == [RUN_A.casefold()]


def test_survives_markdown_rewrapping() -> None:
    fps = replay_fingerprints([
        "Review the staged changes for correctness\nand naming, and list the risks.\n"
    ])
    rewrapped = "review the staged changes\nfor correctness and naming,   and list\nthe risks."
    assert is_replayed_turn(rewrapped, fps)


def test_typed_turns_are_not_replays() -> None:
    fps = replay_fingerprints([RUN_A])
    assert not is_replayed_turn("please review my changes", fps)
    # A short turn never matches, even against a short fingerprint set.
    assert not is_replayed_turn(RUN_A[:39], [RUN_A[:39].casefold()])
    assert not is_replayed_turn(RUN_A, [])


def test_user_quoting_the_whole_template_is_treated_as_a_replay() -> None:
    fps = replay_fingerprints([RUN_A])
    assert is_replayed_turn("so: " + RUN_A + " ok?", fps)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_load_templates_reads_every_location(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = Path.home()
    project = tmp_path / "proj"
    (project / "sub").mkdir(parents=True)
    expected = {
        _write(home / ".claude/commands/pr.md", "user command"),
        _write(home / ".claude/commands/git/sync.md", "nested user command"),
        _write(home / ".claude/skills/fmt/SKILL.md", "user skill"),
        _write(project / ".claude/commands/deploy.md", "project command"),
        _write(project / ".claude/skills/db/SKILL.md", "project skill"),
        _write(home / ".claude/plugins/cache/mkt/plug/1.0/commands/ship.md", "plugin command"),
        _write(home / ".claude/plugins/marketplaces/m/plugins/p/skills/s/SKILL.md", "plugin skill"),
        _write(home / ".codex/prompts/tidy.md", "codex prompt"),
        # Plans the assistant wrote: a hand-off of one replays it (issue 10, item 10).
        _write(home / ".claude/plans/cache-layer.md", "saved plan"),
    }
    # Not templates: a skill's other files, macOS forks, node_modules.
    _write(home / ".claude/skills/fmt/reference.md", "nope")
    _write(home / ".claude/commands/._pr.md", "nope")
    _write(home / ".claude/plugins/x/node_modules/y/commands/z.md", "nope")
    found = set(template_paths(project / "sub"))
    assert found == expected
    assert sorted(load_templates(project)) == sorted(p.read_text() for p in expected)


def test_load_templates_honours_config_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(Path.home() / ".claude/commands/default.md", "default location")
    cfg = tmp_path / "cfg"
    codex = tmp_path / "cx"
    _write(cfg / "commands/a.md", "from CLAUDE_CONFIG_DIR")
    _write(codex / "prompts/b.md", "from CODEX_HOME")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(cfg))
    monkeypatch.setenv("CODEX_HOME", str(codex))
    assert sorted(load_templates(None)) == ["from CLAUDE_CONFIG_DIR", "from CODEX_HOME"]


def test_load_templates_without_any_dirs() -> None:
    assert load_templates(None) == []
    assert load_templates(Path("/nonexistent/project")) == []


# The anchor index must agree with the obvious definition on every input.

_ALPHABET = st.sampled_from("ab \n")


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.text(_ALPHABET, min_size=40, max_size=70), min_size=1, max_size=4),
    st.text(_ALPHABET, max_size=300),
    st.integers(min_value=0, max_value=3),
    st.integers(min_value=0, max_value=300),
)
def test_index_agrees_with_naive_search(templates: list[str], noise: str, pick: int, at: int) -> None:
    fps = replay_fingerprints(templates)
    # Half the time, embed a fingerprint somewhere inside the noise.
    text = noise
    if fps and pick % 2 == 0:
        fp = fps[pick % len(fps)]
        text = noise[:at] + " " + fp + " " + noise[at:]
    n = fold(text)
    naive = len(n) >= 40 and any(fp in n for fp in fps)
    assert is_replayed_turn(text, fps) == naive


def test_empty_fingerprint_never_matches() -> None:
    assert not is_replayed_turn("x" * 100, [""])


def test_fingerprint_cache_merges_user_and_project(tmp_path: Path) -> None:
    from learn.transcripts.view.replay_files import (
        FingerprintCache,
    )

    _write(Path.home() / ".claude/commands/a.md", RUN_A)
    project = tmp_path / "p"
    _write(project / ".claude/commands/b.md", RUN_B + "\n$ARGUMENTS\n" + RUN_A)
    cache = FingerprintCache()
    assert cache.for_project(None) == [RUN_A.casefold()]
    assert cache.for_project(str(project)) == [RUN_A.casefold(), RUN_B.casefold()]
    assert cache.for_project(str(tmp_path / "other")) == [RUN_A.casefold()]
    # Read once: a template written later is not seen by the same cache.
    _write(Path.home() / ".claude/commands/c.md", "c" * 50)
    assert cache.for_project(None) == [RUN_A.casefold()]


def test_named_placeholders_and_blank_lines_split_fingerprints() -> None:
    first = "Open the ticket given here and read every comment on it before coding"
    second = "Then open a pull request that links the ticket and names the reviewer"
    fps = replay_fingerprints([f"{first} $TICKET.\n\n{second}."])
    assert fps == [fold(first), fold(second) + "."]
    assert "$ticket" not in " ".join(fps)
