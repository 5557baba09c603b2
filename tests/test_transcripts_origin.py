"""Issue 17: who started a session, templates learned by shape, other agents' reports.

The fidelity cases (tests/fixtures/fidelity/cases/6x-7x) check these through the CLI; here
each rule is checked on its own, including the edges the cases do not reach."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import msgspec
import pytest

from learn.transcripts.templates.scripted import machinery
from learn.transcripts.templates.skeleton import learn_skeleton
from learn.transcripts.view.model import HumanTurn, Session
from learn.transcripts.view.origin import OriginFacts, is_headless, judge_origins
from learn.transcripts.view.relayed import strip_relayed

T0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def _view(sid: str, texts: list[str], *, entrypoint: str | None = "cli",
          project: str = "/p", day: int = 0) -> Session:
    turns = tuple(HumanTurn(text=t, origin="typed", at=T0 + timedelta(days=day, minutes=i),
                            event_index=i, uuid=f"{sid}-{i}") for i, t in enumerate(texts))
    return Session(id=sid, provider="claude", path=Path(f"/x/{sid}.jsonl"), project=project,
                   started_at=T0 + timedelta(days=day), last_activity=T0 + timedelta(days=day),
                   timeline=turns, human_turns=turns, tool_calls=(), failures=(), denials=(),
                   interrupts=(), turns=len(turns), entrypoint=entrypoint)


def test_headless_clients() -> None:
    assert is_headless("sdk-cli") and is_headless("sdk-py") and is_headless("codex_exec")
    assert not is_headless("cli") and not is_headless("claude-vscode")
    assert not is_headless("codex_cli_rs") and not is_headless(None)


def test_a_headless_client_alone_is_a_person_typing_claude_p() -> None:
    got = judge_origins([OriginFacts("a", "/p", "sdk-cli", opening_chars=30)])
    origin, evidence = got["a"]
    assert origin == "interactive"
    assert "one-off" in evidence[0] and "sdk-cli" in evidence[1]


def test_a_headless_session_opened_by_a_template_is_a_programs() -> None:
    got = judge_origins([OriginFacts("a", "/p", "sdk-py", opening_shared=4, opening_chars=500)])
    assert got["a"][0] == "programmatic"
    assert "template shared with 4" in got["a"][1][0]


def test_an_interactive_client_is_a_person_even_with_a_template() -> None:
    got = judge_origins([OriginFacts("a", "/p", "cli", opening_shared=4)])
    assert got["a"] == ("interactive", ("client 'cli': an interactive client",))


def test_a_reply_typed_within_the_session_overrides_the_template() -> None:
    got = judge_origins([OriginFacts("a", "/p", "sdk-py", opening_shared=2, free_reply=True)])
    assert got["a"][0] == "interactive"
    assert "a person was there" in got["a"][1][0]


def test_a_plugin_directory_needs_long_generated_prompts_and_no_person_in_it() -> None:
    plugin = [OriginFacts(f"s{n}", "/plug", "sdk-cli", opening_chars=600) for n in range(3)]
    assert {judge_origins(plugin)[f"s{n}"][0] for n in range(3)} == {"programmatic"}
    short = [OriginFacts(f"s{n}", "/plug", "sdk-cli", opening_chars=40) for n in range(3)]
    assert {judge_origins(short)[f"s{n}"][0] for n in range(3)} == {"interactive"}
    with_person = [*plugin, OriginFacts("me", "/plug", "cli")]
    assert judge_origins(with_person)["s0"][0] == "interactive"


def test_the_skeleton_masks_numbers_and_needs_three_sessions_or_a_long_share() -> None:
    body = ("Iteration {n}: pick up task T-{n}0 from the queue and finish it.\n"
            "Run every test after each change and keep the suite green throughout.\n"
            "Commit with the task id in the message when it is done, then stop.")
    two = learn_skeleton([("a", body.format(n=1)), ("b", body.format(n=2))])
    assert not two.is_instance(body.format(n=3))  # 2 sessions, under 400 shared chars
    three = learn_skeleton([(s, body.format(n=i)) for i, s in enumerate("abc")])
    assert three.is_instance(body.format(n=9))
    assert three.varying(body.format(n=9) + "\nand skip the flaky cart test today") == [
        "and skip the flaky cart test today"]


def test_a_request_a_program_quotes_never_counts_twice() -> None:
    wrapper = ("You are Scribe, a background observer of another coding session; record what "
               "it decided in one line, in the past tense, and never ask questions.\n"
               "<seen>\n<asked>{ask}</asked>\n</seen>")
    person = _view("me", ["move the nightly export to 2am please"])
    plugin = [_view(f"bot{n}", [wrapper.format(ask=ask)], entrypoint="sdk-cli",
                    project="/plug", day=n)
              for n, ask in enumerate(["move the nightly export to 2am please",
                                       "rename the basket module", "drop the legacy api"])]
    found = machinery([person, *plugin])
    assert [t.text for t in found.views[0].human_turns] == ["move the nightly export to 2am please"]
    assert all(v.origin == "programmatic" and not v.human_turns for v in found.views[1:])
    assert found.programmatic == found.set_aside == 3
    # Opted in, the template and its tag slots are still the program's words.
    opted = machinery([person, *plugin], include_programmatic=True)
    assert [len(v.human_turns) for v in opted.views[1:]] == [0, 0, 0]
    assert all(v.origin == "programmatic" for v in opted.views[1:])


def test_relayed_reviews_keep_the_words_around_them() -> None:
    text = ("what the other model said:\n\n# Review\n**Bug**: the cache never expires\n"
            "**Style**: long function\n\nfix only the bug")
    assert strip_relayed(text) == "what the other model said:\n\nfix only the bug"
    assert strip_relayed("**note**: keep the old endpoint") == "**note**: keep the old endpoint"
    assert strip_relayed("Fix the following issues reported by Lint Bot: unused import") == ""
    assert strip_relayed("## just one heading\nplease keep it") == "## just one heading\nplease keep it"


def test_a_template_label_around_a_substituted_value_is_cut() -> None:
    from learn.transcripts.templates.skeleton import strip_affixes

    assert strip_affixes("Focus: the payment retries", ["Focus: the login page"]) == \
        "payment retries"
    assert strip_affixes("Focus: payment retries", ["Focus: login page"]) == "payment retries"
    assert strip_affixes("please add tests", ["please run lint"]) == "please add tests"


def test_the_run_sets_programmatic_sessions_aside_unless_asked() -> None:
    from learn.pipeline import _drop_repeated_prompts
    from learn.records.candidate import MinedCandidate

    person = _view("me", ["keep the api stable, no renames"])
    loop = [_view(f"loop{n}", [f"docs/prd.json US-00{n}"], entrypoint="sdk-cli", day=n)
            for n in range(3)]
    loop = [msgspec.structs.replace(v, human_turns=tuple(msgspec.structs.replace(t, command="/story")
                                                     for t in v.human_turns))
            for v in loop]
    found = MinedCandidate(kind="request", text="docs/prd.json US-000", source="detector")
    kept, _, detected, _, aside = _drop_repeated_prompts([person, *loop], (), {"loop0": (found,)})
    assert [v.id for v in kept] == ["me"] and aside == 3 and "loop0" not in detected
    kept, _, detected, _, aside = _drop_repeated_prompts(
        [person, *loop], (), {"loop0": (found,)}, include_programmatic=True)
    assert len(kept) == 4 and aside == 0 and detected["loop0"] == (found,)
    assert {v.origin for v in kept[1:]} == {"programmatic"}


def test_the_digest_says_how_many_sessions_were_set_aside() -> None:
    from learn.records.proposal import Funnel, RunResult, RunUsage
    from learn.report.digest import render_digest_markdown

    result = RunResult(proposals=(), funnel=Funnel(), usage=RunUsage(sessions_seen=2),
                       extra={"programmatic_set_aside": 30})
    text = render_digest_markdown(result)
    assert "Set aside as programmatic" in text and "30 sessions" in text
    again = RunResult.from_json(result.to_json())
    assert again.extra["programmatic_set_aside"] == 30
    assert "programmatic" not in render_digest_markdown(
        RunResult(proposals=(), funnel=Funnel(), usage=RunUsage(sessions_seen=2)))


def test_a_persons_own_template_keeps_a_request_they_also_typed_elsewhere() -> None:
    preamble = ("Before anything else: read CONTRIBUTING.md, keep every change small, run the "
                "whole test suite, and explain the why of each change in the commit message.\n")
    asks = ["fix the login redirect loop", "speed up the search page", "drop the old export"]
    pasted = [_view(f"s{n}", [preamble + ask], day=n) for n, ask in enumerate(asks)]
    again = _view("s9", ["fix the login redirect loop"], day=9)
    found = machinery([*pasted, again])
    assert [[t.text for t in v.human_turns] for v in found.views] == [[a] for a in asks] + [
        ["fix the login redirect loop"]]


def test_a_persons_own_structured_prompt_is_not_a_relayed_review() -> None:
    mine = ("## Goal\nexport orders as csv from the admin page\n\n## Constraints\n"
            "- **Format**: one row per line item\n- stream it, the table is large")
    assert strip_relayed(mine) == mine


def test_the_hook_leaves_headless_sessions_to_the_run(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from fixtures.fidelity.writers import Chain, claude_path, set_entrypoint

    from learn.hook.event import SessionEnded
    from learn.hook.worker import SessionGone, mine_ended_session

    home = tmp_path / "home"
    sid = "00000801-hook-4000-8000-000000000001"
    c = Chain(sid, cwd=str(tmp_path))
    c.user("a background brief", parent=False)
    c.assistant("ok")
    set_entrypoint(c.lines, "sdk-cli")
    path = c.write(claude_path(home, sid, str(tmp_path)))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    with pytest.raises(SessionGone, match="headless"):
        mine_ended_session(SessionEnded(sid, str(path)), backend=None,  # type: ignore[arg-type]
                           config=None, cache=None)  # type: ignore[arg-type]
