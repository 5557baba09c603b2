"""Where a first `learn sessions` spends its CPU, each part as a ratio to orjson.

    .venv/bin/python benchmarks/listing_parts.py [OUT_DIR] [--shape spread]
        [--sessions 1000] [--mb 300] [--repeat 3]

benchmarks/speed.py says how far the first listing is from its target; this
says where the rest goes. On one home of benchmarks/homes.py (built once under
OUT_DIR, the same bytes speed.py measures), in this one process, over every
session file, each part timed by this process's CPU, best of --repeat:

- floor: what any Python reader of these files pays at least (`read_floor`: msgspec's
  decode into the wire Structs and one look at each entry), the part of the listing
  no work of learn's can take away;
- decode: `parse_buffer` (msgspec's typed decode and lowering);
- events: building the public event objects of what was decoded;
- view: `build_session` over those events (the typed-text rules, as a listing
  builds it: `detail=False`);
- index rows: each turn redacted and keyed (`encode_turns_and_keys`), each distinct
  text redacted once in the process (`redactor`), as a listing in one process does;

then the real command, `learn sessions --all-projects --json` on an empty
store, as a subprocess: the CPU of its own process (discovery, judgement,
writes, output, and its share of the parts above: it is one of the workers,
learn.transcripts.pool) and of the workers it forks (the rest, in parallel); and the same
command in one process (LEARN_PARSE_WORKERS=1), run alternately with it, since
workers that share the machine's cores may each take more CPU than one alone; and
the command over an empty home: what a listing pays before its first file (Python,
imports, an empty store).
The baseline is orjson.loads of every line of the same files, measured in the
same run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import msgspec

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.index import _option, _text_option  # noqa: E402
from benchmarks.outdir import out_dir  # noqa: E402
from benchmarks.speed import _home  # noqa: E402
from benchmarks.timing import best_of_interleaved, orjson_lines  # noqa: E402

# Run inside the listing's process: its own CPU and its workers', on stderr as JSON.
_SPLIT = """
import atexit, json, resource, sys
def _report():
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({"own": own.ru_utime + own.ru_stime,
                      "workers": kids.ru_utime + kids.ru_stime}), file=sys.stderr)
