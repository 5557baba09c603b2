"""`learn apply --prune KEY` on a CRLF CLAUDE.md: the planned hash is of the bytes on disk
(a text-mode read turns CRLF into LF, so every prune of such a file was refused as "changed
since the diff was shown"), and the file keeps its CRLF line endings."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from learn.records.proposal import Proposal, Quote, Verdict

KEY = "directive:use-bun"


@pytest.mark.parametrize("nl", ["\r\n", "\n"])
def test_prune_removes_the_rule_from_a_file_with_its_line_endings(
        nl: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from learn.commands.apply import command
    from learn.store.feedback import FeedbackStore
    from learn.store.proposals import ProposalBook

    for name in ("DATA", "CONFIG", "CACHE"):
        monkeypatch.setenv(f"LEARN_{name}_DIR", str(tmp_path / name.lower()))
    monkeypatch.delenv("LEARN_DATABASE_URL", raising=False)
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    rule = "- Use bun. <!-- learn directive:use-bun, 3 sessions, last 2025-01-02 -->"
    lines = ["# Shop", "mine\x0cpage two", "", "<!-- learn:begin -->",
             "## Learned from your sessions", "", rule, "<!-- learn:end -->", "tail"]
    original = nl.join(lines).encode()  # no final newline either
    claude = project / "CLAUDE.md"
    claude.write_bytes(original)
    quote = Quote("a", "use bun", "2025-01-02T00:00:00+00:00", str(project))
    bun = Proposal("directive", "use-bun", "use bun", 3, 3, quote.at, (quote,),
                   verdict=Verdict(True, "Use bun.", "tooling", "project", 0.9))
    (tmp_path / "data").mkdir()
    with FeedbackStore.open(tmp_path / "data" / "learn.db") as store:
        book = ProposalBook(store)
        book.record([bun], run_id=None, fallback_project=str(project))
        book.record_applied(project=str(project), proposal=bun, decision="accepted",
                            form="rule", rule_text="Use bun.", target_file=str(claude),
                            backup_file=None, at="2025-01-02T00:00:00+00:00")

    res = CliRunner().invoke(command, ["--prune", KEY, "--yes", "--project", str(project)])
    assert res.exit_code == 0, res.output
    assert "-- Use bun." in res.output  # shown as a diff first
    assert claude.read_bytes() == original.replace((rule + nl).encode(), b"")
