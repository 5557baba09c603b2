"""Format drift: a spliced FIRST line, read by the listing and by the one-line API
(learn.transcripts.files.heads, learn.transcripts.claude.decode, 5).

A crash mid-append (or two writers at once) leaves a record cut mid-content with the next
whole record right after it on one line (anthropics/claude-code #81843). The file loop
read the whole record since the format-drift audit; the listing's head reader did not: it
skipped the line and, finding no cwd in another whole line, took the first `"cwd"` its
regex met, the cut record's, where the cut fell inside the path. The session was listed
under a folder that does not exist, in no project. `decode_line` refused the line too.
One function (`unspliced`) decides for all of them. Fixtures written for this test.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from learn.cli import cli
from learn.transcripts.claude.decode import SKIP_UNDECODABLE, decode_line
from learn.transcripts.claude.wire import UserW
from learn.transcripts.files.heads import read_head

SID = "5b4a3928-1706-4f5e-a4d3-c2b1a0f9e8d7"


def _entry(cwd: str, uuid: str, parent: str | None, at: str, **fields: object) -> bytes:
    line = {"parentUuid": parent, "isSidechain": False, "userType": "external",
            "cwd": cwd, "sessionId": SID, "version": "2.1.190", "gitBranch": "main",
            "uuid": uuid, "timestamp": at, **fields}
    return json.dumps(line, separators=(",", ":")).encode()


def _prompt(cwd: str, uuid: str, parent: str | None, at: str, text: str) -> bytes:
    return _entry(cwd, uuid, parent, at, type="user", message={"role": "user", "content": text})


def _reply(cwd: str, uuid: str, parent: str, at: str, text: str) -> bytes:
    return _entry(cwd, uuid, parent, at, type="assistant",
                  message={"model": "claude-x", "id": f"msg_{uuid}", "role": "assistant",
                           "content": [{"type": "text", "text": text}]})


def _spliced_first_line(cwd: str) -> bytes:
    """The first record cut by a crash inside its cwd, the prompt appended right after it."""
    cut = _prompt(cwd, "u0", None, "2026-11-22T08:00:00.000Z", "set up the kiln service")
    cut = cut[: cut.index(b'"cwd":"') + len(b'"cwd":"') + len(cwd) - 3]
    return cut + _prompt(cwd, "u1", None, "2026-11-22T08:01:00.000Z",
                         "keep the kiln config in toml, not yaml")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for var, sub in (("CLAUDE_CONFIG_DIR", "claude"), ("CODEX_HOME", "codex"),
                     ("LEARN_DATA_DIR", "data"), ("LEARN_CACHE_DIR", "cache"),
                     ("LEARN_CONFIG_DIR", "config")):
        (tmp_path / sub).mkdir()
        monkeypatch.setenv(var, str(tmp_path / sub))
    project = tmp_path / "work" / "kiln"
    project.mkdir(parents=True)
    monkeypatch.chdir(project)
    return project


def _write(project: Path, *lines: bytes) -> Path:
    folder = (Path(str(project.parent.parent / "claude")) / "projects"
              / str(project).replace("/", "-"))
    folder.mkdir(parents=True)
    path = folder / f"{SID}.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


# The session holds the spliced line alone (the client crashed again), or its next line
# is a reply too long for the head window (a file pasted whole): either way no other
# whole line within the window names the cwd.
_AFTER = {"alone": (), "long_reply": ("x" * (1024 * 1024 + 4096),)}


@pytest.mark.parametrize("after", sorted(_AFTER))
def test_a_session_whose_first_line_is_spliced_is_listed_under_its_project(
    home: Path, after: str
) -> None:
    cwd = str(home)
    lines = [_spliced_first_line(cwd)]
    lines += [_reply(cwd, "a1", "u1", "2026-11-22T08:01:30.000Z", text) for text in _AFTER[after]]
    path = _write(home, *lines)
    result = CliRunner().invoke(cli, ["sessions", "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)["sessions"]
    assert [(r["id"], r["human_turns"]) for r in rows] == [(SID, 1)]
    head = read_head(path, "claude")
    assert (head.cwd, head.session_id, head.branch) == (cwd, SID, "main")


def test_decode_line_reads_the_whole_record_after_a_cut_one() -> None:
    line = _spliced_first_line("/srv/kiln")
    wire = decode_line(line)
    assert type(wire) is UserW and wire.uuid == "u1"
    assert decode_line(line.decode()) == wire
    # Two whole records: the first one; a cut record alone stays refused.
    both = _prompt("/srv/kiln", "u1", None, "2026-11-22T08:01:00.000Z", "one") + _prompt(
        "/srv/kiln", "u2", "u1", "2026-11-22T08:02:00.000Z", "two")
    first = decode_line(both)
    assert type(first) is UserW and first.uuid == "u1"
    assert decode_line(line[:120]) == SKIP_UNDECODABLE
