"""The red-team apply harness (tests/test_apply_attacks.py) as the tests of what `learn
apply` shows before the yes use it: a HOME of their own, and a project whose sessions say
each point, run and applied with `--yes` (tests/test_redteam_shown_diff.py,
tests/test_redteam_unsaid_commands.py, tests/test_fix_grounded_hosts.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_apply_attacks import Outcome, Point, World, attack


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    (home / ".claude").mkdir(parents=True)
    return World(tmp_path, home)


def said_and_applied(world: World, project: Path, *points: Point) -> Outcome:
    """`points` said in `project`'s sessions, then `learn run` and `learn apply --yes`
    there against the hostile model (attack): what it printed and changed."""
    world.points = list(points)
    world.sessions(str(project), *(p.said for p in world.points))
    return attack(world, project, [project])
