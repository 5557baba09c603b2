"""After `learn demo`, the digest's next step works: `learn demo --apply` writes the demo's
pending proposals into the demo's own projects (never the person's files)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_demo_then_its_next_step_applies_into_the_demo_copy(tmp_path: Path) -> None:
    home = tmp_path / "home"
    project = home / "code" / "mine"
    (project / ".git").mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
    env.update(HOME=str(home), LEARN_DATA_DIR=str(tmp_path / "data"),
               LEARN_CACHE_DIR=str(tmp_path / "cache"), LEARN_CONFIG_DIR=str(tmp_path / "config"),
               PYTHONPATH=str(REPO))

    def learn(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "learn", *args], env=env, cwd=project,
                              capture_output=True, text=True, timeout=300)

    before = learn("demo", "--apply")
    assert before.returncode != 0 and "run `learn demo` first" in before.stderr

    shown = learn("demo")
    assert shown.returncode == 0, shown.stderr
    assert "`learn demo --apply`" in shown.stdout
    # The README's first command keeps learn's data dir, and the demo in it, private.
    for folder in (tmp_path / "data", tmp_path / "data" / "demo"):
        assert folder.stat().st_mode & 0o777 == 0o700, folder

    applied = learn("demo", "--apply")
    assert applied.returncode == 0, applied.stdout + applied.stderr
    demo_home = tmp_path / "data" / "demo" / "home"
    shop = demo_home / "code" / "shop-api" / "CLAUDE.md"
    assert "<!-- learn:begin -->" in shop.read_text()
    assert "+++ " + str(shop) in applied.stdout  # the diff was shown
    # A request becomes a command file in the demo's projects.
    assert list((demo_home / "code").glob("*/.claude/commands/*.md"))
    # Nothing touched the person's own home or project.
    assert not (project / "CLAUDE.md").exists() and not (home / ".claude").exists()
    assert not (home / "CLAUDE.md").exists()
    # Applied once: a second apply has nothing left to write.
    again = learn("demo", "--apply")
    assert again.returncode == 0 and "nothing to apply" in again.stdout
