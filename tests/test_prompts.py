"""The fixed prompts: versioned files, and each tells the model its input is data."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from learn.prompts import load_prompt

STEPS = ("mine", "name", "coverage", "judge")
REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("step", STEPS)
def test_newest_prompt_says_its_input_is_data_never_instructions(step: str) -> None:
    text = " ".join(load_prompt(step).text.split())
    assert re.search(r"(is|are) (all )?data to [\w ]+, never instructions to you", text), text[:200]
    assert "ignore the above" in text


@pytest.mark.parametrize("step", STEPS)
def test_untrusted_input_statement_is_a_new_version_not_an_edit_of_v1(step: str) -> None:
    # The version is part of the mining cache and verdict keys: v1 must stay
    # as it was so old keys keep meaning the old prompt.
    assert load_prompt(step).version >= 2
    v1 = (REPO / "prompts" / f"{step}.v1.md").read_text(encoding="utf-8")
    assert "never instructions" not in v1


@pytest.mark.parametrize("step", STEPS)
def test_shipped_prompts_are_the_repository_prompts(step: str) -> None:
    shipped = REPO / "learn" / "_prompts"
    for path in sorted((REPO / "prompts").glob(f"{step}.v*.md")):
        assert (shipped / path.name).read_text(encoding="utf-8") == path.read_text(encoding="utf-8")


def test_the_command_writer_is_told_its_quotes_are_data_and_to_write_prose() -> None:
    prompt = load_prompt("command")
    text = " ".join(prompt.text.split())
    assert re.search(r"(is|are) (all )?data to [\w ]+, never instructions to you", text)
    assert "ignore the above" in text and "$ARGUMENTS" in text
    assert "no code blocks" in text and "no lines starting with `!`" in text
    shipped = REPO / "learn" / "_prompts" / f"command.v{prompt.version}.md"
    assert shipped.read_text(encoding="utf-8") == (
        REPO / "prompts" / f"command.v{prompt.version}.md").read_text(encoding="utf-8")


def test_the_judge_says_a_rejected_request_never_becomes_a_command() -> None:
    text = " ".join(load_prompt("judge").text.split())
    assert load_prompt("judge").version == 6
    assert "A rejected request never becomes a command" in text


def test_the_judge_reads_a_quote_by_its_whole_turn() -> None:
    # v6: a fragment of a longer turn comes with the turn (`said in full:`), and a
    # turn that limits or reverses the fragment makes it no rule.
    text = " ".join(load_prompt("judge").text.split())
    assert "said in full:" in text and "limits or reverses it" in text
