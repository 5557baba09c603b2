"""A folder on a network share, named by a transcript, is never opened (Windows, simulated).

On Windows, stat, realpath or open of `\\\\server\\share\\...` (or `//server/share`,
`\\\\?\\UNC\\server\\share`, a drive mapped to a share) asks that server over SMB, and
Windows answers with the person's login hash. A transcript's `cwd` is data: a synced or
shared transcript names any host. Before learn.windows_names.not_opened, listing such a
session on Windows resolved its folder (learn.projects.flavour.path_key's realpath),
looked for its `.git` and `.claude/commands`, and `apply` looked for the folder to write
in: each a connection to the host the transcript named.

Modelled as tests/_windows_sim.py models Windows: learn.projects.flavour reads
`sys.platform` as win32 (a drive or UNC path is a folder of this machine, as there),
names are read by Windows' rules, and every file system call this process makes with
the server's name in its path is recorded and fails (`contact`). A test that the
simulation is Windows enough first: a drive's path IS realpath'ed there, so a path the
gate let through would be recorded.
"""

from __future__ import annotations

import builtins
import io
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from _windows_sim import windows, windows_paths
from click.testing import CliRunner

from learn import windows_names
from learn.projects import flavour
from learn.windows_names import not_opened

__all__ = ["windows", "windows_paths"]  # the fixtures, from tests/_windows_sim.py

# The server's folders in a path, spelled any way (not learn's own files named after the
# project, `--evil-share-proj-<hash>.json`).
_ON_SERVER = re.compile(r"[\\/]evil(?:[\\/]|$)|evil-mapped", re.IGNORECASE)
SHARE_KEY = r"\\evil\share\proj"
# One folder on one share, as transcripts spell it.
SPELLINGS = [r"\\evil\share\proj", "//evil/share/proj", r"\\EVIL\Share\proj" + "\\",
             r"\\?\UNC\evil\share\proj", "//?/UNC/evil/share/proj"]
# Never opened either, each keyed as spelled.
OTHERS = [r"\\.\UNC\evil\share\proj", r"\\.\pipe\evil", r"\\?\GLOBALROOT\evil\x",
          r"\\evil\share\proj\.claude\worktrees\fix", r"\\evil\share\proj\packages\web"]


