"""A password given in answer to the agent's question is gone from the session view
(Claude Code and Codex), and an ordinary answer to an ordinary question stays."""

from __future__ import annotations

from pathlib import Path

from fixtures.fidelity.writers import Chain, Rollout, claude_path
from secrets_corpus import ASKED_ANSWER, ASKED_PW, ASKED_QUESTION

from learn.secret_answers import MARKER
from learn.transcripts.parser import parse
from learn.transcripts.view.session import build_session


def _typed(path: Path) -> list[str]:
    return [t.text for t in build_session(parse(path)).human_turns]


def test_numbered_password_answer_is_redacted_in_a_claude_view(tmp_path: Path) -> None:
    c = Chain("00000000-0020-4000-8000-0000000000aa", cwd=str(tmp_path))
    c.user("deploy the staging box", parent=False)
    c.assistant(ASKED_QUESTION)
    c.user(ASKED_ANSWER)
    c.assistant("Which branch should I deploy?")
    c.user("Zq9x7Lm2-release")  # not asked for a secret: kept as typed
    typed = _typed(c.write(claude_path(tmp_path, "00000000-0020-4000-8000-0000000000aa", str(tmp_path))))
    assert typed == ["deploy the staging box", f"1. Skip for now\n2. {MARKER}\n3. 12 hour", "Zq9x7Lm2-release"]


def test_numbered_password_answer_is_redacted_in_a_codex_view(tmp_path: Path) -> None:
    r = Rollout("0199aaaa-0020-7000-8000-0000000000ab", cwd=str(tmp_path))
    r.user("deploy it")
    r.agent(ASKED_QUESTION)
    r.user(ASKED_ANSWER)
    typed = _typed(r.write(r.path(tmp_path)))
    assert ASKED_PW not in "".join(typed)
    assert typed[-1].startswith("1. Skip for now\n2. [REDACTED:")
