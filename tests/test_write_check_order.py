"""learn's check is written all or none, its data file first and its hooks last.

The audit's case: the hook (in `.claude/settings.local.json`) was written first and
learn's rules file last; when the rules file's write failed (a full disk, a `learn
check` changing it meanwhile), the hook stayed in the person's settings with no rules
file and no install record, so `learn check remove` could not find it to take it out.
Now a hook is written only once its data is in place, and when a later file of the
same check fails, every one written before it is put back."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from test_apply_checks_worktree import KEY, _applied, _offered

from learn.cli import cli
from learn.commands import apply_writes
from learn.commands.apply_writes import Consent, Intent, write_confirmed
from learn.guard.files import checks_dir, record_file, rules_file
from learn.paths import ensure_private_dir
from learn.report.edits import FilePlan, sha256

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _repo(tmp_path: Path) -> Path:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
           "GIT_CONFIG_GLOBAL": os.devnull}
    main = tmp_path / "shop"
    main.mkdir()
    for args in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "x"]):
        subprocess.run(["git", *args], cwd=main, env=env, check=True, capture_output=True)
    return main


def _apply(main: Path) -> Result:
    return CliRunner().invoke(cli, ["apply", "--only", KEY, "--project", str(main), "--yes"])


class _Journal:
    """What a write's callback journals (a row a plan, pending before its rename), and which
    rows are then settled (written) or forgotten (not written, or put back)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.intended: list[Path] = []
        self.settled: list[int] = []
        self.forgotten: list[int] = []
        monkeypatch.setattr(apply_writes, "_settle", lambda ids, plan: self.settled.extend(ids))
        monkeypatch.setattr(apply_writes, "_forget", lambda ids: self.forgotten.extend(ids))

    def __call__(self, plan: FilePlan, backup: Path | None) -> Intent:
        self.intended.append(plan.path)
        return Intent(ids=(len(self.intended),))

    def kept(self) -> list[Path]:
        """The plans whose rows stay journaled."""
        return [p for n, p in enumerate(self.intended, 1) if n not in self.forgotten]


def _failing_for(monkeypatch: pytest.MonkeyPatch, doomed: Path) -> list[Path]:
    """write_plan fails (a full disk) for `doomed`; the paths written, in order."""
    real = apply_writes.write_plan
    order: list[Path] = []

    def write(plan: FilePlan, **kw: bool) -> Path | None:
        order.append(plan.path)
        if plan.path == doomed:
            raise OSError(28, "No space left on device")
        return real(plan, **kw)

    monkeypatch.setattr(apply_writes, "write_plan", write)
    return order