@pytest.fixture
def contact(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every file system call made with a path on the server: recorded, and failed
    (as a blocked connection would, so the code goes on and the test sees all of them)."""
    seen: list[str] = []

    def guard(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            named = [str(os.fspath(a)) for a in args[:2] if isinstance(a, (str, os.PathLike))]
            if any(_ON_SERVER.search(n) for n in named):
                seen.append(f"{name}({named[0]!r})")
                raise PermissionError(13, "a server was asked", named[0])
            return real(*args, **kwargs)
        return call

    for name in ("stat", "lstat", "listdir", "scandir", "open", "access", "mkdir", "readlink",
                 "chdir"):
        monkeypatch.setattr(os, name, guard(f"os.{name}", getattr(os, name)))
    monkeypatch.setattr(os.path, "realpath", guard("realpath", os.path.realpath))
    monkeypatch.setattr(builtins, "open", guard("open", builtins.open))
    monkeypatch.setattr(io, "open", guard("io.open", io.open))
    return seen


def test_the_simulation_reads_a_drive_path_as_a_folder_of_this_machine(
        windows_paths: None, monkeypatch: pytest.MonkeyPatch) -> None:
    # Else the tests below prove nothing: a Windows path is realpath'ed and looked at here.
    asked: list[str] = []
    real = os.path.realpath
    monkeypatch.setattr(os.path, "realpath", lambda p, **k: asked.append(p) or real(p, **k))
    assert flavour.path_key(r"C:\Users\ana\Proj") == r"c:\users\ana\proj"
    assert asked == [r"C:\Users\ana\Proj"]
    assert flavour.disk_path(r"c:\users\ana\proj") == r"c:\users\ana\proj"
    assert flavour.on_this_disk(r"c:\users\ana\proj")


def test_what_is_never_opened_is_said_from_the_spelling() -> None:
    for path in SPELLINGS:
        assert not_opened(path) == "on a network share: learn does not open it", path
    assert not_opened(r"\\.\UNC\evil\share") == "on a network share: learn does not open it"
    for path in (r"\\.\pipe\x", r"\\.\C:\x", r"\\?\Volume{1234}\x", r"\\?\GLOBALROOT\x"):
        assert not_opened(path) == "a Windows device path: learn does not open it", path
    # The drive's own folder in long form, WSL's shares (this machine's files), any
    # drive off Windows, and POSIX paths are opened as before.
    for path in (r"\\?\C:\Users\ana", r"\\wsl$\Ubuntu\home\bob", "//wsl.localhost/U/home",
                 r"C:\Users\ana", "Z:/work", "/home/ana/proj", "~/proj"):
        assert not_opened(path) is None, path


def test_a_drive_mapped_to_a_share_is_never_opened_on_windows(
        windows_paths: None, contact: list[str]) -> None:
    from learn.projects import Known, as_folder, checkout_root, project_of

    windows_names.REMOTE_DRIVES["Z"] = True
    path = r"Z:\evil-mapped\proj"
    assert not_opened(path) == "on a network drive (Z:, a share): learn does not open it"
    known = Known()
    known.add_folder(path)
    assert project_of(path, known) == r"z:\evil-mapped\proj"
    assert as_folder(r"z:\evil-mapped\proj") is None and checkout_root(path) is None
    assert contact == []
    # Off Windows a drive letter is never asked about (no drive there is a share's).
    windows_names.REMOTE_DRIVES.clear()
    assert not windows_names.remote_drive("Z")


@pytest.mark.parametrize("spelled", SPELLINGS)
def test_a_share_a_transcript_names_is_one_project_by_its_spelling_and_never_opened(
        spelled: str, windows_paths: None, contact: list[str]) -> None:
    from learn.projects import (
        Hints,
        Known,
        as_folder,
        checkout_folder,
        checkout_root,
        in_this_checkout,
        project_of,
        write_roots,
    )

    known = Known()
    known.add_folder(spelled, Hints(branch="feature-x", commit="a" * 40))
    assert project_of(spelled, known) == SHARE_KEY
    # A sub-folder sessions ran in is the share folder's project, told from the text.
    assert project_of(SHARE_KEY + r"\src", known) == SHARE_KEY
    assert known.checkout(SHARE_KEY) is None and known.repositories() == {}
    assert flavour.disk_path(SHARE_KEY) is None and not flavour.on_this_disk(SHARE_KEY)
    assert as_folder(SHARE_KEY) is None and checkout_root(spelled) is None
    assert checkout_folder(spelled) == Path(spelled)  # as spelled: never resolved
    assert write_roots(SHARE_KEY, SHARE_KEY + r"\CLAUDE.md") == (SHARE_KEY,)
    assert in_this_checkout(Path(spelled) / "CLAUDE.md", Path(spelled)) is None
    assert contact == []


@pytest.mark.parametrize("spelled", OTHERS)
def test_a_device_path_or_a_folder_below_a_share_is_never_opened(
        spelled: str, windows_paths: None, contact: list[str]) -> None:
    from learn.projects import Known, as_folder, project_of

    known = Known()
    known.add_folder(spelled)
    key = project_of(spelled, known)
    assert key is not None and as_folder(key) is None and contact == []


def test_confine_refuses_a_share_before_resolving_it(
        windows_paths: None, contact: list[str]) -> None:
    from learn.report.confine import confine, may_write, project_roots
    from learn.report.errors import ConfinementError

    share = Path("//evil/share/proj")
    assert project_roots([share, str(share)]) == ()
    with pytest.raises(ConfinementError, match="network share: learn does not open it"):
        confine(share / "CLAUDE.md", [share])
    assert not may_write(share / ".claude" / "rules" / "x.md", [share])
    assert contact == []


def _session(home: Path, n: int, cwd: str, text: str) -> str:
    sid = f"0000000{n}-1111-4000-8000-000000000000"
    folder = home / ".claude" / "projects" / f"dir{n}"
    folder.mkdir(parents=True)
    records = [
        {"type": "user", "uuid": f"u{n}", "parentUuid": None, "sessionId": sid, "cwd": cwd,
         "gitBranch": "feature-x", "timestamp": f"2026-11-0{n}T10:00:00Z",
         "message": {"role": "user", "content": text}},
        {"type": "assistant", "uuid": f"a{n}", "parentUuid": f"u{n}", "sessionId": sid,
         "cwd": cwd, "timestamp": f"2026-11-0{n}T10:01:00Z",
         "message": {"role": "assistant", "model": "m", "content": [{"type": "text",
                                                                     "text": "ok"}]}},
    ]
    (folder / f"{sid}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return sid


def test_learn_lists_runs_shows_and_applies_sessions_on_a_share_without_opening_it(
        _isolated_home: Path, tmp_path: Path, windows_paths: None,
        monkeypatch: pytest.MonkeyPatch, contact: list[str]) -> None:
    # The real commands, in this process: sessions on a share are listed and counted
    # (one project, by its spelling), `learn run` reads them, `learn show` shows one,
    # `learn doctor` says they are on a share, and `learn apply` for that project says
    # it does not open it: no call reached the share.
    from learn.commands.doctor import command as doctor
    from learn.commands.run import command as run
    from learn.commands.sessions import command as sessions
    from learn.commands.show import command as show

    for name in ("DATA", "CONFIG", "CACHE"):
        monkeypatch.setenv(f"LEARN_{name}_DIR", str(tmp_path / name.lower()))
    monkeypatch.setenv("LEARN_PARSE_WORKERS", "1")
    monkeypatch.delenv("LEARN_DATABASE_URL", raising=False)
    monkeypatch.chdir(_isolated_home)
    said = "always run the linter before you commit anything"
    first = _session(_isolated_home, 1, r"\\evil\share\proj", said)
    _session(_isolated_home, 2, "//evil/share/proj", said)
    _session(_isolated_home, 3, r"\\?\UNC\evil\share\proj\src", said)
    runner = CliRunner()

    listed = runner.invoke(sessions, ["--all-projects", "--json"])
    assert listed.exit_code == 0, listed.output
    rows = json.loads(listed.output)["sessions"]
    assert len(rows) == 3 and contact == []

    done = runner.invoke(run, ["--offline", "--all-projects", "--since", "2026-01-01",
                               "--json", "--quiet", "--yes"])
    assert done.exit_code == 0, (contact, done.output)
    assert contact == []

    shown = runner.invoke(show, [first[:8]])
    assert shown.exit_code == 0, shown.output
    assert said in shown.output and contact == []

    checked = runner.invoke(doctor, ["--json"])
    assert "3 sessions ran on a network share" in checked.output
    assert contact == []

    # A rule said there, written for that project (apply's target, whether the folder
    # is named or followed from the quotes): refused, the folder never looked for.
    from learn.records.proposal import Proposal, Quote, Verdict
    from learn.report.targets import TargetChoice, TargetError, project_for

    quotes = tuple(Quote(s, said, f"2026-11-0{i}T10:00:00+00:00", path)
                   for i, (s, path) in enumerate((("a", SPELLINGS[0]), ("b", SPELLINGS[1]))))
    lint = Proposal("directive", "lint-first", said, 2, 2, quotes[1].at, quotes,
                    verdict=Verdict(True, "Run the linter first.", "tooling", "project", 0.9))
    for choice in (TargetChoice(project_dir=Path(SPELLINGS[1]), follow_quotes=True),
                   TargetChoice(project_dir=_isolated_home, follow_quotes=True),
                   TargetChoice(project_dir=Path(SPELLINGS[1]))):
        with pytest.raises(TargetError, match="network share: learn does not open it"):
            project_for(lint, choice)
    assert contact == []


def test_apply_writes_a_rule_also_said_on_a_share_only_where_it_is_run(
        tmp_path: Path, windows_paths: None, monkeypatch: pytest.MonkeyPatch,
        contact: list[str]) -> None:
    # Said in the checkout apply runs in and in a folder on a share: written here, and
    # the share's folder (one of the projects it was said in) never looked for.
    from learn.commands.apply import command as apply
    from learn.records.proposal import Proposal, Quote, Verdict
    from learn.store.feedback import FeedbackStore
    from learn.store.proposals import ProposalBook

    for name in ("DATA", "CONFIG", "CACHE"):
        monkeypatch.setenv(f"LEARN_{name}_DIR", str(tmp_path / name.lower()))
    monkeypatch.delenv("LEARN_DATABASE_URL", raising=False)
    shop = tmp_path / "shop"
    (shop / ".git").mkdir(parents=True)
    monkeypatch.chdir(shop)
    quotes = (Quote("a", "use bun not npm", "2026-03-20T00:00:00+00:00", str(shop)),
              Quote("b", "use bun not npm", "2026-03-21T00:00:00+00:00", SPELLINGS[1]))
    bun = Proposal("directive", "use-bun", "use bun not npm", 2, 2, quotes[1].at, quotes,
                   verdict=Verdict(True, "Use bun, not npm.", "tooling", "project", 0.9))
    (tmp_path / "data").mkdir()
    with FeedbackStore.open(tmp_path / "data" / "learn.db") as store:
        ProposalBook(store).record([bun], run_id=None, fallback_project=str(shop))
    applied = CliRunner().invoke(apply, ["--yes"])
    assert applied.exit_code == 0, (contact, applied.output)
    assert "Use bun, not npm." in (shop / "CLAUDE.md").read_text()
    assert contact == []


def test_a_rule_rewritten_in_place_is_owned_without_resolving_a_share(
        tmp_path: Path, windows_paths: None, contact: list[str]) -> None:
    # The project a rewritten file belongs to is found among the projects it was said in
    # (learn.report.agent_targets._owner): each was resolved, the share's too.
    from learn.records.proposal import Proposal, Quote
    from learn.report.agent_targets import _owner
    from learn.report.edits import RuleEdit

    shop = tmp_path / "shop"
    shop.mkdir()
    quotes = (Quote("a", "use bun", "2026-03-20T00:00:00+00:00", SPELLINGS[0]),
              Quote("b", "use bun", "2026-03-21T00:00:00+00:00", SPELLINGS[1]),
              Quote("c", "use bun", "2026-03-22T00:00:00+00:00", str(shop)))
    bun = Proposal("directive", "use-bun", "use bun", 3, 3, quotes[2].at, quotes)
    edit = RuleEdit(key="directive:use-bun", text="Use bun.", target=shop / "CLAUDE.md")
    assert _owner(bun, edit) == shop
    assert contact == []


def test_the_hook_reads_no_commands_of_a_session_on_a_share(
        tmp_path: Path, windows_paths: None, monkeypatch: pytest.MonkeyPatch,
        contact: list[str]) -> None:
    # The SessionEnd hook read the project's `.claude/commands` from the session's folder
    # before anything else (learn.hook.worker.mine_ended_session).
    from fixtures.fidelity.writers import Chain, claude_path, set_entrypoint

    from learn.hook.event import SessionEnded
    from learn.hook.worker import SessionGone, mine_ended_session

    home = tmp_path / "home"
    sid = "00000801-hook-4000-8000-000000000001"
    chain = Chain(sid, cwd=SPELLINGS[0])
    chain.user("a background brief", parent=False)
    chain.assistant("ok")
    set_entrypoint(chain.lines, "sdk-cli")  # headless: the hook stops once it has read it
    path = chain.write(claude_path(home, sid, SPELLINGS[0]))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    with pytest.raises(SessionGone, match="headless"):
        mine_ended_session(SessionEnded(sid, str(path), cwd=SPELLINGS[0]),
                           backend=None, config=None, cache=None)  # type: ignore[arg-type]
    assert contact == []
