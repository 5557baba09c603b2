"""A Codex custom prompt's turn names the command it ran, as a Claude Code slash command's does.

Codex writes only the expanded body of `/prompts:speckit.specify ...` into the rollout (the
frontmatter stripped, nothing naming the prompt), and learn cut the body to the person's
arguments: `learn show` and the miner read "YOU: <arguments>" with no `/speckit.specify`,
and a `/speckit.clarify` run with no arguments left no trace of which command ran. The
body names itself (learn.transcripts.view.prompt_bodies), so the turn carries the command
with the arguments as its text, and a command run with none is decided exactly as Claude
Code's argument-less command is. Fixture bodies are short paraphrases in spec-kit's shape.
"""

from __future__ import annotations

import json
from pathlib import Path

from learn.render import render_transcript
from learn.transcripts.parser import parse
from learn.transcripts.view.prompt_bodies import filled_prompt, prompt_body
from learn.transcripts.view.replay import replay_fingerprints
from learn.transcripts.view.session import build_session
from learn.transcripts.view.typed import Typed, typed_text

HEAD = """## User Input

```text
{args}
```

You **MUST** consider the user input before proceeding (if not empty).

## Outline

"""

# specify: says what was typed after it.
SPECIFY = HEAD + """Whatever the person wrote after `/speckit.specify` in the message that started this
is the description of the feature; never ask for it again unless it is empty.

1. Pick a short branch name of two to four words from the description.
2. Run `.specify/scripts/bash/create-new-feature.sh --json` once and read BRANCH_NAME.
3. Fill the spec template section by section, marking at most three open questions.
4. Report the branch, the spec path and whether `/speckit.clarify` or `/speckit.plan` is next."""

# clarify, as releases wrote it before extension hooks: nothing but its own steps.
CLARIFY = HEAD + """Goal: Detect and reduce ambiguity in the feature spec of the current branch, and write
each answer back into the spec. Run this before `/speckit.plan`; if the spec is missing,
tell the person to run `/speckit.specify` first.

1. Run `.specify/scripts/bash/check-prerequisites.sh --json --paths-only` and read FEATURE_SPEC.
2. Scan the spec for gaps: scope, data, flows, limits, failure cases, terms.
3. Ask at most five questions, one at a time, each with a recommended answer.
4. After each answer, add it under `## Clarifications` and update the section it touches.

Context for prioritization: {args}"""

# plan, as the releases with extension hooks wrote it: it reads its own hooks.
PLAN_WITH_HOOKS = HEAD + """1. If `.specify/extensions.yml` exists, read the entries under `hooks.before_plan`
   and run the mandatory ones before anything else.
2. Read the spec and the constitution, then fill the plan template: technical context,
   research, data model, contracts, quickstart.
3. When the plan is written, read the entries under `hooks.after_plan` the same way.
4. Report the branch, the plan's path and the files generated; `/speckit.tasks` is next."""

# Another tool's prompt in the same shape that says nothing of its name.
UNNAMED = HEAD + """1. Read the plan and the task list of the feature the branch names.
2. For every task marked done, find the code that does it and say where it is.
3. Report what is missing, most blocking first, and stop: no code changes in this step.
4. Keep the report under forty lines; list each gap with the file it belongs in."""

SID = "019a0bcd-1234-7abc-8def-0123456789ab"


def _rollout(tmp_path: Path, prompts: list[str]) -> Path:
    """A Codex 0.104 rollout: each prompt as Codex writes it, with a reply after it."""
    lines: list[tuple[str, dict[str, object]]] = [
        ("session_meta", {"id": SID, "cwd": "/home/me/shop", "originator": "codex_cli_rs",
                          "cli_version": "0.104.0", "source": "cli"}),
    ]
    for prompt in prompts:
        lines.append(("event_msg", {"type": "user_message", "message": prompt, "images": []}))
        lines.append(("event_msg", {"type": "agent_message", "message": "Working on it."}))
    path = tmp_path / f"rollout-2026-02-10T10-00-00-{SID}.jsonl"
    path.write_text("\n".join(json.dumps({"timestamp": f"2026-02-10T10:00:{i:02d}.000Z",
                                          "type": kind, "payload": payload})
                              for i, (kind, payload) in enumerate(lines)) + "\n")
    return path