@needs_git
def test_a_data_file_that_cannot_be_written_leaves_no_hook(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    main = _repo(tmp_path)
    project = _offered(main)
    order = _failing_for(monkeypatch, rules_file(project))

    done = _apply(main)
    assert done.exit_code == 1, done.output
    settings = main / ".claude" / "settings.local.json"
    assert not settings.exists()  # the hook was never written: nothing runs a missing check
    assert not rules_file(project).exists() and not record_file(project).exists()
    assert not _applied(project)
    assert order == [rules_file(project)]  # the data file first, and nothing after it failed
    assert "learn's check is not installed" in done.output


@needs_git
def test_a_hook_that_cannot_be_written_puts_the_data_file_back_byte_for_byte(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A check is in place already, and the person took its hook out of their settings; the
    # second check puts the hook back, and that write fails: the rules file (written
    # first) goes back to the first check's bytes.
    from learn.store import open_store
    from learn.store.runs import default_store_path

    main = _repo(tmp_path)
    project = _offered(main)
    added = CliRunner().invoke(cli, ["check", "add", "rm", "--flag", "-rf", "--reason",
                                     "Never rm -rf.", "--yes", "--project", str(main)])
    assert added.exit_code == 0, added.output
    data, record = rules_file(project), record_file(project)
    settings = main / ".claude" / "settings.local.json"
    settings.write_text("{}\n")
    before = (data.read_bytes(), record.read_bytes(), settings.read_bytes())
    with open_store(default_store_path()) as store:  # the `learn check add`, journaled
        journaled = store.journal.last_batch()
    order = _failing_for(monkeypatch, settings)

    done = _apply(main)
    assert done.exit_code == 1, done.output
    assert order == [data, settings]
    assert (data.read_bytes(), record.read_bytes(), settings.read_bytes()) == before
    assert f"{data} is put back as it was" in done.output
    assert not _applied(project)
    with open_store(default_store_path()) as store:  # nothing more for `--undo` to undo
        assert store.journal.last_batch() == journaled


# ---------------------------------------------------------------- write_confirmed, whole


@dataclass
class _Check:
    """A check's plans as learn.commands.apply_checks lays them out: agent files, then data."""

    plans: list[FilePlan]
    said: list[str] = field(default_factory=list)

    def owns(self, plan: FilePlan) -> bool:
        return any(plan is p for p in self.plans)

    def asked(self) -> list[FilePlan]:
        return self.plans

    def ordered(self) -> list[FilePlan]:
        return [self.plans[-1], *self.plans[:-1]]

    def not_written(self, missing: Sequence[Path], put_back: Sequence[Path]) -> str:
        self.said.append(f"missing={[str(m) for m in missing]} back={[str(p) for p in put_back]}")
        return "learn's check is not installed"


def _plan(path: Path, new: str, project: Path | None) -> FilePlan:
    old = path.read_bytes() if path.exists() else None
    return FilePlan(path=path, original=None if old is None else old.decode(),
                    original_hash=sha256(old) if old is not None else "", new_text=new,
                    projects=(str(project),) if project else ())


def test_a_later_hook_that_fails_puts_back_every_file_written_before_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / ".claude").mkdir()
    shared = project / ".claude" / "settings.json"
    shared.write_bytes(b'{\r\n  "model": "opus"\r\n}\r\n')  # CRLF: put back byte for byte
    local = project / ".claude" / "settings.local.json"
    ensure_private_dir(checks_dir())
    data = checks_dir() / "proj.json"
    check = _Check([_plan(shared, '{"hooks": {}}\n', project),
                    _plan(local, '{"hooks": {}}\n', project),
                    _plan(data, '{"rules": []}\n', None)])
    order = _failing_for(monkeypatch, local)
    journal = _Journal(monkeypatch)

    ok = write_confirmed(check.plans, Consent(yes=True), journal,
                         what=lambda p: "Write", whole=check)
    assert not ok
    assert order == [data, shared, local]
    assert shared.read_bytes() == b'{\r\n  "model": "opus"\r\n}\r\n'
    assert not data.exists() and not local.exists()  # learn made them: gone again
    # Each journaled before its rename; all forgotten: nothing recorded as installed.
    assert journal.intended == [data, shared, local] and journal.kept() == []
    assert check.said == [f"missing={[str(local)]} back={[str(shared), str(data)]}"]


def test_a_whole_check_is_asked_hook_first_and_written_data_first(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    local = project / ".claude" / "settings.local.json"
    ensure_private_dir(checks_dir())
    data = checks_dir() / "proj.json"
    check = _Check([_plan(local, '{"hooks": {}}\n', project), _plan(data, '{"rules": []}\n', None)])
    monkeypatch.setattr(apply_writes, "_ask_here", lambda: True)
    questions: list[str] = []
    monkeypatch.setattr(apply_writes.click, "confirm",
                        lambda text, default: questions.append(text) or True)
    order = _failing_for(monkeypatch, tmp_path / "nothing")
    journal = _Journal(monkeypatch)

    ok = write_confirmed(check.plans, Consent(), journal, what=lambda p: "Write", whole=check)
    assert ok
    assert questions == [f"Write {local}?", f"Write {data}?"]
    assert order == journal.intended == journal.kept() == [data, local]
    assert journal.settled == [1, 2]
    assert local.read_text() == '{"hooks": {}}\n' and data.read_text() == '{"rules": []}\n'
