"""learn rewrites a restated rule, and skips one already present, only on lines of prose
the agent reads: not inside an HTML comment (Claude Code strips comments before the model
reads the file), an indented or fenced code block, or front matter. The rule corpus
(learn.reduce.rules) and the writer (learn.report.edits) read a file through the same
mask, learn.reduce.instruction_prose.

Most tests import only what existed before the fix, so they can be run against the old
code and fail there; the mask's own tests import it inside the test."""

from __future__ import annotations

from pathlib import Path

import pytest

from learn.reduce.rules import rule_lines_of
from learn.report.edits import BEGIN, END, ApplyError, RuleEdit, plan_text

PATH = Path("/x/CLAUDE.md")
KEY = "directive:run-ruff-before-commit"
NEW_LINE = f"- Run `ruff check` before every commit. <!-- learn {KEY}, 2 sessions -->"
OLD = "- Run ruff before committing."


def _edit(replace_line: str | None = OLD) -> RuleEdit:
    return RuleEdit(key=KEY, text="Run `ruff check` before every commit.", target=PATH,
                    replace_line=replace_line, provenance="2 sessions")


def _appended(original: str) -> tuple[str, list[str]]:
    """Plan the restated edit; assert the person's text is untouched and the new rule
    went to learn's section instead."""
    new, applied, notes = plan_text(original, [_edit()], PATH)
    assert len(applied) == 1
    assert new.startswith(original), new  # every line of the person's kept as it was
    assert NEW_LINE in new[new.index(BEGIN):new.index(END)]
    return new, notes


# --- finding 6: a restated rule is never rewritten where no agent reads it -----------

def test_a_restated_rule_inside_a_multiline_comment_is_not_rewritten() -> None:
    # Before: the rule went on the commented-out line, and its marker's `-->` closed the
    # person's comment early, leaving their `-->` a stray line of prose.
    original = ("# shop-api\n\n## Workflow\n\n"
                "<!-- disabled while we migrate linters:\n"
                f"{OLD}\n"
                "-->\n"
                "- Use uv to manage the virtualenv.\n")
    new, notes = _appended(original)
    assert new.count("-->\n-->") == 0
    assert any("outside comments and code blocks" in n for n in notes), notes


@pytest.mark.parametrize("original", [
    f"# shop-api\n\n\t{OLD}\n",  # a tab after a blank line: four columns, code
    f"# shop-api\n\nExample of our old file:\n\n    # Workflow\n    {OLD}\n\n- Use uv.\n",
], ids=["tab-indented", "indented-code-block"])
def test_a_restated_rule_inside_an_indented_code_block_is_not_rewritten(original: str) -> None:
    _appended(original)


def test_a_restated_rule_in_front_matter_is_not_rewritten() -> None:
    original = f"---\ndescription: |\n  {OLD}\n---\n# Rules\n\n- Use uv.\n"
    _appended(original)


@pytest.mark.parametrize("original", [
    # A nested list item indented four spaces is prose, not code.
    f"# Rules\n\n- Python:\n    {OLD}\n- Use uv.\n",
    # A rule right under a paragraph line: indented code cannot interrupt a paragraph.
    f"# Rules\nWorkflow rules:\n    {OLD}\n",
    # A one-line comment beside the rule leaves the line prose.
    f"# Rules\n\n{OLD} <!-- since 2024 -->\n",
    # A multi-line comment closed above the rule.
    f"# Rules\n\n<!--\nold notes\n-->\n{OLD}\n",
    # `<!--` in a code span opens no comment.
    f"# Rules\n\n- Never write `<!--` in templates.\n{OLD}\n-->\n",
], ids=["nested-item", "paragraph-continuation", "inline-comment", "closed-comment",
        "code-span-opener"])
def test_a_restated_rule_in_prose_is_still_rewritten_in_place(original: str) -> None:
    new, applied, notes = plan_text(original, [_edit()], PATH)
    assert applied and not notes, notes
    assert BEGIN not in new
    assert OLD not in new
    assert NEW_LINE in new


def test_a_line_that_opens_a_comment_is_not_rewritten() -> None:
    # Rewriting it would drop the `<!--`: the rest of the comment would turn into prose.
    original = f"# Rules\n\n{OLD} <!-- kept for\nthe CI job -->\n- Use uv.\n"
    _appended(original)


# --- finding 7: "already present" only when the agent reads the words ----------------

RULE = "Use bun for installs and scripts in this repo, never npm."


def _bun() -> RuleEdit:
    return RuleEdit(key="directive:use-bun-not-npm", text=RULE, target=PATH,
                    provenance="3 sessions")


@pytest.mark.parametrize("original", [
    f"# web-app\n\n<!-- old notes, not in force:\n- {RULE}\n-->\n- Keep PRs small.\n",
    f"# web-app\n\nHow a rule line looks:\n\n```md\n- {RULE}\n```\n",
    f"# web-app\n\nHow a rule line looks:\n\n    - {RULE}\n",
], ids=["comment", "fenced-code", "indented-code"])
def test_words_only_in_a_comment_or_code_block_are_not_already_present(original: str) -> None:
    # Before: "already in CLAUDE.md, not added again", and the rule was never written.
    new, applied, notes = plan_text(original, [_bun()], PATH)
    assert len(applied) == 1, notes
    assert not any("already in" in n for n in notes)
    assert new.startswith(original)
    assert RULE in new[new.index(BEGIN):]


