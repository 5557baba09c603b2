"""typed_text: the words the person typed in one user text, and why the rest was dropped."""

from __future__ import annotations

import pytest

from learn.transcripts.view.replay import (
    replay_fingerprints,
)
from learn.transcripts.view.typed import Typed, typed_text


def test_plain_prompt_is_typed_whole() -> None:
    assert typed_text("  add a health check  ") == Typed("add a health check")


def test_reminder_appended_inside_the_block_is_stripped() -> None:
    raw = "fix the bug<system-reminder>hook said hi</system-reminder>"
    assert typed_text(raw).text == "fix the bug"


def test_excluded_text_is_empty_with_the_rule_name() -> None:
    assert typed_text("<ide_opened_file>a.py</ide_opened_file>") == Typed("", "ide-context")
    assert typed_text("   ") == Typed("", "empty")


# ---------------------------------------------------------------- item 5: slash commands

NEW_ORDER = ("<command-name>/deploy</command-name>\n<command-message>deploy</command-message>\n"
             "<command-args>staging --dry-run</command-args>")
OLD_ORDER = ("<command-message>deploy is running…</command-message>\n"
             "<command-name>/deploy</command-name>\n<command-args>staging --dry-run</command-args>")


@pytest.mark.parametrize("raw", [NEW_ORDER, OLD_ORDER], ids=["2.x", "1.0.x"])
def test_slash_command_arguments_are_typed_and_the_command_is_named(raw: str) -> None:
    assert typed_text(raw) == Typed("staging --dry-run", "command-args", "/deploy")


def test_a_command_without_arguments_names_the_command_and_types_nothing() -> None:
    assert typed_text("<command-message>review is running…</command-message>\n"
                      "<command-name>/review</command-name>") == Typed("", "command-tags", "/review")
    assert typed_text("<command-name>/review</command-name>\n<command-message>review"
                      "</command-message>\n<command-args></command-args>").text == ""


def test_client_setting_arguments_are_not_said_to_the_agent() -> None:
    raw = ("<command-name>/model</command-name>\n<command-message>model</command-message>\n"
           "<command-args>opus</command-args>")
    assert typed_text(raw) == Typed("", "command-tags", "/model")


def test_a_body_inlined_after_the_tags_is_not_typed_but_the_arguments_are() -> None:
    raw = OLD_ORDER + "\nDeploy the service to the named environment and post the link."
    assert typed_text(raw) == Typed("staging --dry-run", "command-body", "/deploy")


def test_a_person_quoting_a_command_tag_mid_sentence_is_speaking() -> None:
    raw = "why does the log show <command-name>/deploy</command-name> twice?"
    assert typed_text(raw).text == raw


# ---------------------------------------------------------------- item 7: Codex IDE wrapper

IDE = ("# Context from my IDE setup:\n\n## Active file: src/cart.py\n\n"
       "## Active selection of the file:\ndef total(items):\n    return sum(items)\n"
       "## Open tabs:\n- cart.py: src/cart.py\n- test_cart.py: tests/test_cart.py\n\n"
       "## My request for Codex:\nround the total to cents before returning it\n")


def test_codex_ide_wrapper_keeps_only_the_request() -> None:
    assert typed_text(IDE, provider="codex") == Typed(
        "round the total to cents before returning it", "ide-wrapper")


def test_codex_app_blocks_each_with_a_request_keep_every_request() -> None:
    raw = ("# Files mentioned by the user:\n\n## shot.png: /tmp/shot.png\n\n## My request:\n"
           "the header overlaps the menu\n\n# In app browser:\n- Current page: http://localhost:3000/\n\n"
           "## My request:\nand on this page too")
    assert typed_text(raw, provider="codex").text == (
        "the header overlaps the menu\n\nand on this page too")


def test_codex_wrapper_without_a_request_is_context_only() -> None:
    raw = "# Context from my IDE setup:\n\n## Open tabs:\n- cart.py: src/cart.py\n"
    assert typed_text(raw, provider="codex") == Typed("", "ide-wrapper")


def test_the_wrapper_rule_is_codex_only() -> None:
    assert typed_text(IDE).text.startswith("# Context from my IDE setup:")


@pytest.mark.parametrize("raw", [
    "## My request for Codex: why is the invoice total off by a cent?",
    "## My request for Codex:\nwhy is the invoice total off by a cent?",
    "## Active file: src/invoice.py\n\n## My request for Codex:\nwhy is the invoice total off by a cent?",
    "This block is automatically supplied ambient UI state, not part of the user's request.\n"
    "## My request for Codex:\nwhy is the invoice total off by a cent?",
])
def test_a_codex_request_heading_is_a_wrapper_whatever_precedes_it(raw: str) -> None:
    assert typed_text(raw, provider="codex").text == "why is the invoice total off by a cent?"


def test_a_request_heading_quoted_in_a_fence_is_the_persons_text() -> None:
    raw = "my notes say:\n```\n## My request for Codex:\nreview it\n```\nwhat does that heading do?"
    assert typed_text(raw, provider="codex").text == raw


# ---------------------------------------------------------------- item 8: template residue

