"""A restated rule is rewritten on its own line only when exactly one line outside code
fences IS that rule (folded); a line that merely contains its words, a code example, or a
rule written twice is left alone and the new rule is appended with a note."""

from __future__ import annotations

from pathlib import Path

from learn.report.edits import BEGIN, RuleEdit, plan_text

PATH = Path("/x/CLAUDE.md")
NEW_LINE = "- Use bun for installs. <!-- learn directive:use-bun-always, 2 sessions -->"


def _edit(old: str) -> RuleEdit:
    return RuleEdit(key="directive:use-bun-always", text="Use bun for installs.", target=PATH,
                    replace_line=old, provenance="2 sessions")


def test_a_line_that_only_contains_the_old_rule_is_not_replaced() -> None:
    original = ("# Project\n\n"
                "- Never use npm in CI; the release job needs yarn and pinned lockfiles, see "
                "docs/ci.md\n"
                "- Use npm locally.\n")
    new, applied, notes = plan_text(original, [_edit("use npm in ci")], PATH)
    assert new.startswith(original)  # the user's lines all kept
    assert NEW_LINE in new[new.index(BEGIN):]
    assert len(applied) == 1 and any("not found" in n for n in notes)


def test_a_line_inside_a_fenced_code_block_is_not_replaced() -> None:
    original = ("# Project\n\nExample of a bad rule file:\n\n"
                "```markdown\n- Use npm for installs.\n```\n\n"
                "~~~~\n  - Use npm for installs.\n~~~~\n")
    new, applied, notes = plan_text(original, [_edit("- Use npm for installs.")], PATH)
    assert new.startswith(original)
    assert NEW_LINE in new[new.index(BEGIN):]
    assert len(applied) == 1 and any("not found" in n for n in notes)


def test_the_one_line_outside_a_fence_is_replaced_not_the_example() -> None:
    original = ("```\n- Use npm for installs.\n```\n"
                "- Use npm for installs.\n")
    new, _, _ = plan_text(original, [_edit("Use npm for installs.")], PATH)
    assert new == "```\n- Use npm for installs.\n```\n" + NEW_LINE + "\n"


def test_a_rule_written_twice_is_not_guessed_at() -> None:
    original = "- Use npm for installs.\n\n## CI\n- Use npm for installs.\n"
    new, applied, notes = plan_text(original, [_edit("- Use npm for installs.")], PATH)
    assert new.startswith(original) and NEW_LINE in new
    assert len(applied) == 1 and any("2 lines" in n for n in notes)


def test_an_exact_restated_line_is_replaced_in_place_keeping_indent_and_ending() -> None:
    # The file is mostly LF; the restated line alone ends in CRLF and keeps it.
    original = "# Project\n\n  * use NPM   for installs. <!-- mine -->\r\n- Keep PRs small.\n"
    new, applied, notes = plan_text(original, [_edit("- Use npm for installs.")], PATH)
    assert new == "# Project\n\n  " + NEW_LINE + "\r\n- Keep PRs small.\n"
    assert len(applied) == 1 and notes == []
