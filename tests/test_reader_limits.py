"""Lines that break the reader: each is skipped or cut and counted, never a crash, and
every command goes on with the other sessions in bounded memory.

A home with five sessions, as a user's real history can hold them: one line nested
1,100 levels deep (past the decoder's recursion limit), values nested 900 levels deep
inside lines that are kept (tool inputs, results, attachments, Codex arguments), a
400 KB `.jsonl.zst` that inflates to gigabytes, and one invalid UTF-8 byte inside a
typed prompt. `learn sessions`, `learn run --offline` and `learn show` run on it as a
user runs them, each in a process whose peak memory (and its children's) is measured.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import zstandard
from fixtures.fidelity.writers import Chain, Rollout, claude_path, set_entrypoint

REPO = Path(__file__).resolve().parents[1]
GOOD = "00000001-good-4000-8000-000000000001"
DEEP = "00000002-deep-4000-8000-000000000002"
BYTE = "00000003-byte-4000-8000-000000000003"
VALUES = "0199aaaa-0031-7000-8000-000000000004"
BOMB = "0199aaaa-0031-7000-8000-000000000005"
MEMORY_LIMIT_MB = 500


NEST = "@@nested-900@@"  # written as a string, replaced by the nested JSON in the file


def _nested_json(depth: int) -> str:
    """A JSON value nested `depth` levels (lists and objects in turn), built as text: the
    json module would need the recursion limit raised, for the whole test process."""
    opens = "".join("[" if i % 2 == 0 else '{"k":' for i in range(depth))
    closes = "".join("]" if i % 2 == 0 else "}" for i in reversed(range(depth)))
    return opens + '"leaf"' + closes


def _nest_in_place(path: Path) -> None:
    nested = _nested_json(900)
    text = path.read_text().replace(json.dumps(NEST), nested)
    # ...and inside a JSON string (a Codex call's arguments), escaped.
    path.write_text(text.replace(json.dumps(json.dumps(NEST))[1:-1], nested.replace('"', '\\"')))


def _install(root: Path) -> tuple[Path, Path]:
    home, project = root / "home", root / "shop"
    project.mkdir(parents=True)
    cwd = str(project)
    good = Chain(GOOD, cwd=cwd)
    good.user("use pnpm, never npm", parent=False)
    good.assistant("Switched to pnpm.")
    set_entrypoint(good.lines, "cli")
    good.write(claude_path(home, GOOD, cwd))

    deep = Chain(DEEP, cwd=cwd)
    deep.user("keep the public api stable", parent=False)
    deep.tool("toolu_d1", "Bash", {"command": NEST, "description": NEST})
    deep.result("toolu_d1", "ok", toolUseResult=NEST)
    deep.tool("toolu_d2", "mcp__store__put", {"payload": NEST})
    deep.result("toolu_d2", "refused", is_error=True)
    deep.raw({"type": "attachment", "uuid": "att-1", "timestamp": "2026-11-20T09:30:00Z",
              "sessionId": DEEP, "cwd": cwd, "attachment": {"type": "opaque", "v": NEST}})
    deep.assistant("Kept it stable.")
    set_entrypoint(deep.lines, "cli")
    path = deep.write(claude_path(home, DEEP, cwd))
    _nest_in_place(path)
    too_deep = ('{"type":"user","uuid":"u-deep","timestamp":"2026-11-20T09:40:00Z","sessionId":"'
                + DEEP + '","message":{"role":"user","content":' + "[" * 1100 + "]" * 1100 + "}}")
    with path.open("a") as fh:
        fh.write(too_deep + "\n")

    byte = Chain(BYTE, cwd=cwd)
    byte.user("the café menu BADBYTE must show prices in euros", parent=False)
    byte.assistant("Prices are in euros now.")
    set_entrypoint(byte.lines, "cli")
    path = byte.write(claude_path(home, BYTE, cwd))
    path.write_bytes(path.read_bytes().replace(b"BADBYTE", b"\xff"))

    values = Rollout(VALUES, cwd=cwd)
    values.user("codex: the retry budget is three attempts, not five")
    values.add("response_item", {"type": "function_call", "name": "shell", "call_id": "c1",
                                 "arguments": json.dumps({"command": ["bash", "-lc", "ls"],
                                                          "x": NEST})})
    values.add("event_msg", {"type": "unmodelled_event", "v": NEST})
    values.agent("Three attempts.")
    _nest_in_place(values.write(values.path(home)))

    _bomb(home, cwd)
    return home, project


def _bomb(home: Path, cwd: str) -> Path:
    """400 KB on disk that inflates to ~27 GB: frames of one long valid line repeated."""
    meta = {"timestamp": "2026-11-20T09:00:00Z", "type": "session_meta",
            "payload": {"id": BOMB, "timestamp": "2026-11-20T09:00:00Z", "cwd": cwd,
                        "originator": "codex_cli_rs", "cli_version": "0.55.0", "source": "cli"}}
    line = json.dumps({"timestamp": "2026-11-20T09:01:00Z", "type": "event_msg", "payload": {
        "type": "user_message", "message": "again " * 150, "images": []}}) + "\n"
    data = zstandard.ZstdCompressor().compress((json.dumps(meta) + "\n").encode())
    frame = zstandard.ZstdCompressor(level=19).compress(line.encode() * ((1 << 26) // len(line)))
    while len(data) < 400 * 1024:
        data += frame
    path = home / ".codex" / "sessions" / "2026" / "11" / "20" / f"rollout-2026-11-20T09-00-00-{BOMB}.jsonl.zst"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


_PEAK = ("import resource, subprocess, sys\n"
         "done = subprocess.run(sys.argv[1:])\n"
         "print('peak-kb', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\n"
         "sys.exit(done.returncode)\n")


def _learn(home: Path, cwd: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], float]:
    """`learn ARGS` as a user runs it, and the peak RSS in MB of it and its workers."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_", "CLAUDE_"))}
    env.update(HOME=str(home), LEARN_DATA_DIR=str(home / ".learn-data"),
               LEARN_CACHE_DIR=str(home / ".learn-cache"), LEARN_CONFIG_DIR=str(home / ".learn-config"),
               PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-c", _PEAK, sys.executable, "-m", "learn", *args], env=env,
                          cwd=cwd, capture_output=True, text=True, timeout=600, check=False)
    peak = next(int(line.split()[1]) for line in reversed(done.stderr.splitlines())
                if line.startswith("peak-kb "))
    return done, peak / 1024


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return _install(tmp_path_factory.mktemp("reader-limits"))


