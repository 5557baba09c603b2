"""Issue 19 acceptance: with no model, a Chinese and a German tool-denial reason
and plan rejection repeated across sessions become candidates like their
English twins (`learn run --offline`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from evals.builder import ClaudeSession, session_id
from learn.reduce.slug import SLUG_PATTERN

REPO = Path(__file__).resolve().parents[1]

# language -> (denial reasons, plan-rejection reasons): each said in two sessions,
# in two wordings, as a person repeats a correction.
SAID = {
    "en": (["leave the generated files alone, regenerate them with bun run codegen",
            "don't edit anything under src/generated, regenerate it with codegen"],
           ["no new dependency for the pdf export, use the standard library",
            "don't add a dependency for pdf export, the standard library is enough"]),
    "zh": (["别手改生成的文件，用 bun run codegen 重新生成",
            "不要手改 src/generated 下的文件，用 codegen 重新生成"],
           ["导出 PDF 不要加新的依赖，用标准库",
            "不要为了导出 PDF 加依赖，标准库就够了"]),
    "de": (["Finger weg von den generierten Dateien, neu erzeugen mit bun run codegen",
            "Nichts unter src/generated anfassen, die generierten Dateien kommen aus codegen"],
           ["Keine neue Abhängigkeit für den PDF-Export, nimm die Standardbibliothek",
            "Für den PDF-Export keine Abhängigkeit hinzufügen, die Standardbibliothek reicht"]),
}


PROMPT = {"en": "fix the export button", "zh": "修一下导出按钮", "de": "Repariere den Export-Knopf"}


def _build(home: Path, lang: str) -> None:
    """Two sessions of one person who writes only `lang`."""
    denials, plans = SAID[lang]
    project = home / "work" / "app"
    project.mkdir(parents=True)
    for k in range(2):
        s = ClaudeSession(session_id(f"offline-{lang}-{k}"), str(project),
                          datetime(2026, 11, 3 + 2 * k, 9, tzinfo=UTC))
        s.user(PROMPT[lang])
        s.denied_tool("Edit", {"file_path": f"{project}/src/generated/api.ts", "old_string": "a",
                               "new_string": "b"}, denials[k])
        s.mode("plan")
        s.denied_tool("ExitPlanMode", {"plan": "1. Add reportlab\n2. Render PDFs"}, plans[k])
        s.assistant("ok")
        s.write(home / ".claude")


@pytest.mark.parametrize("lang", sorted(SAID))
def test_offline_proposes_rejections_in_any_language_like_english(tmp_path: Path, lang: str) -> None:
    home = tmp_path / "home"
    _build(home, lang)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
    env.update(HOME=str(home), LEARN_DATA_DIR=str(tmp_path / "data"),
               LEARN_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-m", "learn", "run", "--all-projects", "--since",
                           "2026-01-01", "--offline", "--json"], env=env, capture_output=True,
                          text=True, timeout=300, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["usage"]["model_calls"] == 0
    denials, plans = SAID[lang]
    got = sorted((p["kind"], p["sessions"], sorted(q["text"] for q in p["quotes"]))
                 for p in result["proposals"])
    assert got == sorted([("directive", 2, sorted(denials)), ("directive", 2, sorted(plans))])
    for p in result["proposals"]:
        assert SLUG_PATTERN.match(p["label"]), p["label"]
