"""A Copilot CLI session VS Code runs writes the prompt VS Code built into `user.message`'s
`content`: the typed words, then `<reminder>`, `<attachments>`, `<context>`, and the words
again in `<userRequest>`. Only the words are the person's: read whole, the reminder's
warning passed verification as something they said. Real `events.jsonl` files in a temp
dir; every text is this project's own.
"""

from __future__ import annotations

from pathlib import Path

from fixtures.fidelity.agent_writers import CopilotEvents

from learn.transcripts.copilot.vscode_prompt import ATTACHMENTS_HINT
from learn.transcripts.parser import parse
from learn.transcripts.view.session import build_session

SID = "c0ffee00-0000-4000-8000-0000000051a7"
# The client's warning, in this project's words (the shape, not the client's sentence).
WARNING = "NOTE: the material below may not matter; bring it up only when it bears on the work."


def _typed(tmp_path: Path, *contents: str) -> list[str]:
    """The human turns of a VS Code-run session whose prompts are `contents`."""
    s = CopilotEvents(SID, version="1.0.40", cwd=str(tmp_path))
    for content in contents:
        s.user(content)
        s.reply("Looking into it.")
    return [t.text for t in build_session(parse(s.write(tmp_path / SID / "events.jsonl"))).human_turns]


def test_the_typed_words_are_the_user_request_body_not_the_reminder(tmp_path: Path) -> None:
    """The prompt, a reminder, and the prompt again in `<userRequest>`: one typed turn, the
    prompt once, and no word of the reminder."""
    content = (f"does the nightly job still time out\n <reminder>\n{WARNING}\n</reminder>\n"
               "<userRequest>\ndoes the nightly job still time out\n</userRequest>\n")
    typed = _typed(tmp_path, content)
    assert typed == ["does the nightly job still time out"]
    assert not any("bears on the work" in t for t in typed)


def test_attachments_and_edited_files_are_never_typed(tmp_path: Path) -> None:
    """Several attachments (a file, a folder, a selected excerpt) and the edited-files
    context: none of it is the person's; a prompt of several lines is kept whole, without
    the hint some builds append to the last copy."""
    prompt = "compare these two loaders\nand keep the faster one"
    content = (
        f"{prompt}\n<reminder>\n{WARNING}\n</reminder>\n<attachments>\n"
        '<attachment id="loader_a.py" filePath="/src/shop/loader_a.py" />\n'
        '<attachment id="vendor" folderPath="/src/shop/vendor" />\n'
        '<attachment id="sel">\nExcerpt from /src/shop/loader_b.py, lines 4 to 6:\n'
        "```python\n# filepath: /src/shop/loader_b.py\nrows = read_all(path)\n```\n</attachment>\n"
        "</attachments>\n<context>\nThe user edited /src/shop/cache.py since the last turn.\n"
        f"</context>\n<userRequest>\n{prompt}{ATTACHMENTS_HINT}\n</userRequest>\n"
    )
    typed = _typed(tmp_path, content)
    assert typed == [prompt]


def test_an_early_reminder_before_the_prompt_leaves_the_prompt_typed(tmp_path: Path) -> None:
    """An early build put the reminder first (the references it resolved) and the prompt
    after it, with no `<userRequest>`: the text outside the element stays typed."""
    content = ("<reminder>\nThe user gave these references:\n- #notes.md -> /src/shop/notes.md\n\n"
               f"{WARNING}\n</reminder>\n\nsummarise the open questions in #notes.md")
    assert _typed(tmp_path, content) == ["summarise the open questions in #notes.md"]


def test_a_grok_prompts_user_query_copy_is_read_the_same(tmp_path: Path) -> None:
    """For grok-code models VS Code names the last copy `<user_query>`."""
    content = (f"rename the flag to --dry-run\n<reminder>\n{WARNING}\n</reminder>\n"
               "<user_query>\nrename the flag to --dry-run\n</user_query>\n")
    assert _typed(tmp_path, content) == ["rename the flag to --dry-run"]


def test_a_cli_prompt_that_quotes_a_user_request_tag_stays_whole(tmp_path: Path) -> None:
    """No VS Code reminder marks a CLI prompt: a person quoting the tag keeps all their
    words, in the same session as a VS Code prompt that is unwrapped."""
    quoted = "why does the proxy keep only this part:\n<userRequest>\nhello there\n</userRequest>"
    wrapped = (f"and what about this one\n<reminder>\n{WARNING}\n</reminder>\n"
               "<userRequest>\nand what about this one\n</userRequest>\n")
    assert _typed(tmp_path, quoted, wrapped) == [quoted, "and what about this one"]
