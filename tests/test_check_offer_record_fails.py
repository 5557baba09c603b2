"""`learn apply` of a check offer whose install record cannot be written: the hook and
the rules it already wrote are put back, nothing is recorded, one error line, exit 1.

The record is written once every other file of the check is (learn.commands.apply_checks
.CheckApply.written); its CheckError escaped apply_writes (a traceback), and the hook and
the rules file stood with no record, which `learn check remove` finds them by."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from test_check_offer import _offered

from learn.cli import cli
from learn.guard.files import record_file, rules_file


def test_an_install_record_not_written_puts_the_check_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from learn.store import open_store

    project, offer, where = _offered(tmp_path)
    record = record_file(str(project))
    record.mkdir(parents=True)  # a folder where the record goes: it cannot be written
    done = CliRunner().invoke(cli, ["apply", *where, "--yes"])
    assert done.exit_code == 1, done.output
    assert done.exception is None or isinstance(done.exception, SystemExit), done.exception
    assert "Traceback" not in done.output
    assert "wrote " not in done.output  # nothing is said written that is not
    errors = [line for line in done.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, done.output
    assert "learn's check is not installed" in errors[0]
    assert "install record" in errors[0] and "is put back as it was" in errors[0]
    # The hook and the rules file it wrote are gone again; the project is as it was.
    assert not (project / ".claude" / "settings.local.json").exists()
    assert not rules_file(str(project)).exists()
    assert record.is_dir()
    with open_store() as store:
        assert store.journal.pending() == []
        assert store.journal.last_batch() == []
        assert store.proposals.decided(str(project), [offer.key]) == {}
    # With the record's place free again, the same apply installs it.
    record.rmdir()
    again = CliRunner().invoke(cli, ["apply", *where, "--yes"])
    assert again.exit_code == 0, again.output
    assert record.is_file() and rules_file(str(project)).is_file()