@pytest.mark.parametrize("original", [
    f"# web-app\n\n- {RULE}\n",
    f"# web-app\n\n- {RULE} <!-- see #12 -->\n",
    f"# web-app\n\n- {RULE} <!-- a note\nthat runs on -->\n",
], ids=["plain", "inline-comment", "opens-comment"])
def test_words_the_agent_reads_are_already_present(original: str) -> None:
    new, applied, notes = plan_text(original, [_bun()], PATH)
    assert not applied and new == original
    assert any("already in" in n for n in notes)


# --- finding 9: a byte order mark before the first line ------------------------------

def test_a_restated_rule_on_the_first_line_after_a_bom_is_rewritten_and_the_bom_kept() -> None:
    original = f"\ufeff{OLD}\n- Use uv to manage the virtualenv.\n"
    new, applied, notes = plan_text(original, [_edit()], PATH)
    assert applied and not notes, notes
    assert new == f"\ufeff{NEW_LINE}\n- Use uv to manage the virtualenv.\n"


def test_normalize_rule_drops_a_bom() -> None:
    from learn.report.edits import normalize_rule

    assert normalize_rule(f"\ufeff{OLD}") == normalize_rule(OLD)


# --- one reading for the corpus and the writer ---------------------------------------

DOCS = [
    f"# A\n\n<!-- disabled:\n{OLD}\n-->\n- Use uv.\n",
    f"# A\n\n\t{OLD}\n\n- Use uv.\n",
    f"\ufeff{OLD}\n- Use uv.\n",
    f"---\npaths: src/**\n---\n# A\n{OLD}\n",
    f"# A\n\n- Python:\n    {OLD}\n\n```\n- Use npm.\n```\n- Use uv.\n",
    f"# A\n\n{OLD} <!-- open\nstill comment -->\n- Use uv.\n",
]


@pytest.mark.parametrize("doc", DOCS)
def test_every_rule_line_the_corpus_reads_is_one_the_writer_rewrites(doc: str) -> None:
    # A proposal "restates" a line of the corpus: the writer must find that very line.
    for rule in rule_lines_of(doc, str(PATH)):
        edit = RuleEdit(key="directive:x", text="A new rule.", target=PATH,
                        replace_line=rule.text)
        new, applied, notes = plan_text(doc, [edit], PATH)
        whole = [x for x in doc.splitlines() if rule.text in x]
        if any(x.count("<!--") != x.count("-->") for x in whole):
            continue  # a line a comment opens on: read, but never rewritten
        assert applied and not notes, (rule, notes)
        assert BEGIN not in new


def test_the_corpus_drops_comments_and_indented_code_but_keeps_nested_items() -> None:
    doc = ("# A\n\n<!-- disabled:\n- Commented out.\n-->\n"
           "- Python:\n    - Nested rule.\n\nExample:\n\n    - Code rule.\n")
    texts = [r.text for r in rule_lines_of(doc, str(PATH))]
    assert texts == ["Python:", "Nested rule.", "Example:"]


def test_the_mask_reads_comments_code_and_front_matter() -> None:
    from learn.reduce.instruction_prose import prose_of

    lines = ["---", "a: 1", "---", "# T", "", "<!-- x", "y", "-->", "text <!-- c --> more",
             "", "    code", "", "```", "<!-- not a comment", "```", "- item <!-- open",
             "z -->", "last"]
    prose = prose_of(lines)
    read = [None if p is None else p.text for p in prose.lines]
    # The line that opens a comment reads as blank; a blank line inside indented code
    # and one a comment ends on with nothing after it are read as nothing.
    assert read == [None, None, None, "# T", "", "", None, None, "text  more", "", None,
                    None, None, None, None, "- item ", None, "last"]
    assert prose.whole() == [False, False, False, True, True, False, False, False, True,
                             True, False, False, False, False, False, False, False, True]
    assert prose_of(["```py", "x"]).open_fence == "```"


def test_a_comment_never_closed_is_not_closed_by_the_section_learn_appends() -> None:
    """learn's section opens with a comment marker: below a `<!--` the person never
    closed, its `-->` would turn their text from there down into a comment no agent
    reads. The apply refuses and says how to mend it; a closed comment is no obstacle."""
    edit = RuleEdit("directive:use-bun", "Use bun for installs.", Path("/p/CLAUDE.md"))
    with pytest.raises(ApplyError, match="never closed"):
        plan_text("# Rules\n\n<!-- notes to self\n- Run the linter before pushing.\n",
                  [edit], Path("/p/CLAUDE.md"))
    new, applied, _ = plan_text("# Rules\n<!-- notes -->\n- Run the linter.\n", [edit],
                                Path("/p/CLAUDE.md"))
    assert applied == [edit] and "- Run the linter.\n" in new
