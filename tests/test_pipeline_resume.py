"""A resumed session copies the earlier conversation into a new file; what was
said before the resume must not count as said in two sessions."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from evals.builder import ClaudeSession, session_id
from learn.config import load_config
from learn.pipeline import RunOptions, run_pipeline
from learn.transcripts import parse
from learn.transcripts.resume import own_turns
from learn.transcripts.session import build_session


def _t(day: int) -> datetime:
    return datetime(2026, 11, day, 9, 0, tzinfo=UTC)


def _sessions(home: Path) -> tuple[Path, Path, Path]:
    claude = home / ".claude"
    project = home / "code" / "app"
    project.mkdir(parents=True)
    a = ClaudeSession(session_id("resume-a"), str(project), _t(2))
    a.user("fix the flaky login test")
    a.denied_tool("Edit", {"file_path": f"{project}/src/generated/api.ts"},
                  "leave the generated files alone")
    b = ClaudeSession(session_id("resume-b"), str(project), _t(3))
    b.resume_from(a)  # copies a's turns, including the denial reason
    b.user("now the signup test")
    b.denied_tool("Bash", {"command": "git push --force"}, "never force push")
    c = ClaudeSession(session_id("resume-c"), str(project), _t(5))
    c.user("release it")
    c.denied_tool("Bash", {"command": "git push -f origin main"}, "never force push")
    return a.write(claude), b.write(claude), c.write(claude)


def test_copied_turns_belong_to_the_session_that_typed_them(tmp_path: Path) -> None:
    home = Path.home()
    pa, pb, _ = _sessions(home)
    sa, sb = build_session(parse(pa)), build_session(parse(pb))
    assert "leave the generated files alone" in [t.text for t in sb.human_turns]
    own = own_turns([sb, sa])  # order of the input does not matter
    assert own[sa.id] is sa
    assert [t.text for t in own[sb.id].human_turns] == ["now the signup test", "never force push"]


def test_a_resume_does_not_double_count_in_a_run(tmp_path: Path) -> None:
    _sessions(Path.home())
    result, _ = run_pipeline(
        RunOptions(all_projects=True, offline=True, show_all=True), load_config()
    )
    by_text = {p.text: p for p in result.proposals}
    # Said in b and in c: two sessions, proposed.
    assert by_text["never force push"].sessions == 2
    # Said once in a, copied into b by the resume: one session, not proposed.
    assert "leave the generated files alone" not in by_text
    assert result.extra["copied_from_resumed"] == 1
