"""Shown is per project: a point shown (and applied) in one project is news in another.

Keyed by the proposal key alone, the push rule shown in `billing` held two new
denials in `dashboard` back as "shown before", where it was never shown. The
real CLI, offline (the denials' reasons are the candidates), two projects.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from evals.builder import ClaudeSession, session_id

REPO = Path(__file__).resolve().parents[1]
REASON = "never push from here, open a pull request instead"


def _sessions(home: Path, project: Path, day: int) -> None:
    project.mkdir(parents=True, exist_ok=True)
    for k in range(2):
        s = ClaudeSession(session_id(f"{project.name}-{day}-{k}"), str(project),
                          datetime(2026, 11, day + k, 9, tzinfo=UTC))
        s.user("ship the fix")
        s.denied_tool("Bash", {"command": "git push origin main"}, REASON)
        s.assistant("ok")
        s.write(home / ".claude")


def _run(tmp: Path, home: Path, project: Path) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
    env.update(HOME=str(home), LEARN_DATA_DIR=str(tmp / "data"), LEARN_CACHE_DIR=str(tmp / "cache"),
               LEARN_CONFIG_DIR=str(tmp / "config"), PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-m", "learn", "run", "--project", str(project),
                           "--since", "2026-01-01", "--offline", "--json"], env=env,
                          capture_output=True, text=True, timeout=300, cwd=project)
    assert done.returncode == 0, done.stderr
    data: dict[str, object] = json.loads(done.stdout)
    return data


def _shown(result: dict[str, object]) -> list[str]:
    return [f"{p['kind']}:{p['label']}" for p in result["proposals"]]  # type: ignore[attr-defined, index]


def _held(result: dict[str, object]) -> int:
    return int(result["funnel"]["held_back"])  # type: ignore[index]


def test_a_point_shown_in_one_project_is_shown_in_another(tmp_path: Path) -> None:
    home = tmp_path / "home"
    billing, dashboard = home / "code" / "billing", home / "code" / "dashboard"
    _sessions(home, billing, 3)
    first = _run(tmp_path, home, billing)
    [key] = _shown(first)
    # Shown in billing: the next run there holds it back.
    again = _run(tmp_path, home, billing)
    assert _shown(again) == [] and _held(again) == 1
    # Two denials in dashboard, where it was never shown: proposed there.
    _sessions(home, dashboard, 10)
    there = _run(tmp_path, home, dashboard)
    assert _shown(there) == [key] and _held(there) == 0
    # And from then on held back in dashboard too.
    assert _shown(_run(tmp_path, home, dashboard)) == []
