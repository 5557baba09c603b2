"""A `Screen` is rich's Console as `learn show` made it: the same width, the same
colours, the same bytes for a styled line, a line of markup and a rule.

`learn show` prints without importing rich (learn.report.screen); what it prints
must be what `Console(file=sys.stdout, highlight=False)` printed, whatever the
environment says about the terminal. Each case sets up both from the same
environment and prints the same thing through each.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich._emoji_codes import EMOJI
from rich._unicode_data._versions import VERSIONS
from rich.cells import get_character_cell_size
from rich.console import Console
from rich.markup import escape as rich_escape
from rich.style import Style

from learn.report import screen as screen_module
from learn.report.screen import Screen, escape, narrow
from learn.report.styled_print import _LETTERLESS_EMOJI, print_markup, print_rule

_ENV_NAMES = ("COLUMNS", "LINES", "FORCE_COLOR", "NO_COLOR", "TERM", "COLORTERM", "TTY_COMPATIBLE",
              "TTY_INTERACTIVE", "UNICODE_VERSION")
_ENVS = [
    {},
    {"COLUMNS": "33"},
    {"COLUMNS": "0"},
    {"COLUMNS": "abc"},
    {"COLUMNS": "100", "FORCE_COLOR": "1", "TERM": "xterm-256color"},
    {"COLUMNS": "57", "FORCE_COLOR": "1", "COLORTERM": "truecolor"},
    {"FORCE_COLOR": "1", "TERM": "xterm-kitty"},
    {"FORCE_COLOR": "1", "TERM": "xterm-16color", "COLORTERM": "24bit"},
    {"FORCE_COLOR": "1", "NO_COLOR": "1"},
    {"FORCE_COLOR": "1", "NO_COLOR": ""},
    {"FORCE_COLOR": ""},
    {"FORCE_COLOR": "1", "TERM": "dumb"},
    {"FORCE_COLOR": "1", "TERM": "UNKNOWN", "COLUMNS": "50"},
    {"FORCE_COLOR": "1", "TERM": "dumb", "COLUMNS": "50", "LINES": "20"},
    {"TTY_COMPATIBLE": "0", "FORCE_COLOR": "1"},
    {"COLUMNS": "120", "TTY_COMPATIBLE": "1", "TTY_INTERACTIVE": "1"},
]


@pytest.fixture(params=_ENVS, ids=lambda env: ",".join(f"{k}={v}" for k, v in env.items()) or "bare")
def environment(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    for name in _ENV_NAMES:
        monkeypatch.delenv(name, raising=False)
    env: dict[str, str] = request.param
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return env


def _both() -> tuple[tuple[Screen, io.StringIO], tuple[Console, io.StringIO]]:
    mine, theirs = io.StringIO(), io.StringIO()
    return (Screen.of(mine), mine), (Console(file=theirs, highlight=False), theirs)


def test_a_screen_is_as_wide_and_as_coloured_as_rich_sets_itself_up(environment: dict[str, str]) -> None:
    (screen, _), (console, _) = _both()
    assert screen.width == console.width
    assert screen.colour_system == console.color_system
    assert screen.no_color == (console.no_color and console.color_system is not None)


_MARKUP = [
    "[bold]claude session 5dc8fcc3-0f69[/bold]",
    "project: /home/someone/src/project",
    "project: " + "/very/long/path" * 12,
    "when:    2026-01-01T09:00+00:00 → 2026-01-01T10:05-05:00",
    "turns 12 · human 3 (2 typed, 1 pasted) · tool calls 40 · failures 2 · denials 0 · interrupts 1"
    " · skipped lines 3 (2 bad json, 1 unknown type)",
    "[yellow]A program started this session: none of it counts as typed by you "
    "(learn show --include-programmatic shows what would).[/yellow]",
    f"project: {escape('/p/[bold]x[/bold]')}",
    f"project: {escape('C:' + chr(92) + 'dir' + chr(92))}",
    "project: /p/:thumbs_up:/x",
    "project: /p/:100: and :+1: and :00+00:",
    "project: /p/with\ttab",
    "project: 中文 path " * 8,
    "[bold cyan]two[/bold cyan]",
    "[bold]unclosed",
    "trailing spaces" + " " * 120,
    "",
]


@pytest.mark.parametrize("soft_wrap", [False, True])
def test_a_line_of_markup_prints_as_rich_prints_it(environment: dict[str, str], soft_wrap: bool) -> None:
    (screen, mine), (console, theirs) = _both()
    for markup in _MARKUP:
        print_markup(screen, markup, soft_wrap=soft_wrap)
        console.print(markup, soft_wrap=soft_wrap)
    assert mine.getvalue() == theirs.getvalue()


def test_a_rule_prints_as_rich_prints_it(environment: dict[str, str]) -> None:
    (screen, mine), (console, theirs) = _both()
    print_rule(screen)
    console.rule()
    assert mine.getvalue() == theirs.getvalue()


def test_a_rule_in_an_encoding_without_box_drawing_fails_as_richs(monkeypatch: pytest.MonkeyPatch) -> None:
    """rich draws an untitled rule in "─" whatever the encoding: the same error, said the same way."""
    for name in _ENV_NAMES:
        monkeypatch.delenv(name, raising=False)
    errors = []
    with pytest.raises(UnicodeEncodeError) as raised:
        print_rule(Screen.of(io.TextIOWrapper(io.BytesIO(), encoding="latin-1")))
    errors.append(str(raised.value))
    with pytest.raises(UnicodeEncodeError) as raised:
        Console(file=io.TextIOWrapper(io.BytesIO(), encoding="latin-1"), highlight=False).rule()
    errors.append(str(raised.value))
    assert errors[0] == errors[1]
    assert "PYTHONIOENCODING=utf-8" in errors[0]


_WORDS = ["bold", "dim", "italic", "underline", "blink", "blink2", "reverse", "conceal", "strike",
          "black", "red", "green", "yellow", "blue", "magenta", "cyan", "white", "bright_black",
          "bright_red", "bright_green", "bright_yellow", "bright_blue", "bright_magenta", "bright_cyan",
          "bright_white"]


@pytest.mark.parametrize("system", ["standard", "256", "truecolor"])
@pytest.mark.parametrize("no_color", [False, True])
@pytest.mark.parametrize("style", [*_WORDS, "bold cyan", "cyan bold", "dim red", "bold italic yellow",
                                   "rule.line", "red bold dim", "", "bold red on white", "#ff8800",
                                   "repr.number", "bold bold", "red green", "not a style"])
def test_a_style_paints_as_rich_paints_it(system: str, no_color: bool, style: str) -> None:
    console = Console(file=io.StringIO(), color_system=system, force_terminal=True,  # type: ignore[arg-type]
                      no_color=no_color, highlight=False, legacy_windows=False)
    screen = Screen(io.StringIO(), width=80, colour_system=system, no_color=no_color,
                    rich_args={"file": io.StringIO(), "color_system": system, "force_terminal": True,
                               "no_color": no_color, "highlight": False, "legacy_windows": False})
    resolved = console.get_style(style, default=Style.null())
    if no_color:
        resolved = resolved.without_color
    for text in ("text", ""):
        expected = resolved.render(text, color_system=console._color_system) if resolved else text
        assert screen.paint(text, style) == expected


def test_no_colour_system_paints_nothing() -> None:
    screen = Screen(io.StringIO(), width=80, colour_system=None)
    assert screen.paint("text", "bold red") == "text"


def test_what_is_measured_narrow_is_one_cell_in_every_unicode_version_rich_knows() -> None:
    narrows = [chr(c) for lo, hi in screen_module._NARROW_RANGES for c in range(lo, hi + 1)
               if narrow(chr(c))]
    assert len(narrows) > 2000
    for version in VERSIONS:
        assert {c for c in narrows if get_character_cell_size.__wrapped__(c, version) != 1} == set()
    assert all(narrow(c) for c in "→…✗⊘⏎·─é")
    assert not any(narrow(c) for c in "中👍\u0301\u200b\u200d\ufe0f\u231a\u2705")


def test_every_emoji_code_rich_knows_is_read_by_rich() -> None:
    """A line with `:name:` goes to rich when the name could be one of its emoji: any
    name with a letter, and the few without one."""
    assert {name for name in EMOJI if not any(c.isalpha() for c in name)} == _LETTERLESS_EMOJI


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab[]/\\#@ :x")), max_size=20))
def test_escape_is_richs(text: str) -> None:
    assert escape(text) == rich_escape(text)


def test_learn_show_imports_no_rich() -> None:
    """The whole of `learn show`'s printing, header to body, in a process of its own."""
    program = (
        "import sys\n"
        "from datetime import UTC, datetime\n"
        "from pathlib import Path\n"
        "from learn.commands import show\n"
        "from learn.transcripts.view.model import HumanTurn, Session, ToolCall, ToolFailure\n"
        "at = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)\n"
        "turn = HumanTurn('fix the parser → now … ' * 9, 'typed', at, 0)\n"
        "call = ToolCall('c1', 'Bash', 'pytest -x', {}, at, 1)\n"
        "failure = ToolFailure('c1', 'Bash', 'E   assert 1 == 2', at, 2)\n"
        "session = Session(id='s1', provider='claude', path=Path('/p/s1.jsonl'), project='/p', started_at=at,\n"
        "                  last_activity=at, timeline=(turn, call, failure), human_turns=(turn,),\n"
        "                  tool_calls=(call,), failures=(failure,), denials=(), interrupts=(), turns=3)\n"
        "show._print(session, show.SHOW_CHARS)\n"
        "assert not [m for m in sys.modules if m == 'rich' or m.startswith('rich.')], 'rich imported'\n"
    )
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root), "COLUMNS": "60", "FORCE_COLOR": "1", "TERM": "xterm"}
    done = subprocess.run([sys.executable, "-c", program], cwd=root, env=env, capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "\x1b[1;36mYOU:\x1b[0m" in done.stdout
