"""A project's "Did the rules work?" holds the rules that load in it, nothing of another's.

Found end to end: shopfront's CLAUDE.md held a line about keeping the database real in
tests, and the person said so in shopfront and in notes-api. `learn run --all-projects`
found the point written (shopfront's line covers it there) and recorded that line as a
rule in place in every project the point was said in, notes-api too. A plain `learn run`
in notes-api then listed shopfront's line under "Did the rules work?", a file notes-api's
agent never reads (learn.reduce.rules.loads_in), so nothing said in notes-api could
tell whether it works.

Each case runs the real CLI (`python -m learn`, a temp HOME) against the fake Messages
server, whose coverage answer names the rule line that shares the point's subject. The
fixture text is written for this test.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fakes.anthropic_server import FakeAnthropicServer, default_tool_input, items_in
from fakes.http_server import RecordedRequest

from evals.builder import ClaudeSession, session_id

REPO = Path(__file__).resolve().parents[1]
DB_SAID = "no fake database client in these tests, talk to the real one"
PNPM_SAID = "install packages with pnpm in this repo, npm breaks the lockfile"
BRANCH_SAID = "open a branch for every change, never commit on main directly"
SUBJECTS = {DB_SAID: ("database", "real-database-in-tests"),
            PNPM_SAID: ("pnpm", "pnpm-for-installs"),
            BRANCH_SAID: ("branch", "branch-per-change")}
SHOP_LINE = "- Tests run against the real database; a mocked database client hides bugs."
NOTES_LINE = "- Use pnpm for every install here; npm rewrites the lockfile."
USER_LINE = "- Work on a branch for each change; main only moves through a merge."


def _subject(text: str) -> tuple[str, str] | None:
    return next((s for said, s in SUBJECTS.items() if said in text), None)


def _answer(req: RecordedRequest) -> Mapping[str, Any]:
    tool, text = req.tool_name or "", req.user_text
    if tool == "record_candidates":
        return {"candidates": [{"kind": "directive", "text": t} for t in SUBJECTS if t in text]}
    items = items_in(text)
    if tool == "assign_labels":
        return {"labels": [{"id": i, "label": s[1]} for i, _, t in items
                           if (s := _subject(t)) is not None]}
    if tool == "check_coverage":
        # The RULES section only: the line that shares the point's subject, in any file.
        rules = text.partition("RULES:\n")[2].split("\n\n")[0]
        lines = re.findall(r"^(\d+)\. (.*)$", rules, re.MULTILINE)
        verdicts = []
        for i, _, t in items:
            word = (_subject(t) or ("", ""))[0]
            hits = [int(n) for n, line in lines if word and word in line.lower()]
            verdicts.append({"id": i, "verdict": "rule", "rule_index": hits[-1]} if hits
                            else {"id": i, "verdict": "new"})
        return {"verdicts": verdicts}
    if tool == "record_verdicts":
        return {"verdicts": [{"id": i, "accepted": True, "category": "workflow",
                              "scope": "project", "confidence": 0.9, "summary": t,
                              "rationale": "said in two sessions"} for i, _, t in items]}
    return default_tool_input(tool)


def _said(home: Path, project: Path, text: str, day: int) -> None:
    """Two sessions in `project`, two days apart, each saying `text` once."""
    for i in range(2):
        s = ClaudeSession(session_id(f"{project.name}-{text}-{i}"), str(project),
                          datetime(2026, 3, day + 2 * i, 10, tzinfo=UTC))
        s.user("pick up where we stopped yesterday")
        s.user(text)
        s.assistant("Will do.")
        s.write(home / ".claude")


def _cli(home: Path, url: str, *args: str, cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ANTHROPIC_", "LEARN_", "XDG_", "CLAUDE"))}
    env.pop("CODEX_HOME", None)
    env.update(HOME=str(home), PYTHONPATH=str(REPO), ANTHROPIC_API_KEY="test-key",
               ANTHROPIC_BASE_URL=url)
    done = subprocess.run([sys.executable, "-m", "learn", *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _learn(home: Path, url: str, *args: str, cwd: Path) -> dict[str, Any]:
    out = _cli(home, url, *args, "--since", "2026-01-01", "--json", "--quiet", "--yes", cwd=cwd)
    result: dict[str, Any] = json.loads(out)
    return result


def _rules(result: Mapping[str, Any]) -> dict[str, str]:
    """The rules "Did the rules work?" lists (the digest's, from the run's outcomes):
    label -> the file it is written in."""
    return {o["label"]: o["file"] for o in result["outcomes"]}


def test_a_projects_run_measures_only_the_rules_that_load_in_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    shop, notes = home / "code" / "shopfront", home / "code" / "notes-api"
    for project in (shop, notes):
        (project / ".git").mkdir(parents=True)
    (shop / "CLAUDE.md").write_text(f"# Shopfront\n\n## Tests\n\n{SHOP_LINE}\n")
    (notes / "CLAUDE.md").write_text(f"# Notes API\n\n## Tooling\n\n{NOTES_LINE}\n")
    (home / ".claude" / "CLAUDE.md").write_text(f"# Mine\n\n{USER_LINE}\n")
    _said(home, shop, DB_SAID, day=1)
    _said(home, notes, DB_SAID, day=5)
    _said(home, notes, PNPM_SAID, day=10)
    _said(home, notes, BRANCH_SAID, day=15)

    with FakeAnthropicServer(responder=_answer) as fake:
        every = _learn(home, fake.base_url, "run", "--all-projects", cwd=home)
        # The run over every project measures shopfront's line where it loads.
        assert _rules(every).get("real-database-in-tests") == str(shop / "CLAUDE.md"), every
        mine = _learn(home, fake.base_url, "run", cwd=notes)

    # notes-api's own line and the person's own, never shopfront's (it was listed there).
    assert _rules(mine) == {"pnpm-for-installs": str(notes / "CLAUDE.md"),
                            "branch-per-change": str(home / ".claude" / "CLAUDE.md")}, mine
    # The digest's section, re-rendered from the store in notes-api, says the same.
    digest = _cli(home, "http://127.0.0.1:9", "digest", cwd=notes)
    section = digest.partition("## Did the rules work?")[2].partition("\n## ")[0]
    assert "pnpm-for-installs" in section and "branch-per-change" in section, digest
    assert "real-database-in-tests" not in section, section
    for result in (every, mine):
        assert all(o["file"] != str(shop / "CLAUDE.md") or o["project"] == str(shop)
                   for o in result["outcomes"]), result["outcomes"]


def test_a_stored_runs_outcomes_are_loaded_only_where_their_file_loads(tmp_path: Path) -> None:
    # A run stored before the measure was fixed: shopfront's line measured as notes-api's.
    from learn.records.proposal import Funnel, RunResult, RunUsage
    from learn.report import runs

    home = Path.home()
    shop, notes = tmp_path / "shopfront", tmp_path / "notes-api"
    for project, line in ((shop, SHOP_LINE), (notes, NOTES_LINE)):
        (project / ".git").mkdir(parents=True)
        (project / "CLAUDE.md").write_text(f"# Rules\n\n{line}\n")
    user_md = home / ".claude" / "CLAUDE.md"
    user_md.parent.mkdir(parents=True, exist_ok=True)
    user_md.write_text(f"# Mine\n\n{USER_LINE}\n")
    outcomes = [{"key": f"directive:{label}", "label": label, "project": str(project),
                 "file": str(file)} for label, project, file in (
        ("real-database-in-tests", notes, shop / "CLAUDE.md"),
        ("real-database-in-tests", shop, shop / "CLAUDE.md"),
        ("pnpm-for-installs", notes, notes / "CLAUDE.md"),
        ("branch-per-change", notes, user_md))]

    def loader(since: datetime | None, project: str | None, every_state: bool) -> RunResult:
        return RunResult(proposals=(), funnel=Funnel(), usage=RunUsage(),
                         extra={"outcomes": outcomes, "project": project})

    runs.set_proposal_loader(loader)
    try:
        mine = runs.load_proposals(None, str(notes))
        every = runs.load_proposals(None, None)
    finally:
        runs.set_proposal_loader(None)
    assert mine is not None and every is not None
    assert [(o["label"], o["project"]) for o in mine.extra["outcomes"]] == [
        ("pnpm-for-installs", str(notes)), ("branch-per-change", str(notes))]
    assert [(o["label"], o["project"]) for o in every.extra["outcomes"]] == [
        ("real-database-in-tests", str(shop)), ("pnpm-for-installs", str(notes)),
        ("branch-per-change", str(notes))]
