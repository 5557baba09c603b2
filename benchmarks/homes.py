"""Synthetic HOMEs in the shapes whose cost must grow linearly (benchmarks/speed.py).

    .venv/bin/python benchmarks/homes.py OUT_DIR --shape tree --sessions 1000 [--mb 300]
        [--results short]

Three shapes, each at any number of sessions, `--mb` MB of sessions per 1,000
(subagent files beside a fifth of a person's sessions add a few percent):

- `spread`: a person's sessions over 24 projects (benchmarks/corpus.py's Claude
  Code entry shapes: prompts, tools, denials, compactions, attachments), a tenth
  of them Codex rollouts.
- `tree`: one big tree. Four in five sessions are a memory plugin's observer
  sessions, all in the plugin's own folder, run headless (`sdk-cli`): each opens
  with a long generated prompt quoting the person's latest request (in a tag
  slot, and once more outside one, in the checkpoint request), then one user
  message per tool call it watched (an envelope filled with the tool, its
  parameters and its outcome, then the plugin's instructions, as real memory
  plugins send them). The other fifth are the person's sessions, whose
  requests those observers quote.
- `long`: the `spread` home plus one 6 MB session with ~1,500 typed turns (one
  long-running conversation: per-turn work that grows with the turns before it
  shows here).

`--results full` writes each Claude Code tool result's `toolUseResult` as Claude
Code does, the tool's whole outcome again beside what the model read (a Bash
result's stdout, a Read's file, an Edit's file before the edit); `short` (the
default, the homes every figure before it was measured on) keeps the first 200
characters of a Bash result's output. The same `--mb`, so a full home holds fewer
entries in the same bytes.

The person's typed turns carry the corpus's recurring directives, so mining and
the cross-session judgement (repeated prompts, skeletons, quotes) have real work.
Same arguments -> same bytes. File mtimes are spread over three months, as on a
real disk; the newest are a few minutes old.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.corpus import _WORDS, _claude_session, _codex_rollout, _dump, _Gen, _write
from benchmarks.outdir import out_dir

SHAPES = ("spread", "tree", "long")
RESULTS = ("short", "full")
# Bump when the same arguments would write other bytes (speed.py rebuilds its homes).
HOMES_VERSION = 3
PLUGIN_DIR = "/home/dev/.recall/observer"
PROJECTS = 24


class _FastGen(_Gen):
    """corpus._Gen whose filler text is cut from one pre-drawn pool of words:
    drawing each word was most of the time of writing a 600 MB home."""

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.pool = " ".join(rng.choice(_WORDS) for _ in range(400_000))

    def words(self, n: int) -> str:
        # ~6 chars a word; start at a word boundary so the text stays words.
        want = max(1, n) * 6
        at = self.pool.find(" ", self.rng.randrange(0, len(self.pool) - want - 8)) + 1
        return self.pool[at: at + want].strip()

    def text_of(self, nbytes: int) -> str:
        return self.words(max(1, nbytes // 6))


# The observer plugin's prompts (a fictional plugin, "Recall", in the shape such
# plugins use: a long instruction block, the request in a tag, one filled
# template per tool call watched).
_OPENING = """You are Recall, a background observer attached to another coding session. You never \
talk to the person and you never use tools: you read what the primary session did and write \
memories that later sessions can search.

For every tool call you are shown, decide whether it taught something worth keeping: a \
decision, a discovered constraint, a fix and what caused it, a convention of this codebase. \
Write each memory as one <memory> element with a <kind>, a short <title> and two to four \
sentences of <body> in the past tense, naming the files involved. If nothing was learned, \
answer with <nothing/> and nothing else.

Do not repeat memories you already wrote in this session. Do not speculate about intent. \
Never quote secrets, tokens or credentials even when the tool output contains them.

What is worth a memory: a choice between two approaches and the reason it was made; a command \
that failed and the change that made it pass; a file whose role was not obvious from its name; \
a test that needs a service running; a setting that changes behaviour in production only; a \
library the project prefers over another one and why.

What is not: reading a file without learning anything from it; a command that printed nothing \
of interest; formatting changes; a retry that succeeded for no reason anyone found; anything \
the person will see in the diff anyway.

Each memory must stand on its own: a later session reads it without this one, so name the \
files, the commands and the outcome, and leave out pronouns that point back into this session.

<primary_session>
  <person_request>{request}</person_request>
  <project>{project}</project>
</primary_session>

Wait for the first observation."""

_OBSERVATION = """<observation_of_primary>
  <tool_called>{tool}</tool_called>
  <at>{when}</at>
  <working_dir>{project}</working_dir>
  <tool_input>{params}</tool_input>
  <tool_output>{outcome}</tool_output>
