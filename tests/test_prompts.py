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