def test_the_listing_reads_every_session_and_says_what_it_read_in_part(home: tuple[Path, Path]) -> None:
    done, peak = _learn(*home, "sessions", "--all-projects", "--json")
    assert done.returncode == 0, done.stderr[-3000:]
    assert peak < MEMORY_LIMIT_MB, f"{peak:.0f} MB"
    rows = {r["id"]: r for r in json.loads(done.stdout)["sessions"]}
    assert set(rows) == {GOOD, DEEP, BYTE, VALUES, BOMB}
    assert rows[DEEP]["skipped_by_reason"] == {"too_deep": 1}
    assert rows[DEEP]["human_turns"] == 1  # the deep values' lines are read
    assert rows[BOMB]["skipped_by_reason"] == {"inflate_limit": 1}
    assert rows[BYTE]["human_turns"] == 1 and rows[BYTE]["skipped_lines"] == 0
    table, _ = _learn(*home, "sessions", "--all-projects")
    assert table.returncode == 0, table.stderr[-3000:]
    said = [line for line in table.stdout.splitlines() if "read in part" in line]
    assert any(line.strip().startswith(BOMB[:8]) and "inflates past 100x" in line for line in said)
    assert any(line.strip().startswith(DEEP[:8]) and "nested too deep" in line for line in said)


def test_show_reads_each_session_and_keeps_the_line_with_a_bad_byte(home: tuple[Path, Path]) -> None:
    for sid in (GOOD, DEEP, VALUES, BOMB):
        for extra in ((), ("--json",)):
            done, peak = _learn(*home, "show", sid, *extra)
            assert done.returncode == 0, (sid, extra, done.stderr[-3000:])
            assert peak < MEMORY_LIMIT_MB, (sid, f"{peak:.0f} MB")
    done, _ = _learn(*home, "show", BYTE, "--json", "--reveal")
    assert done.returncode == 0, done.stderr[-3000:]
    typed = [t["text"] for t in json.loads(done.stdout)["human_turns_detail"]]
    assert typed == ["the café menu \ufffd must show prices in euros"]
    shown, _ = _learn(*home, "show", DEEP)
    assert "skipped lines 1 (1 too deep)" in shown.stdout


def test_an_offline_run_goes_through_every_other_session(home: tuple[Path, Path]) -> None:
    done, peak = _learn(*home, "run", "--offline", "--all-projects", "--since", "2026-01-01", "--json")
    assert done.returncode == 0, done.stderr[-3000:]
    assert peak < MEMORY_LIMIT_MB, f"{peak:.0f} MB"
    assert "Traceback" not in done.stderr
    assert json.loads(done.stdout)["offline"] is True


# ---------------------------------------------------------------- the inflate limit, alone


def test_decompression_stops_at_the_limit_and_says_it_was_cut() -> None:
    from learn.transcripts.files.compressed import decompress, inflate_limit

    frame = zstandard.ZstdCompressor(level=19).compress(b" " * (1 << 26))
    bomb = frame * 8  # 16 KB that inflate to 512 MB
    got = decompress(bomb)
    assert got.cut and not got.complete
    assert len(got.data) == inflate_limit(len(bomb)) < 32 * 1024 * 1024
    whole = zstandard.ZstdCompressor().compress(b'{"a": 1}\n' * 1000)
    ok = decompress(whole + whole)
    assert ok.complete and not ok.cut and ok.data == b'{"a": 1}\n' * 2000
    cut_short = decompress((whole + whole)[:-5])
    assert not cut_short.complete and not cut_short.cut


def test_the_tail_of_a_bomb_is_read_no_further_than_the_limit(tmp_path: Path) -> None:
    from learn.transcripts.files.compressed import read_suffix

    frame = zstandard.ZstdCompressor(level=19).compress(b" " * (1 << 26))
    path = tmp_path / "rollout-bomb.jsonl.zst"
    path.write_bytes(frame * 200)  # 400 KB that inflate to 13 GB
    # Streaming all 13 GB took minutes of CPU; the limit (40 MB) is read in a moment.
    assert read_suffix(path, 4096) == b" " * 4096