SPEC_PROMPT = """---
description: Write a feature specification
---

## User Input

```text
$ARGUMENTS
```

You must consider the user input before proceeding, if it is not empty.

Given the feature description above, write the specification into the spec file and
report the branch name, the file path and whether the checklist passes.
"""


def test_codex_custom_prompt_keeps_only_the_arguments() -> None:
    fps = replay_fingerprints([SPEC_PROMPT])
    expanded = SPEC_PROMPT.split("---\n", 2)[2].replace(
        "$ARGUMENTS", "a coupon field on the checkout page, one code per order")
    out = typed_text(expanded, fingerprints=fps, provider="codex")
    assert out == Typed("a coupon field on the checkout page, one code per order", "replayed-command")


def test_a_replayed_template_with_no_arguments_is_not_typed() -> None:
    fps = replay_fingerprints([SPEC_PROMPT])
    expanded = SPEC_PROMPT.split("---\n", 2)[2].replace("$ARGUMENTS", "")
    assert typed_text(expanded, fingerprints=fps, provider="codex").text == ""


def test_positional_and_named_placeholders_split_the_template() -> None:
    template = ("Open ticket $TICKET and read every comment on it before you touch any code.\n\n"
                "Then fix it on branch $1, keeping the public interface of the module unchanged.")
    fps = replay_fingerprints([template])
    turn = template.replace("$TICKET", "SHOP-118").replace("$1", "fix/coupons")
    assert typed_text(turn, fingerprints=fps, provider="codex").text == "SHOP-118\nfix/coupons"


# ---------------------------------------------------------------- item 10: plan hand-offs

PLAN = ("# Plan: coupons\n\n1. Add a `coupon` column to orders.\n"
        "2. Validate codes in the checkout service and reject expired ones.\n")
TRAILER = ("If you need specific details from before exiting plan mode (like exact code snippets, "
           "error messages, or content you generated), read the full transcript at: "
           "/home/dev/.claude/projects/-home-dev-shop/0000.jsonl")


def test_a_plan_hand_off_is_not_typed() -> None:
    raw = f"Implement the following plan:\n\n{PLAN}\n\n{TRAILER}"
    assert typed_text(raw) == Typed("", "plan-handoff")


def test_what_the_person_added_around_a_plan_hand_off_is_typed() -> None:
    raw = (f"use the new migration tool for this\n\nImplement the following plan:\n\n{PLAN}\n\n"
           f"{TRAILER}\n\nand do not touch the payments module")
    assert typed_text(raw) == Typed(
        "use the new migration tool for this\nand do not touch the payments module", "plan-handoff")


def test_an_amendment_inside_a_saved_plan_is_typed() -> None:
    plan = ("# Plan: coupons\n\nAdd a coupon column to the orders table with a migration.\n\n"
            "Validate codes in the checkout service and reject the expired ones.\n")
    fps = replay_fingerprints([plan])  # the plan file under ~/.claude/plans
    amended = plan.replace("\n\nValidate", "\n\nalso log every rejected code\n\nValidate")
    assert typed_text(amended, fingerprints=fps).text == "also log every rejected code"
    handoff = f"Implement the following plan:\n\n{amended}"
    assert typed_text(handoff, fingerprints=fps) == Typed("also log every rejected code",
                                                          "plan-handoff")
    # Without the plan file nothing tells the amendment from the plan: none of it is typed.
    assert typed_text(handoff).text == ""


# ---------------------------------------------------------------- item 12: pasted agent output


def test_lines_pasted_from_the_terminal_ui_are_not_typed() -> None:
    raw = ("you said this earlier:\n"
           "● I updated the cart to round totals.\n"
           "  ⎿  Updated src/cart.py with 2 additions\n"
           "     and 1 removal\n"
           "\n"
           "but the test still fails on the empty cart")
    out = typed_text(raw)
    assert out == Typed("you said this earlier:\nbut the test still fails on the empty cart",
                        "pasted-output")


def test_lines_matching_an_earlier_assistant_message_are_not_typed() -> None:
    said = "The cache is keyed by user id, so two tabs share one entry and overwrite each other."
    raw = f"{said}\nthat is the bug, key it by session instead"
    out = typed_text(raw, assistant_texts=["Found it.\n" + said])
    assert out.text == "that is the bug, key it by session instead"
    assert typed_text(raw).text == raw  # no assistant text: nothing to match


def test_short_lines_are_never_taken_for_pasted_output() -> None:
    assert typed_text("yes, do it", assistant_texts=["Shall I? yes, do it"]).text == "yes, do it"


def test_an_early_record_with_command_contents_keeps_only_the_arguments() -> None:
    # Early builds: indented tags, a name without its slash, the body in <command-contents>.
    raw = ("<command-message>user:grammar is running…</command-message>\n"
           "    <command-name>user:grammar</command-name>\n"
           "    <command-args>the README only</command-args>\n"
           "    <command-contents>Check every documentation file for spelling and grammar"
           "</command-contents>")
    assert typed_text(raw) == Typed("the README only", "command-body", "/user:grammar")
