"""A rule file saved by a Windows editor (a UTF-8 byte order mark, CRLF line endings) is
read with its frontmatter: its scope is the globs it names, and neither the mark nor the
frontmatter's lines become rule lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from learn.reduce.rule_places import strip_frontmatter
from learn.reduce.rules import collect_rules

BOM = "\ufeff".encode()


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_scoped_rule_file_with_a_bom_keeps_its_scope(tmp_path: Path, newline: str) -> None:
    project, home = tmp_path / "shop", tmp_path / "home"
    (project / ".git").mkdir(parents=True)
    home.mkdir(exist_ok=True)
    claude = project / ".claude" / "rules" / "api.md"
    cursor = project / ".cursor" / "rules" / "db.mdc"
    for path, front in ((claude, ["paths:", '  - "src/api/**"']),
                        (cursor, ["description: db", "globs: src/db/**", "alwaysApply: false"])):
        path.parent.mkdir(parents=True)
        lines = ["---", *front, "---", "# Rules", f"- Rule of {path.stem}.", ""]
        path.write_bytes(BOM + newline.join(lines).encode())

    corpus = collect_rules(project, home)

    got = {(Path(r.file).name, r.heading, r.text) for r in corpus.rules}
    assert got == {("api.md", ("(loaded only for src/api/**)", "Rules"), "Rule of api."),
                   ("db.mdc", ("(loaded only for src/db/**)", "Rules"), "Rule of db.")}


def test_a_file_with_a_bom_and_no_frontmatter_has_no_mark_in_its_body() -> None:
    assert strip_frontmatter("\ufeff# Rules\r\n- One.\r\n") == ("", "# Rules\r\n- One.\r\n")
    assert strip_frontmatter("\ufeff---\r\na: 1\r\n---\r\nbody") == ("a: 1", "body")
