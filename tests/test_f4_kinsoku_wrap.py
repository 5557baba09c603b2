"""Wrapping for the terminal keeps closing marks off a line's start and opening marks off
its end (learn.report.wrap), in the digest and in `learn show`."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from itertools import pairwise
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len

from evals.builder import CodexSession, session_id
from learn.report.wrap import NO_END, NO_START, _may_break, break_ranges, wrap_markdown

REPO = Path(__file__).resolve().parents[1]
JAPANESE = ("テストを実行してください。失敗したら、原因を調べて（ログも見て）報告してください。"
            "「完了」と言ってから、次へ進んでください！よろしくお願いします。")
CHINESE = "请先运行测试，再提交代码。不要直接推送到主分支（除非是紧急修复）！谢谢。"


def _check(lines: list[str], width: int) -> None:
    for n, line in enumerate(lines):
        assert line[:1] not in NO_START or n == 0, lines
        assert line[-1:] not in NO_END or n == len(lines) - 1, lines
        assert cell_len(line) <= width, lines


def test_no_line_starts_with_a_closing_mark_at_any_width() -> None:
    for text in (JAPANESE, CHINESE, f"use uv: {JAPANESE} then {CHINESE}"):
        for width in range(6, 60):
            lines = [text[a:b] for a, b in break_ranges(text, width)]
            _check(lines, width)
            assert "".join(lines).replace(" ", "") == text.replace(" ", "")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(list("テスト実行原因報告ab c") + list("。、）」』】〕！？（「『【〔")),
                min_size=1, max_size=80),
       st.integers(min_value=4, max_value=40))
def test_marks_stay_on_their_side_of_every_break(chars: list[str], width: int) -> None:
    text = "".join(chars).strip(" ") or "テ"
    ranges = break_ranges(text, width)
    lines = [text[a:b] for a, b in ranges]
    widths = [cell_len(c) for c in text]
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    allowed = [at for at in range(1, len(text)) if _may_break(text, widths, at)]
    for (begin, end), (start, _) in pairwise(ranges):
        assert cell_len(text[begin:end]) <= width
        # A break only where the rule allows one, but in a run with no break allowed that
        # is wider than a line: folded there, as it must be somewhere.
        if text[start] in NO_START or text[end - 1] in NO_END:
            left = max([0, *(at for at in allowed if at < start)])
            right = min([len(text), *(at for at in allowed if at > start)])
            assert cell_len(text[left:right].strip(" ")) > width, (text, lines)


def test_a_digest_line_holding_japanese_wraps_by_the_rule() -> None:
    line = f"- **use-uv** — \"{JAPANESE}\""
    lines = wrap_markdown(line, 40).splitlines()
    assert len(lines) > 2
    assert all(cell_len(x) <= 40 for x in lines)
    assert all(x.startswith("  ") and x.strip()[:1] not in NO_START for x in lines[1:]), lines
    assert all(x[-1:] not in NO_END for x in lines[:-1]), lines
    # An ASCII line wraps as it always did.
    plain = "- " + "word " * 30
    assert wrap_markdown(plain, 40).splitlines()[1].startswith("  word")


def test_learn_show_starts_no_line_with_a_closing_mark(tmp_path: Path) -> None:
    home = tmp_path / "home"
    project = home / "code" / "app"
    project.mkdir(parents=True)
    s = CodexSession(session_id("cjk"), str(project), datetime(2026, 11, 20, 9, tzinfo=UTC))
    s.user(JAPANESE)
    s.shell("pytest", "ok")
    s.user(CHINESE)
    s.write(home / ".codex")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
    env.update(HOME=str(home), LEARN_DATA_DIR=str(tmp_path / "data"),
               LEARN_CACHE_DIR=str(tmp_path / "cache"), LEARN_CONFIG_DIR=str(tmp_path / "config"),
               PYTHONPATH=str(REPO))
    for width in (24, 29, 30, 31, 33, 37, 41):
        shown = subprocess.run([sys.executable, "-m", "learn", "show", session_id("cjk")],
                               env={**env, "COLUMNS": str(width)}, capture_output=True,
                               text=True, timeout=60, cwd=project)
        assert shown.returncode == 0, shown.stderr
        body = shown.stdout[shown.stdout.index("─"):].splitlines()[1:]
        assert any("。" in line for line in body)
        for line in body:
            assert line[:1] not in NO_START, (width, body)
            assert line[-1:] not in NO_END, (width, body)
            assert cell_len(line) <= width, (width, body)
