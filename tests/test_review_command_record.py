"""Claude Code 2.1.332 writes `/review fix the nulls` as the plain user message
`"/code-review fix the nulls"`, with no `<command-name>` tags (checked with the real client
against a fake server: only /review and /code-review are written so; /init, /simplify,
/security-review, /compact keep the tags). Read as typed, "/code-review" became a verified
request in three of three sessions and a proposed `.claude/commands/code-review.md`, the
name of a built-in. The fixture is a session written the way 2.1.332 writes one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from learn.records.proposal import Proposal, Quote, Verdict
from learn.report.targets import TargetChoice, choose, command_name
from learn.transcripts.parser import parse
from learn.transcripts.view.session import build_session
from learn.transcripts.view.typed import typed_text

FIXTURE = Path(__file__).parent / "fixtures" / "claude_21332" / "review_session.jsonl"


def test_the_plain_review_record_keeps_the_arguments_as_typed_and_names_the_command() -> None:
    typed = typed_text("/code-review only the null handling")
    assert (typed.text, typed.command) == ("only the null handling", "/code-review")
    assert typed.filled  # the words went into a command, as a tagged record's do


def test_the_plain_review_record_without_arguments_types_nothing() -> None:
    typed = typed_text("/code-review")
    assert (typed.text, typed.command) == ("", "/code-review")


@pytest.mark.parametrize("raw", [
    "/usr/bin/env python3 fails here, why",  # a path
    "/explain the retry loop",  # not a command of 2.1.332's: sent to the model as typed
    "/code-reviewer is the agent to use",  # another word
    "/review the diff please",  # /review itself is written as /code-review, never as typed
])
def test_a_message_starting_with_a_slash_is_otherwise_typed(raw: str) -> None:
    typed = typed_text(raw)
    assert (typed.text, typed.command) == (raw, None)


def test_the_rule_is_claude_codes_only() -> None:
    typed = typed_text("/code-review x", provider="codex")
    assert (typed.text, typed.command) == ("/code-review x", None)


def test_a_2_1_332_session_counts_the_review_arguments_and_not_the_command_name() -> None:
    session = build_session(parse(FIXTURE))
    turns = [(t.text, t.command) for t in session.human_turns]
    assert turns == [
        ("the orders table keeps getting nulls in shipped_at, look at src/orders.py", None),
        ("only the null handling in the orders module", "/code-review"),
        ("/usr/local/bin/python3 is the interpreter the cron job uses, check it", None),
    ]
    assert not any("/code-review" in t.text for t in session.human_turns)


@pytest.mark.parametrize(("label", "name"), [
    ("code-review", "my-code-review"), ("Review", "my-review"), ("init", "my-init"),
    ("security review", "my-security-review"), ("learn", "my-learn"),
    ("deploy staging", "deploy-staging"), ("reviewer notes", "reviewer-notes"),
])
def test_a_proposed_command_is_never_named_like_a_built_in(label: str, name: str) -> None:
    assert command_name(label) == name


def test_the_command_file_of_a_request_named_code_review_is_not_code_review_md(
        tmp_path: Path) -> None:
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    quotes = tuple(Quote(s, "review the null handling", f"2026-12-0{i + 1}T00:00:00+00:00",
                         str(project)) for i, s in enumerate("abc"))
    p = Proposal("request", "code-review", "review the null handling", 3, 3, None, quotes,
                 verdict=Verdict(True, "review the null handling", "workflow", "project", 0.9))
    target = choose(p, TargetChoice(project_dir=project, follow_quotes=True))
    assert target.path == project / ".claude" / "commands" / "my-code-review.md"
