"""learn.render's names are imported when asked for: `learn show` redacts, and
importing the chunker, the renderer and the spoken text with the redaction cost
its start ~7 ms for nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent


def _run(program: str) -> str:
    done = subprocess.run([sys.executable, "-c", program], cwd=_ROOT, capture_output=True, text=True,
                          check=False, env={"PYTHONPATH": str(_ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_redacted_view_imports_no_chunker_renderer_or_spoken_text() -> None:
    out = _run("import sys, learn.render.redacted_view\n"
               "print(sorted(m for m in sys.modules if m.startswith(('learn.render.', "
               "'learn.redaction.'))))")
    assert "'learn.redaction.redact'" in out
    for module in ("learn.render.chunk", "learn.render.render", "learn.render.spoken"):
        assert f"'{module}'" not in out


def test_each_name_is_the_function_it_names_whatever_was_imported_first() -> None:
    out = _run(
        "import learn.redaction.redact, learn.render.chunk\n"
        "import learn.render as r\n"
        "from learn.render import chunk_chars_for_model, chunk_transcript, redact, render_transcript, spoken_text\n"
        "names = (chunk_chars_for_model, chunk_transcript, redact, render_transcript, spoken_text)\n"
        "print([f.__module__ + '.' + f.__name__ for f in names])\n"
        "print(r.redact is redact, sorted(r.__all__) == sorted(f.__name__ for f in names))\n"
    )
    assert out.splitlines() == [
        "['learn.render.chunk.chunk_chars_for_model', 'learn.render.chunk.chunk_transcript', "
        "'learn.redaction.redact.redact', 'learn.render.render.render_transcript', "
        "'learn.render.spoken.spoken_text']",
        "True True",
    ]
