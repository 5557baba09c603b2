"""A rule is covered, and rewritten, only by a file that loads where it was said.

Found end to end (Claude Code 2.1.x sessions, four projects): shopfront's CLAUDE.md held
"never mock the db"; shopfront and notes-api each had two sessions saying not to mock
the database; after `learn run --all-projects`, `learn apply --project notes-api --only
directive:no-database-mocks-in-tests --yes`, run in notes-api, rewrote shopfront's line.
Coverage had judged the point against every project's files at once, and the in-place
rewrite accepted a file of any project the quotes came from. notes-api's agent never
reads shopfront's CLAUDE.md: the rule belonged in notes-api's own file.

Each case runs the real CLI (`python -m learn`, a temp HOME) against the fake Messages
server, whose coverage answer calls the point restated by the last rule line about the
database it is shown, whichever file that line is in.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fakes.anthropic_server import FakeAnthropicServer, default_tool_input, items_in
from fakes.http_server import RecordedRequest

from evals.builder import ClaudeSession, session_id

REPO = Path(__file__).resolve().parents[1]
DB_SAID = "please stop faking the database layer in the tests"
DB_RULE = "Never mock the database in tests; use the real test database."
DB_KEY = "directive:no-database-mocks-in-tests"
PNPM_SAID = "run the scripts through pnpm here, not npm"
SHOP_LINE = "- Keep the database real in tests: no mocked database client."
USER_LINE = "- Tests hit a real database, never a mocked database module."


@dataclass
class World:
    home: Path
    shop: Path
    notes: Path

    def env(self, base_url: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("ANTHROPIC_", "LEARN_", "XDG_", "CLAUDE"))}
        env.pop("CODEX_HOME", None)
        return {**env, "HOME": str(self.home), "PYTHONPATH": str(REPO),
                "ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": base_url}

    def said(self, project: Path, text: str, day: int) -> None:
        """Two sessions in `project`, two days apart, each saying `text` once."""
        for i in range(2):
            s = ClaudeSession(session_id(f"{project.name}-{text}-{i}"), str(project),
                              datetime(2026, 3, day + 2 * i, 10, tzinfo=UTC))
            s.user("let's carry on with the feature from yesterday")
            s.user(text)
            s.assistant("Done.")
            s.write(self.home / ".claude")


@pytest.fixture
def world(tmp_path: Path) -> World:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    shop, notes = home / "code" / "shopfront", home / "code" / "notes-api"
    for project in (shop, notes):
        (project / ".git").mkdir(parents=True)
    return World(home, shop, notes)


def _label(text: str) -> str:
    return "no-database-mocks-in-tests" if DB_SAID in text else "use-pnpm-not-npm"


def _answer(req: RecordedRequest) -> Mapping[str, Any]:
    tool, text = req.tool_name or "", req.user_text
    if tool == "record_candidates":
        return {"candidates": [{"kind": "directive", "text": t} for t in (DB_SAID, PNPM_SAID)
                               if t in text]}
    items = items_in(text)
    if tool == "assign_labels":
        return {"labels": [{"id": i, "label": _label(t)} for i, _, t in items]}
    if tool == "check_coverage":
        # The RULES section only (SKILLS are numbered from 0 too); the last line about
        # the database, in whichever file it is.
        rules = text.partition("RULES:\n")[2].split("\n\n")[0]
        hits = [int(n) for n, line in re.findall(r"^(\d+)\. (.*)$", rules, re.MULTILINE)
                if "database" in line.lower()]
        return {"verdicts": [{"id": i, "verdict": "rule", "rule_index": hits[-1]}
                             if hits and DB_SAID in t else {"id": i, "verdict": "new"}
                             for i, _, t in items]}
    if tool == "record_verdicts":
        return {"verdicts": [{"id": i, "accepted": True, "category": "testing",
                              "scope": "project", "confidence": 0.9,
                              "summary": DB_RULE if DB_SAID in t else "Use pnpm, never npm.",
                              "rationale": "said in two sessions"} for i, _, t in items]}
    return default_tool_input(tool)


def _learn(world: World, url: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "learn", *args], env=world.env(url), cwd=cwd,
                          capture_output=True, text=True, timeout=300, check=False)


def _run_then_apply(world: World, *apply_args: str, cwd: Path
                    ) -> tuple[dict[str, Any], subprocess.CompletedProcess[str]]:
    """`learn run --all-projects` from home, then `learn apply --yes` from `cwd`."""
    with FakeAnthropicServer(responder=_answer) as fake:
        run = _learn(world, fake.base_url, "run", "--all-projects", "--since", "2026-01-01",
                     "--json", "--quiet", "--yes", cwd=world.home)
        assert run.returncode == 0, run.stderr[-3000:]
        applied = _learn(world, fake.base_url, "apply", "--yes", *apply_args, cwd=cwd)
    return json.loads(run.stdout), applied


def _point(result: dict[str, Any]) -> dict[str, Any]:
    [point] = [p for p in result["proposals"] if p["label"] == "no-database-mocks-in-tests"]
    return point


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_apply_for_one_project_never_rewrites_another_projects_file(world: World) -> None:
    shop_md = world.shop / "CLAUDE.md"
    shop_md.write_text(f"# Shopfront\n\n## Testing\n\n{SHOP_LINE}\n")
    before = _digest(shop_md)
    world.said(world.shop, DB_SAID, day=1)
    world.said(world.notes, DB_SAID, day=10)

    result, applied = _run_then_apply(world, "--project", str(world.notes), "--only", DB_KEY,
                                      cwd=world.notes)
    point = _point(result)
    # Said in both: shopfront's line covers it there, and apply asks which project.
    assert point["status"] == "restated" and point["existing_rule"] == SHOP_LINE[2:], point
    assert applied.returncode == 0, applied.stderr
    assert _digest(shop_md) == before, shop_md.read_text()
    notes_md = world.notes / "CLAUDE.md"
    assert DB_RULE in notes_md.read_text(), applied.stdout
    # The person is told the rule is written in shopfront's file too, left as it is.
    assert f"is written in {shop_md}, another project's file, which is left as it is" \
        in applied.stdout, applied.stdout

    # Applied from shopfront, the line is shopfront's own: rewritten where it is.
    with FakeAnthropicServer(responder=_answer) as fake:
        there = _learn(world, fake.base_url, "apply", "--yes", "--project", str(world.shop),
                       "--only", DB_KEY, cwd=world.shop)
    assert there.returncode == 0, there.stderr
    text = shop_md.read_text()
    assert SHOP_LINE not in text and DB_RULE in text, there.stdout


def test_a_point_said_in_one_project_is_not_covered_by_anothers_file(world: World) -> None:
    shop_md = world.shop / "CLAUDE.md"
    shop_md.write_text(f"# Shopfront\n\n{SHOP_LINE}\n")
    before = _digest(shop_md)
    world.said(world.shop, PNPM_SAID, day=1)  # shopfront is read, its rules with it
    world.said(world.notes, DB_SAID, day=10)

    result, applied = _run_then_apply(world, "--only", DB_KEY, cwd=world.notes)
    point = _point(result)
    assert point["status"] == "new" and point["existing_rule"] is None, point
    assert applied.returncode == 0, applied.stderr
    assert DB_RULE in (world.notes / "CLAUDE.md").read_text()
    assert _digest(shop_md) == before


def test_a_users_own_file_covers_a_point_in_every_project(world: World) -> None:
    user_md = world.home / ".claude" / "CLAUDE.md"
    user_md.write_text(f"# Mine\n\n{USER_LINE}\n")
    shop_md = world.shop / "CLAUDE.md"
    # Shown after the person's own line, it is the one the coverage answer names first:
    # notes-api does not load it, so the point is asked again against notes-api's rules.
    shop_md.write_text(f"# Shopfront\n\n{SHOP_LINE}\n")
    before = _digest(shop_md)
    world.said(world.shop, PNPM_SAID, day=1)
    world.said(world.notes, DB_SAID, day=10)

    result, applied = _run_then_apply(world, "--project", str(world.notes), "--only", DB_KEY,
                                      cwd=world.notes)
    point = _point(result)
    assert point["status"] == "restated" and point["existing_rule"] == USER_LINE[2:], point
    assert applied.returncode == 0, applied.stderr
    text = user_md.read_text()
    assert USER_LINE not in text and DB_RULE in text, applied.stdout  # rewritten in place
    assert not (world.notes / "CLAUDE.md").exists()
    assert _digest(shop_md) == before
