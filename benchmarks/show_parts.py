"""Where `learn show` of one session spends its CPU, part by part, in one warm process.

    .venv/bin/python benchmarks/show_parts.py [OUT_DIR] [--shape long] [--sessions 1000]
        [--mb 300] [--pick largest] [--repeat 5]

benchmarks/speed.py says how far `learn show` is from its target; this says where
its time goes. On one home of benchmarks/homes.py (built once under OUT_DIR) with an
index filled by one `learn sessions --all-projects --json`, the session speed.py
picks (`--pick`: largest, median, observer, person) is shown part by part in this
process, each part timed by this process's CPU, best of --repeat (so the imports,
paid once, are left out: `python -X importtime -m learn show ID` has those):

- read: `parser.parse` of the file;
- view: `build_session` (every entry, the typed-text rules over every turn);
- judged: the rest of `show.load_view` (its project's sessions from the index, each
  turn's keys, the prompts repeated across them);
- redact: every turn, tool line and failure redacted (`redact_session`);
- print: the body written (to a buffer) as `learn show` writes it.
"""

from __future__ import annotations

import io
import os
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import redirect_stdout
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from benchmarks.index import _option, _text_option  # noqa: E402
from benchmarks.outdir import out_dir  # noqa: E402
from benchmarks.speed import _env, _home, _learn, show_picks  # noqa: E402


def _best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(max(1, repeat)):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return min(times)


def main(argv: list[str]) -> int:
    args = list(argv)
    shape = _text_option(args, "--shape", "long")
    sessions = _option(args, "--sessions", 1000)
    mb = _option(args, "--mb", 300)
    pick = _text_option(args, "--pick", "largest")
    repeat = _option(args, "--repeat", 5)
    out = out_dir(args, Path(tempfile.gettempdir()) / "learn-show-parts")
    home = _home(out, shape, sessions, mb)
    work = out / f"work-show-parts-{shape}-{sessions}"
    env = _env(home, work)
    row = show_picks(_learn(env, "sessions", "--all-projects", "--json")[2])[pick]
    os.environ.update({k: v for k, v in env.items() if k != "PYTHONPATH"})

    from learn.commands import show
    from learn.index.indexed import CachedHeads
    from learn.redaction.redact import forget_redactions
    from learn.render.redacted_view import redact_session
    from learn.store import open_store
    from learn.transcripts.parser import parse
    from learn.transcripts.view.replay_files import FingerprintCache
    from learn.transcripts.view.session import build_session

    with open_store(local_only=True) as store:
        index = store.index
        heads = CachedHeads(index)
        path, file = show.resolve_session(row["id"], heads)
        assert file is not None
        fingerprints = FingerprintCache().for_project(file.project)
        transcript = parse(path)
        read = _best(lambda: parse(path), repeat)
        view = _best(lambda: build_session(transcript, fingerprints=fingerprints,
                                           subagent_paths=file.subagent_paths), repeat)
        loaded = _best(lambda: show.load_view(path, file, index=index, heads=heads), repeat)
        session = show.load_view(path, file, index=index, heads=heads)
    def redacted_afresh() -> object:
        # What this process remembers of earlier repeats' redactions (`redactor`)
        # forgotten: a show's process starts with none.
        forget_redactions()
        return redact_session(session, inputs=False)

    redact = _best(redacted_afresh, repeat)
    redacted = redact_session(session, inputs=False)

    def printed() -> None:
        with redirect_stdout(io.StringIO()):
            show._print(redacted)

    shown = _best(printed, repeat)
    judged = max(0.0, loaded - read - view)
    total = loaded + redact + shown
    print(f"{shape}, {sessions} sessions: `learn show` of the {pick} session "
          f"({row['size_bytes'] / 1e3:.0f} kB, {len(session.human_turns)} turns shown), "
          f"CPU best of {repeat}, imports left out")
    for name, secs in (("read (parse)", read), ("view (build_session)", view),
                       ("judged with its project", judged), ("redact", redact),
                       ("print", shown)):
        print(f"  {name:26} {secs:6.3f} s  {secs / total:4.0%}")
    print(f"  {'all of these':26} {total:6.3f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
