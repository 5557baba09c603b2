"""A fix's command is compared with what ran the same way on both sides (learn.mining.commands):
quoting, whitespace, typography, the render's `…` cut, and paths the render made relative.

On a real project a fix repeated in three sessions was dropped: quote characters were
stripped from the model's command but not from what ran, so a command ending in a quote
never matched itself; commands copied up to the render's cut were dropped as "never ran".
"""

from __future__ import annotations

from _mining_helpers import make_session, tool, user

from learn.mining.commands import command_key, command_ran, starts_with
from learn.mining.verify import session_commands, verify_candidates
from learn.records.candidate import MinedCandidate
from learn.render import render_transcript, spoken_text
from learn.render.render import TOOL_SUMMARY_CHARS


def fix(command: str) -> MinedCandidate:
    return MinedCandidate(kind="fix", text="the fix", command=command)


def kept(session_items: list, *commands: str) -> list[str | None]:  # type: ignore[type-arg]
    s = make_session(session_items)
    r = verify_candidates([fix(c) for c in commands], spoken_text(s),
                          commands=session_commands(s))
    return [c.command for c in r.kept]


def test_a_command_ending_in_a_quote_matches_itself() -> None:
    ran = 'git commit -m "fix the build"'
    items = [user("commit it"), tool("Bash", ran, 0, command=ran)]
    assert kept(items, ran) == [ran]
    assert kept(items, f"`{ran}`") == [f"`{ran}`"]  # the model's backticks
    assert kept(items, "git commit -m “fix the build”") == ["git commit -m “fix the build”"]
    assert kept(items, "pytest -k 'slow'") == []  # what never ran still does not pass
    assert command_key(ran) == command_key(f"  `{ran}` ") == command_key(ran.upper().lower())


def test_a_command_copied_up_to_the_renders_cut_is_the_command_that_ran() -> None:
    long = ("docker compose -f docker-compose.ci.yml run --rm --no-deps -e PYTHONPATH=/app "
            "-e DATABASE_URL=postgres://ci@db/ci_test api python -m pytest tests/integration "
            "-x -q --maxfail=1 --durations=20 --junitxml=/app/reports/integration-junit.xml "
            "--cov=api --cov-report=xml:/app/reports/coverage.xml")
    assert len(long) > TOOL_SUMMARY_CHARS
    s = make_session([user("run the integration tests"), tool("Bash", long, 0, command=long)])
    line = next(x for x in render_transcript(s).splitlines() if x.startswith("TOOL: "))
    shown = line[len("TOOL: Bash("):-1]
    assert shown.endswith("…") and len(shown) <= TOOL_SUMMARY_CHARS + 1
    cmds = session_commands(s)
    # With the cut mark, and without it (the model dropped the `…`): both ran.
    for copied in (shown, shown.rstrip("…"), shown.replace("…", "...")):
        assert command_ran(copied, cmds), copied
    # A short prefix is not a cut copy: "docker compose" is part of many commands.
    assert not command_ran("docker compose …", cmds)
    assert not command_ran("docker compose -f docker-compose.ci.yml run", cmds)
    # `go test ./...` ends in three dots and is a whole command.
    go = make_session([tool("Bash", "go test ./...", 0, command="go test ./...")])
    assert command_ran("go test ./...", session_commands(go))
    assert not command_ran("go test ./foo", session_commands(go))


def test_a_command_as_the_render_showed_it_relative_to_the_project_ran() -> None:
    ran = "/proj/.venv/bin/pytest /proj/tests/test_api.py -q"
    s = make_session([tool("Bash", ran, 0, command=ran)])
    assert "TOOL: Bash(.venv/bin/pytest tests/test_api.py -q)" in render_transcript(s)
    assert command_ran(".venv/bin/pytest tests/test_api.py -q", session_commands(s))


def test_prefix_matching_is_by_words_in_every_segment() -> None:
    assert starts_with(("git", "push", "--force"), "cd web && git push --force origin main")
    assert starts_with(("git", "push"), "GIT_SSH_COMMAND=ssh git push")
    assert not starts_with(("git", "push", "--force"), "git push origin main --force")
    assert not starts_with(("git", "push", "-f"), "git push --force-with-lease")
