"""A prefix_rule appended to a Codex `.rules` file takes the file's own line ending.

The audit: a CRLF rules file came back with the new block in LF lines, mixed endings in
one file. The block is written with the ending most of the file's lines use
(`edits.dominant_newline`), LF for a new or empty file. Compared byte for byte.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from learn.report.edits import RuleEdit
from learn.report.escalation import merged_codex_rules
from learn.report.surfaces_apply import plan_surface

BLOCK = ['# learn directive:no-force',
         'prefix_rule(',
         '    pattern = ["git", "push", "--force"],',
         '    decision = "forbidden",',
         '    justification = "Never force push.",',
         '    match = [["git", "push", "--force"]],',
         ')']
HEADER = "# Written by `learn apply`: commands you told the agent never to run."


def _merge(original: str | None) -> str:
    return merged_codex_rules(original, ["git push --force"], "Never force push.",
                              "directive:no-force")


def _lines(*lines: str, nl: str) -> str:
    return "".join(line + nl for line in lines)


@pytest.mark.parametrize("nl", ["\r\n", "\n"], ids=["crlf", "lf"])
def test_block_appended_in_the_files_own_line_ending(nl: str) -> None:
    mine = ["# mine", 'prefix_rule(pattern = ["ls"])']
    original = _lines(*mine, nl=nl)
    assert _merge(original) == _lines(*mine, "", *BLOCK, nl=nl)


@pytest.mark.parametrize("nl", ["\r\n", "\n"], ids=["crlf", "lf"])
def test_last_line_without_an_ending_is_ended_in_the_files_own(nl: str) -> None:
    original = f"# mine{nl}prefix_rule(pattern = [\"ls\"])"
    assert _merge(original) == _lines("# mine", 'prefix_rule(pattern = ["ls"])', "", *BLOCK,
                                      nl=nl)


def test_mostly_crlf_file_gets_crlf_and_its_odd_line_keeps_its_bytes() -> None:
    original = "# a\r\n# b\n# c\r\n"
    assert _merge(original) == original + _lines("", *BLOCK, nl="\r\n")


@pytest.mark.parametrize("original", [None, ""], ids=["new", "empty"])
def test_new_or_empty_file_is_lf(original: str | None) -> None:
    assert _merge(original) == _lines(HEADER, "", *BLOCK, nl="\n")


def test_two_commands_in_a_crlf_file_leave_no_lf_line() -> None:
    text = merged_codex_rules("# mine\r\n", ["git push --force", "rm -rf"], "No.", "k")
    assert "\n" not in text.replace("\r\n", "") and text.count("prefix_rule(") == 2


def test_codex_rule_surface_keeps_a_crlf_rules_file_crlf(tmp_path: Path) -> None:
    path = tmp_path / ".codex" / "rules" / "default.rules"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"# mine\r\n")
    edit = RuleEdit(key="directive:no-force", text="Never force push.", target=path,
                    form="codex-rule", surface_commands=("git push --force",),
                    justification="Never force push.")
    plan = plan_surface(path, [edit])
    assert plan.new_text.encode() == _lines("# mine", "", *BLOCK, nl="\r\n").encode()
