"""A headless session's later messages in an envelope of no client's tag are a program's,
left unread (learn.transcripts.view.exclusions.is_program_envelope); everything a person
could have typed there is still read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from fixtures.fidelity.writers import Chain, claude_path, set_entrypoint

from learn.cli import cli
from learn.transcripts.parser import parse
from learn.transcripts.view.exclusions import is_program_envelope
from learn.transcripts.view.session import build_session

WATCHER = "/srv/watcher"
OPENING = ("You are a background note-taker attached to another coding session. You never "
           "talk to the person and never use tools. For every tool call you are shown, decide "
           "whether it taught something worth keeping: a decision, a constraint, a fix and its "
           "cause. Write one <note> naming the files involved, or <skip/> when nothing was "
           "learned. Do not repeat notes you already wrote in this session.")
ASKED = "why does the nightly build fail on the quartzite fixture?"


def _observation(n: int) -> str:
    return (f"<tool_seen>\n  <name>Bash</name>\n  <input>pytest -k case_{n}</input>\n"
            f"  <output>collected {n} items; the quartzite fixture failed</output>\n</tool_seen>\n\n"
            "Write a <note> if this taught something, else <skip/>.")


def _texts(tmp_path: Path, later: list[str], entrypoint: str = "sdk-cli",
           opening: str = OPENING) -> list[str]:
    c = Chain("11111111-2222-4333-8444-555555555555", cwd=WATCHER)
    c.user(opening, parent=False)
    c.assistant("<skip/>")
    for text in later:
        c.user(text)
        c.assistant("<skip/>")
    set_entrypoint(c.lines, entrypoint)
    path = c.write(claude_path(tmp_path, "11111111-2222-4333-8444-555555555555", WATCHER))
    return [t.text for t in build_session(parse(path)).human_turns]


@pytest.mark.parametrize(("text", "program"), [
    ("<tool_seen>\n<name>Read</name>\n</tool_seen>", True),
    ('  <observation kind="edit">\nchanged two lines\n</observation>\n', True),
    # The real plugin's shape: the envelope, then its instructions after it.
    ("<observed_from_primary_session>\n  <what_happened>Bash</what_happened>\n"
     "</observed_from_primary_session>\n\nReturn one or more <observation> blocks.", True),
    ("<note>keep this</note> and also run the linter before you commit", False),
    ("<note>\nkeep this", True),
    ("<tool_seen><name>Read</name></tool_seen>", False),
    ("run the linter <b>before</b> you commit", False),
    ("<bash-input>\ngit status\n</bash-input>", False),
    ("<command-name>\n/review\n</command-name>", False),
    ("<system-reminder>\ncontext\n</system-reminder>", False),
    ("<ide_selection>\nx\n</ide_selection>", False),
    ("<user_instructions>\nbe brief\n</user_instructions>", False),
])
def test_an_envelope_is_a_first_line_holding_one_tag_of_no_clients(text: str,
                                                                   program: bool) -> None:
    assert is_program_envelope(text) is program


def test_a_headless_sessions_later_elements_are_not_read(tmp_path: Path) -> None:
    texts = _texts(tmp_path, [_observation(n) for n in range(4)])
    assert texts == [OPENING]


def test_a_reply_typed_in_a_headless_session_is_still_read(tmp_path: Path) -> None:
    reply = "stop writing notes about the fixtures, they change every day"
    texts = _texts(tmp_path, [_observation(1), reply, _observation(2)])
    assert texts == [OPENING, reply]


def test_an_interactive_sessions_elements_are_read(tmp_path: Path) -> None:
    texts = _texts(tmp_path, [_observation(1)], entrypoint="cli")
    assert texts == [OPENING, _observation(1)]


def test_an_app_relaying_a_persons_short_request_is_read_whole(tmp_path: Path) -> None:
    # A headless client opened by a short request: an app built on the SDK, whose
    # person's later words may come inside its own envelope.
    texts = _texts(tmp_path, [_observation(1)], opening=ASKED)
    assert texts == [ASKED, _observation(1)]


def test_an_opening_envelope_is_read(tmp_path: Path) -> None:
    opening = _observation(7) + "\n" + OPENING
    texts = _texts(tmp_path, [_observation(8)], opening=opening)
    assert texts == [opening]


def test_a_listing_stores_nothing_of_a_plugins_envelopes(tmp_path: Path) -> None:
    """Through the CLI: the observers are listed as a program's and counted as before,
    and no byte of what their envelopes carried is on disk in learn's data."""
    home = Path.home()
    for n in range(4):
        sid = f"3111111{n}-2222-4333-8444-555555555555"
        c = Chain(sid, cwd=WATCHER)
        c.user(OPENING, parent=False)
        c.assistant("<skip/>")
        for k in range(3):
            c.user(_observation(10 * n + k))
            c.assistant("<skip/>")
        set_entrypoint(c.lines, "sdk-cli")
        c.write(claude_path(home, sid, WATCHER))
    result = CliRunner().invoke(cli, ["sessions", "--all-projects", "--json"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)["sessions"]
    assert len(rows) == 4
    assert {r["origin"] for r in rows} == {"programmatic"}
    assert all(r["turns"] == 8 for r in rows)
    data = [p for p in home.rglob("*") if p.is_file() and ".claude" not in p.parts]
    assert data, "the listing stored nothing at all"
    assert not any(b"quartzite" in p.read_bytes() for p in data)
    # The openings were read and stored (redacted) as before.
    assert any(b"background note-taker" in p.read_bytes() for p in data)
