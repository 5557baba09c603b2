"""End to end (issue 17): a HOME where a memory plugin's background sessions outnumber the
person's ten to one proposes exactly what the person's own sessions support, with the same
counts as without the plugin. The real anthropic SDK talks to the fake Messages server; the
plugin's sessions quote the person's real requests, the way such plugins do."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from fakes.anthropic_server import FakeAnthropicServer
from fixtures.fidelity.writers import Chain, claude_path, set_entrypoint
from test_e2e_run import _env, _learn

from evals.corpora import demo
from evals.gold import Gold
from evals.oracle import GoldOracle

PLUGIN_DIR = "/srv/lorekeeper/watch"
OPENING = """You are Lorekeeper, a background note-taker that watches another coding session and
writes down what it learned for later sessions.
Write one <note> per finding, in the past tense, naming the files and the decisions made.
Never address the person and never ask questions; if nothing was learned, answer <skip/>.

<watched_session>
  <person_asked>{ask}</person_asked>
  <asked_on>2026-06-{day:02d}</asked_on>
</watched_session>"""
FOLLOW = """Lorekeeper, keep watching the main session and note only what changed.
<watched_session>
  <person_asked>{ask}</person_asked>
  <tool_result>updated {n} lines</tool_result>
</watched_session>"""


def _person_sessions(home: Path) -> int:
    return sum(1 for p in home.rglob("*.jsonl") if "subagents" not in p.parts
               and not p.name.startswith("agent-"))


def _add_plugin(home: Path, gold: Gold, count: int) -> None:
    """`count` background SDK sessions in the plugin's own directory, each quoting two of
    the person's real typed sentences (the gold quotes)."""
    quotes = [q.text for q in gold.quotes]
    start = datetime(2026, 6, 1, tzinfo=UTC)
    for n in range(count):
        sid = f"{n:08d}-lore-4000-8000-{n:012d}"
        c = Chain(sid, cwd=PLUGIN_DIR)
        c.user(OPENING.format(ask=quotes[n % len(quotes)], day=1 + n % 28), parent=False)
        c.assistant("<note>Recorded.</note>")
        c.user(FOLLOW.format(ask=quotes[(n + 1) % len(quotes)], n=n))
        c.assistant("<skip/>")
        set_entrypoint(c.lines, "sdk-cli")
        for i, line in enumerate(c.lines):
            line["timestamp"] = (start + timedelta(hours=n, minutes=i)).isoformat()
        c.write(claude_path(home, sid, PLUGIN_DIR))


def _run(root: Path, gold: Gold, *extra: str) -> tuple[dict[str, Any], list[str]]:
    oracle = GoldOracle(gold)
    fake = FakeAnthropicServer(responder=lambda req: oracle.answer(req.tool_name, req.user_text))
    with fake:
        env = _env(root, fake)
        proc = _learn(["run", "--all-projects", "--since", "2026-01-01", "--json", "--yes",
                       "--quiet", *extra], env)
        assert proc.returncode in (0, 1), proc.stderr
        sent = [r.user_text for r in fake.requests]
        listed = _learn(["sessions", "--all-projects", "--since", "2026-01-01", "--json"], env)
        assert listed.returncode == 0, listed.stderr
    result = json.loads(proc.stdout)
    result["_listed"] = json.loads(listed.stdout)["sessions"]
    return result, sent


def _proposed(result: dict[str, Any]) -> dict[str, tuple[str, int, int]]:
    return {p["label"]: (p["kind"], p["sessions"], p["count"]) for p in result["proposals"]}


def test_a_plugin_outnumbering_the_person_ten_to_one_changes_nothing(tmp_path: Path) -> None:
    gold = demo.build(tmp_path / "alone")
    alone, _ = _run(tmp_path / "alone", gold)

    gold = demo.build(tmp_path / "with")
    home = tmp_path / "with" / "home"
    person = _person_sessions(home)
    _add_plugin(home, gold, 10 * person)
    with_plugin, sent = _run(tmp_path / "with", gold)

    expected = {name for name, g in gold.groups.items() if g.proposed}
    assert set(_proposed(alone)) == expected
    assert _proposed(with_plugin) == _proposed(alone)
    assert with_plugin["programmatic_set_aside"] == 10 * person
    assert alone["programmatic_set_aside"] == 0
    assert not [t for t in sent if "Lorekeeper" in t or "watched_session" in t]
    rows = [r for r in with_plugin["_listed"] if r["project"] == PLUGIN_DIR]
    assert len(rows) == 10 * person
    assert {r["origin"] for r in rows} == {"programmatic"}
    assert sum(r["human_turns"] for r in rows) == 0
    mine = [r for r in with_plugin["_listed"] if r["project"] != PLUGIN_DIR]
    assert {r["origin"] for r in mine} == {"interactive"}
    assert sum(r["human_turns"] for r in mine) == sum(r["human_turns"] for r in alone["_listed"])
