"""Render compression and throughput: what the miner is sent, against the raw bytes.

    .venv/bin/python benchmarks/render.py [CORPUS_DIR] [--mb 20] [--repeat 3]

Generates the corpus (benchmarks/corpus.py, seed 1417) into CORPUS_DIR when it
holds no transcripts. Measured in the same run: a parse-only baseline (parse
every file and walk its events), then parse + build_session + render +
redaction + chunking for a 200k-window model. Prints rendered chars / raw
bytes (what fraction of a transcript reaches the model), the calls a cold run
would make, and both throughputs. Best of --repeat runs.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.corpus import generate
from benchmarks.outdir import out_dir
from benchmarks.timing import best_of
from learn.mining.miner import default_chunk_chars
from learn.render.chunk import chunk_blocks
from learn.render.render import render_blocks
from learn.transcripts.parser import parse
from learn.transcripts.view.session import build_session


def main(argv: list[str]) -> int:
    args = list(argv)
    repeat, mb_arg = 3, 20
    for flag in ("--repeat", "--mb"):
        if flag in args:
            k = args.index(flag)
            value = int(args[k + 1])
            del args[k : k + 2]
            if flag == "--repeat":
                repeat = value
            else:
                mb_arg = value
    root = out_dir(args, Path(__file__).parent / "out" / "corpus")
    files = sorted(p for p in root.rglob("*.jsonl") if p.is_file() and "subagents" not in p.parts)
    if not files:
        print(f"generating a {mb_arg} MB corpus under {root} ...")
        generate(root, mb_arg)
        files = sorted(p for p in root.rglob("*.jsonl") if p.is_file() and "subagents" not in p.parts)
    raw = sum(p.stat().st_size for p in files)
    mb = raw / 1e6
    budget_200k = default_chunk_chars("claude-haiku-4-5")
    budget_8k = default_chunk_chars("local-8k", context_window=8_192)

    def parse_only() -> tuple[int, int]:
        n = 0
        for p in files:
            for _ in parse(p).events:
                n += 1
        return n, 0

    def render_all() -> tuple[int, int]:
        chars = calls = 0
        for p in files:
            session = build_session(parse(p))
            if not session.human_turns and not session.failures:
                continue
            chunks = chunk_blocks(render_blocks(session), budget_200k)
            chars += sum(len(c) for c in chunks)
            calls += len(chunks)
        return chars, calls

    def calls_8k() -> tuple[int, int]:
        calls = 0
        for p in files:
            session = build_session(parse(p))
            if session.human_turns or session.failures:
                calls += len(chunk_blocks(render_blocks(session), budget_8k))
        return calls, 0

    print(f"corpus: {len(files)} session files, {mb:.1f} MB, best of {repeat}")
    base_s, _ = best_of(parse_only, repeat)
    render_s, (chars, calls) = best_of(render_all, repeat)
    (calls8, _) = calls_8k()
    print(f"  parse only (baseline)                  {base_s:7.3f} s  {mb / base_s:7.1f} MB/s")
    print(f"  parse + session + render + chunk       {render_s:7.3f} s  {mb / render_s:7.1f} MB/s")
    print(f"  render overhead vs parse               {render_s / base_s:7.2f}x")
    print(f"  rendered chars / raw bytes             {chars / raw:7.3%}  ({chars:,} chars of {raw:,} bytes)")
    print(f"  cold-run calls, 200k window ({budget_200k:,} chars/chunk): {calls}")
    print(f"  cold-run calls, 8k window ({budget_8k:,} chars/chunk):     {calls8}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