def test_a_spec_kit_body_keeps_the_arguments_and_names_its_command() -> None:
    got = typed_text(SPECIFY.format(args="a wishlist page where shoppers save items"),
                     provider="codex")
    assert got == Typed("a wishlist page where shoppers save items", "prompt-body", "/speckit.specify")
    assert got.filled


def test_each_way_a_body_names_itself_is_read() -> None:
    assert prompt_body(CLARIFY.format(args="")) == ([], "/speckit.clarify")
    assert prompt_body(PLAN_WITH_HOOKS.format(args="use SQLite")) == (["use SQLite"], "/speckit.plan")
    # What the prompt cuts is unchanged.
    assert filled_prompt(PLAN_WITH_HOOKS.format(args="use SQLite")) == ["use SQLite"]


# An older analyze body: read-only, and it mentions the commands around it.
ANALYZE = HEAD + """**STRICTLY READ-ONLY**: change no file; write a report of what disagrees.

1. Run this only after `/speckit.tasks` has written the task list.
2. Compare the spec, the plan and the tasks: duplicates, gaps, terms used two ways.
3. List every finding with its severity and where it is, at most fifty of them.
4. If anything is critical, say to fix it before `/speckit.implement`; edit nothing."""


def test_a_body_of_a_release_that_names_nothing_is_known_by_its_own_line() -> None:
    assert prompt_body(ANALYZE.format(args="focus on the refund flow")) == \
        (["focus on the refund flow"], "/speckit.analyze")


def test_a_body_that_names_nothing_is_cut_as_before_with_no_command() -> None:
    assert typed_text(UNNAMED.format(args="milestone 2 only"), provider="codex") == \
        Typed("milestone 2 only", "prompt-body", None)
    assert typed_text("make the wishlist button blue", provider="codex").command is None


def test_the_persons_words_never_name_the_command() -> None:
    # Their words stand in the body twice (the input section and the context line), and
    # hold another command's script and hook: the body is still clarify.
    args = "why does setup-plan skip hooks.before_tasks here?"
    got = typed_text(CLARIFY.format(args=args), provider="codex")
    assert got == Typed(args, "prompt-body", "/speckit.clarify")


def test_a_body_whose_file_is_on_disk_is_named_too() -> None:
    template = "---\ndescription: Write the spec\n---\n\n" + SPECIFY.format(args="$ARGUMENTS")
    got = typed_text(SPECIFY.format(args="gift cards at checkout"),
                     fingerprints=replay_fingerprints([template]), provider="codex")
    assert got == Typed("gift cards at checkout", "replayed-command", "/speckit.specify")


def test_a_command_run_without_arguments_is_decided_as_claude_codes() -> None:
    codex = typed_text(CLARIFY.format(args=""), provider="codex")
    claude = typed_text("<command-name>/speckit.clarify</command-name>\n"
                        "<command-message>speckit.clarify</command-message>")
    # The command is named, nothing is typed: neither is a saying to mine.
    assert (codex.text, codex.command) == (claude.text, claude.command) == ("", "/speckit.clarify")


def test_learn_show_and_the_miner_read_the_command_with_its_arguments(tmp_path: Path) -> None:
    path = _rollout(tmp_path, [SPECIFY.format(args="a wishlist page where shoppers save items"),
                               CLARIFY.format(args=""),
                               "what are you asking about?"])
    view = build_session(parse(path))
    turns = [(t.text, t.command) for t in view.human_turns]
    assert turns[0] == ("a wishlist page where shoppers save items", "/speckit.specify")
    assert turns[-1] == ("what are you asking about?", None)
    assert render_transcript(view).splitlines()[0] == \
        "USER (running /speckit.specify with): a wishlist page where shoppers save items"
