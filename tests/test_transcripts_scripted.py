"""Item 11 of issue 10: long prompts repeated across sessions are machinery, and a prompt
pasted by hand into many sessions is proposed once as "make this a command"."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from evals.builder import ClaudeSession, session_id
from learn.config import load_config
from learn.pipeline import RunOptions, run_pipeline
from learn.report.digest import render_digest_markdown
from learn.transcripts import parse
from learn.transcripts.templates.scripted import (
    REPEATED_MIN_CHARS,
    repeated_prompts,
    with_prompts,
    without_prompts,
)
from learn.transcripts.view.model import Session
from learn.transcripts.view.session import build_session

SCRIPT = (
    "You are Lamplighter, an autonomous maintenance agent for this service. Never push to "
    "main directly and never skip the test suite. Always write the changelog entry before "
    "the code. Pick the first unchecked item in TODO.md, do it, tick it, and stop. If a "
    "migration is involved, stop and leave a note instead of running it yourself."
)
CHECKLIST = (
    "My review checklist, apply all of it:\n\nEvery changed function has a test that fails "
    "without the change.\n\nNo new dependency without a written reason in the pull request.\n\n"
    "Error messages say what to do next and name the file involved, always.\n\n"
    "Public names stay as they are unless the task asks otherwise; list any that changed."
)


def _t(day: int) -> datetime:
    return datetime(2026, 11, day, 9, 0, tzinfo=UTC)


def _write(home: Path) -> list[Path]:
    claude = home / ".claude"
    project = home / "code" / "svc"
    project.mkdir(parents=True, exist_ok=True)
    paths = []
    for n in range(3):  # a harness: the script and nothing typed
        s = ClaudeSession(session_id(f"script-{n}"), str(project), _t(2 + n))
        s.user(SCRIPT)
        s.assistant("Ticked one item.")
        paths.append(s.write(claude))
    for n, ask in enumerate(["add retries to the fetcher", "cache the config", "drop python 3.9"]):
        s = ClaudeSession(session_id(f"hand-{n}"), str(project), _t(10 + n))
        s.user(ask)
        s.assistant("Done.")
        s.user(CHECKLIST)
        s.assistant("Applied.")
        paths.append(s.write(claude))
    return paths


def _views(home: Path) -> list[Session]:
    return [build_session(parse(p)) for p in _write(home)]


def test_long_prompts_in_three_sessions_are_found_and_told_apart(tmp_path: Path) -> None:
    assert len(SCRIPT) >= REPEATED_MIN_CHARS and len(CHECKLIST) >= REPEATED_MIN_CHARS
    found = {p.text: p for p in repeated_prompts(_views(tmp_path))}
    assert found[SCRIPT].sessions == 3 and not found[SCRIPT].by_hand
    assert found[CHECKLIST].sessions == 3 and found[CHECKLIST].by_hand


def test_two_sessions_or_a_short_repeat_is_not_a_scripted_prompt(tmp_path: Path) -> None:
    views = _views(tmp_path)
    assert repeated_prompts(views[:2] + views[3:5]) == []
    assert all(len(p.text) >= REPEATED_MIN_CHARS for p in repeated_prompts(views))


def test_removing_a_prompt_keeps_what_the_person_added_around_it(tmp_path: Path) -> None:
    views = _views(tmp_path)
    prompts = repeated_prompts(views)
    fps = with_prompts((), prompts)
    hand = without_prompts(views[3], fps)
    assert [t.text for t in hand.human_turns] == ["add retries to the fetcher"]
    assert all(t in hand.timeline for t in hand.human_turns)
    amended = CHECKLIST.replace("\n\nNo new", "\n\nignore the dependency rule this time\n\nNo new")
    s = ClaudeSession(session_id("hand-x"), "/x", _t(20))
    s.user(amended)
    view = build_session(parse(s.write(tmp_path / "x")))
    assert [t.text for t in without_prompts(view, fps).human_turns] == [
        "ignore the dependency rule this time"]
    assert without_prompts(views[0], ()) is views[0]


def test_a_run_mines_nothing_from_them_and_proposes_a_command_once() -> None:
    _write(Path.home())
    result, _ = run_pipeline(RunOptions(all_projects=True, offline=True, show_all=True),
                             load_config())
    [suggestion] = result.extra["make_command"]
    assert suggestion["sessions"] == 3
    assert suggestion["excerpt"].startswith("My review checklist")
    digest = render_digest_markdown(result)
    assert "## Make these commands" in digest and "(3 sessions)" in digest
    assert result.to_json()["make_command"] == [suggestion]


def test_the_pipeline_cuts_prompts_from_views_render_and_detector_candidates(
    tmp_path: Path,
) -> None:
    from learn.pipeline import _drop_repeated_prompts
    from learn.records.candidate import MinedCandidate
    from learn.render import render_transcript

    views = _views(tmp_path)
    quoted = MinedCandidate(kind="directive", text="Never push to main directly",
                            source="transcript_message")
    typed = MinedCandidate(kind="request", text="add retries to the fetcher",
                           source="transcript_message")
    detected = {views[0].id: (quoted,), views[3].id: (typed,)}
    kept, fps, found, suggestions, _ = _drop_repeated_prompts(views, (), detected)
    assert found == {views[0].id: (), views[3].id: (typed,)}
    assert kept[0].human_turns == () and [t.text for t in kept[3].human_turns] == [
        "add retries to the fetcher"]
    rendered = "\n".join(render_transcript(v, fps) for v in views)
    assert "Lamplighter" not in rendered and "review checklist" not in rendered
    assert [s["sessions"] for s in suggestions] == [3]
