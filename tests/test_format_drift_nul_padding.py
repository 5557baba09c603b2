"""Format drift: Claude Code lines a crash left NUL padding around (learn.transcripts.mend).

A crash during an append leaves zero-filled blocks the data never reached, and the
client's next append lands right after them (anthropics/claude-code #49876 on 2.1.111,
#76059 on 2.1.202, #81843: six of thirty bad lines in one machine's ~10,949 files). The
line then opens with a run of NULs, or a whole record is followed by kilobytes of them.
Claude Code's own reader skips the leading NULs; learn counted the line undecodable, and
the prompt typed right after the crash was lost. Fixtures written for this test.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from learn.cli import cli
from learn.transcripts.mend import mended
from learn.transcripts.parser import parse_buffer
from learn.transcripts.view.session import build_session

SID = "4b7e0c2a-5d1f-4e3a-9c8b-7a6f5e4d3c2b"
PROJECT = "/home/dev/orchard"


def _entry(uuid: str, parent: str | None, at: str, **fields: object) -> bytes:
    line = {"parentUuid": parent, "isSidechain": False, "userType": "external",
            "entrypoint": "cli", "cwd": PROJECT, "sessionId": SID, "version": "2.1.202",
            "gitBranch": "main", "uuid": uuid, "timestamp": at, **fields}
    return json.dumps(line).encode()


def _prompt(uuid: str, parent: str | None, at: str, text: str) -> bytes:
    return _entry(uuid, parent, at, type="user", promptSource="typed",
                  origin={"kind": "human"}, message={"role": "user", "content": text})


def _reply(uuid: str, parent: str, at: str, text: str) -> bytes:
    return _entry(uuid, parent, at, type="assistant", requestId="req_1",
                  message={"model": "claude-x", "id": f"msg_{uuid}", "role": "assistant",
                           "content": [{"type": "text", "text": text}]})


def _file() -> bytes:
    return b"\n".join([
        _prompt("u1", None, "2026-11-20T09:00:00.000Z", "sort the fruit list by season"),
        # The record a crash cut short: kilobytes of NULs after it on its line.
        _reply("a1", "u1", "2026-11-20T09:00:04.000Z", "Sorted.") + b"\x00" * 4096,
        # The next append, landed after a zero-filled block.
        b"\x00" * 700 + _prompt("u2", "a1", "2026-11-20T09:03:00.000Z",
                                "and keep apples before pears"),
        b"\x00" * 512,  # a block the crash extended the file by, nothing written into it
    ]) + b"\n"


def test_a_prompt_after_nul_padding_is_a_typed_turn_and_a_padded_record_is_read() -> None:
    transcript = parse_buffer(_file(), path=Path(f"/h/.claude/projects/-o/{SID}.jsonl"))
    session = build_session(transcript)
    assert [t.text for t in session.human_turns] == [
        "sort the fruit list by season", "and keep apples before pears"]
    assert session.id == SID and session.project == PROJECT
    # The padded reply is read too; only the line of padding alone is counted.
    assert transcript.skipped == {"undecodable": 1}


def test_only_the_padding_ends_are_read_past() -> None:
    assert mended(b"\x00\x00{\"a\": 1}") == b'{"a": 1}'
    assert mended(b"{\"a\": 1}\x00\x00") == b'{"a": 1}'
    assert mended(b"\x00" * 8) is None
    # Padding and a stray byte in one line: both mended.
    assert mended(b"\x00{\"a\": \"x\xff\"}") == '{"a": "x\ufffd"}'
    # Nothing to mend: the refusal stands.
    assert mended(b'{"a": 1') is None


def test_a_session_whose_first_line_is_padded_is_listed_with_its_project(
    tmp_path: Path,
) -> None:
    folder = Path.home() / ".claude" / "projects" / "-home-dev-orchard"
    folder.mkdir(parents=True)
    (folder / f"{SID}.jsonl").write_bytes(b"\x00" * 300 + _file())
    result = CliRunner().invoke(cli, ["sessions", "--json", "--all-projects"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)["sessions"]
    assert [(r["id"], r["project"], r["human_turns"]) for r in rows] == [(SID, PROJECT, 2)]