</observation_of_primary>

If <tool_input> or <tool_output> above was cut to fit, describe only the part you can see.
Answer with one or more <memory> elements, or <nothing/> when this call taught nothing.
Never answer in prose outside the elements: it is thrown away."""

_CHECKPOINT = """Checkpoint. Write a summary of the primary session so far as one <summary> \
element: what was asked, what was done, what is left, and the files touched.
The person's request was: {request}
Keep it under two hundred words and do not repeat earlier summaries."""

_TOOLS = ("Bash", "Read", "Edit", "Write", "Grep", "Glob")


def _observer_session(g: _FastGen, sid: str, request: str, project: str, target: int) -> list[str]:
    """One headless observer session: the opening prompt, then observations and replies."""
    rng = g.rng
    lines: list[str] = []
    size = 0
    parent: str | None = None

    def entry(kind: str, message: dict[str, Any]) -> None:
        nonlocal parent, size
        uid = g.uid()
        line = _dump({"parentUuid": parent, "isSidechain": False, "userType": "external",
                      "cwd": PLUGIN_DIR, "sessionId": sid, "version": "2.1.3",
                      "gitBranch": "HEAD", "entrypoint": "sdk-cli", "type": kind,
                      "message": message, "uuid": uid, "timestamp": g.ts()})
        parent = uid
        lines.append(line)
        size += len(line) + 1

    def reply() -> None:
        text = ("<nothing/>" if rng.random() < 0.5 else
                f"<memory><kind>decision</kind><title>{g.words(5)}</title>"
                f"<body>{g.words(40)}</body></memory>")
        entry("assistant", {"id": f"msg_{g.uid()[:12]}", "type": "message", "role": "assistant",
                            "model": "claude-haiku-4-5", "content": [{"type": "text", "text": text}],
                            "stop_reason": "end_turn", "usage": {"input_tokens": 9,
                                                                 "output_tokens": 9}})

    entry("user", {"role": "user", "content": _OPENING.format(request=request, project=project)})
    reply()
    n = 0
    while size < target:
        n += 1
        tool = rng.choice(_TOOLS)
        params = json.dumps({"command": "uv run pytest -q " + g.words(3)} if tool == "Bash" else
                            {"file_path": f"{project}/src/{rng.choice(_WORDS)}.py"})
        outcome = json.dumps({"output": g.text_of(g.size())})
        entry("user", {"role": "user", "content": _OBSERVATION.format(
            tool=tool, when=g.ts(), project=project, params=params, outcome=outcome)})
        reply()
        if n % 25 == 0:
            entry("user", {"role": "user", "content": _CHECKPOINT.format(request=request)})
            reply()
    return lines


def _person_requests(lines: list[str]) -> list[str]:
    """The prompts a person typed in a session corpus.py wrote (its string-content prompts)."""
    out: list[str] = []
    for line in lines:
        if '"promptId"' not in line:
            continue
        content = json.loads(line)["message"]["content"]
        if isinstance(content, str):
            out.append(content)
    return out


def _long_session(g: _FastGen, sid: str, cwd: str, target: int) -> list[str]:
    """One conversation of `target` bytes: a typed turn, a short answer, a tool call, again."""
    rng = g.rng
    lines: list[str] = []
    size = 0
    parent: str | None = None

    def entry(kind: str, message: dict[str, Any], **extra: Any) -> None:
        nonlocal parent, size
        uid = g.uid()
        line = _dump({"parentUuid": parent, "isSidechain": False, "userType": "external",
                      "cwd": cwd, "sessionId": sid, "version": "2.1.3", "gitBranch": "main",
                      "entrypoint": "cli", "type": kind, "message": message, **extra,
                      "uuid": uid, "timestamp": g.ts()})
        parent = uid
        lines.append(line)
        size += len(line) + 1

    from benchmarks.corpus import _DIRECTIVES

    n = 0
    while size < target:
        n += 1
        entry("user", {"role": "user", "content": f"{rng.choice(_DIRECTIVES)}, then "
                       f"{g.words(rng.randint(4, 30))} (step {n})"}, promptId=g.uid())
        tool_id = f"toolu_{g.uid().replace('-', '')[:24]}"
        entry("assistant", {"id": f"msg_{n}", "type": "message", "role": "assistant",
                            "model": "claude-opus-4-5", "stop_reason": "tool_use",
                            "content": [{"type": "text", "text": g.words(30)},
                                        {"type": "tool_use", "id": tool_id, "name": "Bash",
                                         "input": {"command": "uv run pytest -q"}}]})
        entry("user", {"role": "user", "content": [{
            "type": "tool_result", "tool_use_id": tool_id, "is_error": rng.random() < 0.1,
            "content": g.text_of(rng.randint(200, 5000))}]})
    return lines


def _projdir(root: Path, cwd: str) -> Path:
    return root / ".claude" / "projects" / "".join(c if c.isalnum() else "-" for c in cwd)


def build(root: Path, shape: str, sessions: int, mb: int = 300, seed: int = 3217,
          results: str = "short") -> list[Path]:
    """Write the home; returns the session files written (asides and subagents not listed).
    `results`: how tool results carry their `toolUseResult` (`corpus._Gen.results`)."""
    if shape not in SHAPES:
        raise ValueError(f"shape must be one of {SHAPES}")
    if results not in RESULTS:
        raise ValueError(f"results must be one of {RESULTS}")
    shutil.rmtree(root, ignore_errors=True)
    rng = random.Random(f"{seed}-{shape}-{sessions}")
    g = _FastGen(rng)
    g.results = results
    # Each session's bytes drawn from corpus.py's distribution (most short, a few
    # of several MB), then scaled so the sessions come to `mb` MB per 1,000 exactly:
    # doubling the sessions doubles the bytes, whatever the draw.
    sizer = _Gen(random.Random(f"{seed}-{shape}-{sessions}-sizes"))
    drawn = [sizer.session_size() for _ in range(sessions)]
    scale = mb * 1e6 * sessions / 1000 / sum(drawn)
    targets = iter([max(3_000, int(d * scale)) for d in drawn])
    written: list[Path] = []
    people = sessions if shape != "tree" else sessions - sessions * 4 // 5
    requests: list[tuple[str, str]] = []
    for i in range(people):
        cwd = f"/home/dev/proj{i % PROJECTS}"
        sid = g.uid()
        target = next(targets)
        if i % 10 == 9:  # a tenth are Codex rollouts
            dd = f"{1 + i % 28:02d}"
            path = (root / ".codex" / "sessions" / "2026" / "01" / dd
                    / f"rollout-2026-01-{dd}T10-00-00-{sid}.jsonl")
            written.append(_write(path, _codex_rollout(g, sid, cwd, target)))
            continue
        lines = _claude_session(g, sid, cwd, target, sidechain=False, agent_id=None,
                                legacy=rng.random() < 0.2)
        requests += [(r, cwd) for r in _person_requests(lines)[-1:]]
        written.append(_write(_projdir(root, cwd) / f"{sid}.jsonl", lines))
        if rng.random() < 0.2:
            agent = g.uid().replace("-", "")[:8]
            sub = _claude_session(g, sid, cwd, rng.randint(10_000, 100_000),
                                  sidechain=True, agent_id=agent)
            _write(_projdir(root, cwd) / sid / "subagents" / f"agent-{agent}.jsonl", sub)
    if shape == "tree":
        for i in range(sessions - people):
            sid = g.uid()
            # The observer watches the person's session: its request, its project.
            request, project = requests[i % len(requests)] if requests else (g.words(12), "/x")
            lines = _observer_session(g, sid, request, project, next(targets))
            written.append(_write(_projdir(root, PLUGIN_DIR) / f"{sid}.jsonl", lines))
    if shape == "long":
        sid = g.uid()
        written.append(_write(_projdir(root, "/home/dev/marathon") / f"{sid}.jsonl",
                              _long_session(g, sid, "/home/dev/marathon", 6_000_000)))
    # Real disks: most sessions are days to months old; a few are live.
    now = time.time()
    for k, path in enumerate(sorted(root.rglob("*.jsonl"))):
        old = now - (300 if k % 50 == 0 else 86400 * (3 + k % 90))
        os.utime(path, (old, old))
    return written


def main(argv: list[str]) -> int:
    from benchmarks.index import _option, _text_option

    args = list(argv)
    sessions = _option(args, "--sessions", 1000)
    mb = _option(args, "--mb", 300)
    shape = _text_option(args, "--shape", "tree")
    results = _text_option(args, "--results", "short")
    out = out_dir(args, Path(__file__).parent / "out" / f"home-{shape}-{sessions}")
    start = time.perf_counter()
    files = build(out, shape, sessions, mb, results=results)
    total = sum(p.stat().st_size for p in out.rglob("*.jsonl"))
    print(f"{shape}: {len(files)} sessions, {total / 1e6:.0f} MB under {out} "
          f"({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