atexit.register(_report)
sys.argv = ["learn", "sessions", "--all-projects", "--json"]
from learn.entry import main
main()
"""


def _parts(files: list[Path]) -> dict[str, Callable[[], object]]:
    from learn.index.indexed_turns import encode_turns_and_keys
    from learn.redaction.redact import forget_redactions, redactor
    from learn.transcripts.parser import parse_buffer
    from learn.transcripts.view.session import build_session

    bufs = [(f, f.read_bytes()) for f in files]

    def floor() -> object:
        return read_floor(bufs)

    def decode() -> object:
        for f, buf in bufs:
            parse_buffer(buf, path=f, mtime=0.0)
        return None

    def events() -> object:
        for f, buf in bufs:
            list(parse_buffer(buf, path=f, mtime=0.0).events)
        return None

    def view() -> object:
        for f, buf in bufs:
            build_session(parse_buffer(buf, path=f, mtime=0.0), detail=False)
        return None

    def rows() -> object:
        # The redactions this process remembers (`redactor`), forgotten at each
        # repeat: a listing's process starts with none.
        forget_redactions()
        for f, buf in bufs:
            session = build_session(parse_buffer(buf, path=f, mtime=0.0), detail=False)
            encode_turns_and_keys(session, redactor())
        return None

    return {"floor": floor, "decode": decode, "events": events, "view": view, "rows": rows,
            "orjson": lambda: orjson_lines(files)}


def read_floor(bufs: list[tuple[Path, bytes]]) -> tuple[int, int]:
    """What any Python reader of these files pays at least: each Claude Code line
    decoded by msgspec into learn's wire Structs (the body of a tool result, a thinking
    block and a tool's input as strings and dicts, as learn reads them), each Codex
    line decoded untyped, and one look at each entry (its uuid, parent and time into
    a dict, as finding the branch does). Nothing of learn's own beyond the decode: the
    listing's parts are measured against this as well as against orjson. Returns the
    lines decoded and the conversation entries looked at."""
    from learn.transcripts.claude.wire import AssistantW, Entry, UserW
    from learn.transcripts.codex.meta import is_codex

    typed = msgspec.json.Decoder(Entry).decode
    untyped = msgspec.json.Decoder().decode
    lines = entries = 0
    for path, buf in bufs:
        codex = is_codex(buf, path)
        links: dict[str, tuple[object, object]] = {}
        # Slices of the one buffer, as learn reads it (`claude.decode`): splitting
        # into new bytes copies each line first.
        view, find, start, size = memoryview(buf), buf.find, 0, len(buf)
        while start < size:
            end = find(b"\n", start)
            end = size if end < 0 else end
            line, start = view[start:end], end + 1
            try:
                wire = untyped(line) if codex else typed(line)
            except (msgspec.DecodeError, RecursionError):
                if not line or line.tobytes().isspace():
                    continue  # a blank line, as learn skips it
                wire = None if codex else untyped(line)  # an unmodeled line, as learn reads it
            lines += 1
            kind = type(wire)
            if kind is UserW or kind is AssistantW:
                links[wire.uuid] = (wire.parent_uuid, wire.timestamp)  # type: ignore[union-attr]
                entries += 1
    return lines, entries


def _listing(home: Path, workers: int | None = None) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="listing-parts-") as work:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("LEARN_", "ANTHROPIC_", "PYTHONDONTWRITEBYTECODE"))}
        env.update(HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"),
                   CODEX_HOME=str(home / ".codex"), LEARN_DATA_DIR=f"{work}/data",
                   LEARN_CACHE_DIR=f"{work}/cache", LEARN_CONFIG_DIR=f"{work}/config",
                   PYTHONPATH=str(ROOT))
        if workers is not None:
            env["LEARN_PARSE_WORKERS"] = str(workers)
        done = subprocess.run([sys.executable, "-c", _SPLIT], env=env, capture_output=True,
                              text=True, timeout=3600, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"learn sessions failed: {done.stderr[-2000:]}")
    got = json.loads(done.stderr.strip().splitlines()[-1])
    return {"own": float(got["own"]), "workers": float(got["workers"])}


def main(argv: list[str]) -> int:
    args = list(argv)
    shape = _text_option(args, "--shape", "spread")
    sessions = _option(args, "--sessions", 1000)
    mb = _option(args, "--mb", 300)
    repeat = _option(args, "--repeat", 3)
    out = out_dir(args, Path(tempfile.gettempdir()) / "learn-listing-parts")
    home = _home(out, shape, sessions, mb)
    files = sorted(p for p in home.rglob("*.jsonl") if p.is_file())
    mbytes = sum(p.stat().st_size for p in files) / 1e6
    load = os.getloadavg()[0]
    best = best_of_interleaved(_parts(files), repeat)
    base = best.pop("orjson")[0]
    print(f"{shape}, {sessions} sessions, {len(files)} files, {mbytes:.0f} MB: orjson.loads of "
          f"every line {base:.3f} s CPU (load average {load:.1f} on {os.cpu_count()} cores)")
    before = 0.0
    floor = best.pop("floor")[0]
    print(f"  {'floor: msgspec decode, a look at each':<36} {floor:7.3f} s CPU "
          f"{floor / base:6.2f}x orjson   (read_floor: no Python reader pays less)")
    for name, label in (("decode", "decode (parse_buffer)"),
                        ("events", "+ building the events"),
                        ("view", "+ the session view (detail=False)"),
                        ("rows", "+ index rows (redact, key)")):
        secs = best[name][0]
        print(f"  {label:<36} {secs:7.3f} s CPU {secs / base:6.2f}x orjson"
              f"   (this part {secs - before:6.3f} s, {(secs - before) / base:5.2f}x)")
        before = secs
    # The listing as a user runs it (a worker per core) and in one process, alternately:
    # its workers share the machine's cores, orjson's baseline has one to itself.
    runs: dict[int | None, list[dict[str, float]]] = {None: [], 1: []}
    for _ in range(max(1, repeat)):
        for workers in runs:
            runs[workers].append(_listing(home, workers))
    # What every listing pays before its first file: Python, imports, an empty store.
    with tempfile.TemporaryDirectory(prefix="listing-parts-empty-") as empty:
        start = min((_listing(Path(empty), 1) for _ in range(max(1, repeat))),
                    key=lambda r: r["own"])["own"]
    print(f"  the same command over an empty home: {start:.3f} s CPU ({start / base:.2f}x orjson)")
    for workers, got in runs.items():
        best_run = min(got, key=lambda r: r["own"] + r["workers"])
        total = best_run["own"] + best_run["workers"]
        totals = sorted(r["own"] + r["workers"] for r in got)
        how = "one process (LEARN_PARSE_WORKERS=1)" if workers == 1 else "a worker per core"
        print(f"  first `learn sessions --all-projects --json`, {how}: {total:.3f} s CPU, "
              f"{total / base:.2f}x orjson: its own process {best_run['own']:.3f} s "
              f"({best_run['own'] / base:.2f}x), its workers {best_run['workers']:.3f} s "
              f"({best_run['workers'] / base:.2f}x); best of {len(got)} "
              f"(all: {', '.join(f'{t:.2f}' for t in totals)} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
