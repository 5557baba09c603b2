"""learn's write confinement (learn.report.confine) by Windows' rules, on this machine.

No Windows machine runs these tests. What is modelled, and how:

- Names: `learn.windows_names.WINDOWS` is the host's flag (`os.name == "nt"`);
  set here, confine reads names by Windows' rules, and the names are the same strings
  on any host. On Windows os.path.realpath resolves the part of a path that exists
  (GetFinalPathNameByHandleW: links, junctions and 8.3 names resolved, the case the
  disk has) and keeps the rest as spelled (ntpath's `_getfinalpathname_nonstrict`), as
  POSIX realpath keeps a missing tail here: so a missing `node_modules.` or
  `notes:x.md` reaches the name checks on this machine as it does there. What Windows
  then makes of it is Win32's path normalisation (a last name's trailing dots and
  spaces dropped, a single trailing dot of any folder's) and NTFS's streams and DOS
  devices, the rules of Python 3.13's `ntpath.isreserved`, compared with it where this
  Python has it.
- Case: realpath on Windows gives a file's name in the case the disk has it, so a
  CLAUDE.md made as `claude.md` arrives at confine as `claude.md`: that spelling is
  asked for here.
- Another spelling of the home folder that realpath keeps (`\\\\localhost\\C$\\Users\\ana`,
  a drive `net use` mapped to it: realpath returns the share's spelling, it never
  folds it to `C:\\`): a bind mount is that on Linux, made in a private mount
  namespace (`unshare`), skipped where there is none.

Before: `.claude/rules/notes:x.md`, `.claude/commands/aux.md` and
`node_modules./CLAUDE.md` passed as instruction files, a lowercase `claude.md` was
refused as none, and home reached through a share was a project whose
`.claude/settings.json` was the person's own.
"""

from __future__ import annotations

import ntpath
import os
import shutil
import subprocess
import sys
from pathlib import Path, PureWindowsPath

import pytest
from _windows_sim import ROOT, record_bun, record_bun_script, run_simulated, windows

from learn import windows_names
from learn.report.confine import confine, may_write, project_roots, surface_of
from learn.report.errors import ConfinementError
from learn.windows_names import name_refusal, path_refusal

# What Windows makes of each: (name, what the refusal says it is).
REINTERPRETED = [
    ("CLAUDE.md.", "names 'CLAUDE.md'"), ("CLAUDE.md ", "names 'CLAUDE.md'"),
    ("AGENTS.md. .", "names 'AGENTS.md'"), ("node_modules.", "names 'node_modules'"),
    ("vendor ", "names 'vendor'"), ("...", "only dots and spaces"),
    ("notes:x.md", "the stream 'x.md' of the file 'notes'"),
    ("CLAUDE.md::$DATA", "the stream ':$DATA' of the file 'CLAUDE.md'"),
    ("AGENTS.md:evil", "the stream 'evil' of the file 'AGENTS.md'"),
    ("CON", "the device CON"), ("nul", "the device NUL"), ("AUX.md", "the device AUX"),
    ("com1.md", "the device COM1"), ("LPT9.mdc", "the device LPT9"),
    ("conin$.md", "the device CONIN$"), ("nul .md", "the device NUL"),
    ("COM\xb9.md", "the device COM\xb9"),
    ("a*b.md", "holds '*'"), ("why?.md", "holds '?'"), ('a"b.md', "holds '\"'"),
    ("a|b.md", "holds '|'"), ("a\x01b.md", "holds '\\x01'"),
]
# Names Windows keeps as they are: learn's own, and look-alikes that are not devices.
KEPT = ["CLAUDE.md", ".claude", "settings.local.json", "my-aux.md", "auxiliary.md",
        "console.md", "com10.md", "lpt.md", "nullable.md", "a.b.md", "CLAUDE~1.MD",
        "v1.2", ".", "..", "OneDrive - Contoso", "$Recycle.Bin"]


__all__ = ["windows"]  # the fixture, from tests/_windows_sim.py


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "work" / "shop"
    (root / ".git").mkdir(parents=True)
    return root


@pytest.mark.parametrize(("name", "said"), REINTERPRETED)
def test_a_name_windows_reads_as_another_says_what_windows_makes_of_it(
        name: str, said: str) -> None:
    why = name_refusal(name)
    assert why is not None and said in why


@pytest.mark.parametrize("name", KEPT)
def test_a_name_windows_keeps_is_no_refusal(name: str) -> None:
    assert name_refusal(name) is None


def test_the_names_are_those_pythons_own_windows_rules_reserve() -> None:
    # Python 3.13's ntpath.isreserved models the same rules; where this Python has it,
    # the two agree on every name above ('.' and '..' are path steps to both).
    isreserved = getattr(ntpath, "isreserved", None)
    if isreserved is None:
        pytest.skip("ntpath.isreserved is Python 3.13's")
    for name, _ in REINTERPRETED:
        assert isreserved(name), name
    for name in KEPT:
        assert not isreserved(name), name


def test_a_windows_path_is_read_below_its_drive_or_share() -> None:
    # The drive (`C:`), a share and the `\\?\` prefix are no names; every name below is.
    assert path_refusal(PureWindowsPath(r"C:\Users\ana\shop\CLAUDE.md")) is None
    assert path_refusal(PureWindowsPath(r"\\?\C:\Users\ana\shop\CLAUDE.md")) is None
    assert path_refusal(PureWindowsPath(r"\\server\share\shop\AGENTS.md")) is None
    why = path_refusal(PureWindowsPath(r"C:\Users\ana\shop\.claude\rules\notes:x.md"))
    assert why is not None and "stream 'x.md'" in why
    why = path_refusal(PureWindowsPath("C:/Users/ana/shop/node_modules./pkg/CLAUDE.md"))
    assert why is not None and "names 'node_modules'" in why


@pytest.mark.parametrize(("rel", "said"), [
    # A folder Windows makes as a dependency folder a `**` never crosses: passed as "a
    # sub-folder's CLAUDE.md", and written into node_modules\CLAUDE.md.
    ("node_modules./CLAUDE.md", "names 'node_modules'"),
    ("vendor /pkg/AGENTS.md", "names 'vendor'"),
    ("dist./GEMINI.md", "names 'dist'"),
    # A stream of another file, under a name that matches a surface's glob.
    (".claude/rules/notes:x.md", "the stream 'x.md' of the file 'notes'"),
    (".claude/commands/deploy.sh:x.md", "the file 'deploy.sh'"),
    (".github/instructions/a:b.instructions.md", "the stream 'b.instructions.md'"),
    (".cursor/rules/x:y.mdc", "the stream 'y.mdc'"),
    # A device, in every folder.
    (".claude/rules/aux.md", "the device AUX"),
    (".claude/commands/CON.md", "the device CON"),
    (".kiro/steering/com1.md", "the device COM1"),
    (".windsurf/rules/nul.md", "the device NUL"),
    # No file's name: realpath keeps it, Windows fails it late.
    (".claude/rules/why?.md", "holds '?'"),
])
def test_a_surface_spelled_as_windows_reads_another_file_is_refused_there(
        project: Path, rel: str, said: str, windows: None) -> None:
    with pytest.raises(ConfinementError, match="not a name Windows keeps") as refused:
        confine(project / rel, [project])
    assert said in str(refused.value) and "nothing was written" in str(refused.value)


@pytest.mark.parametrize("rel", [
    "node_modules./CLAUDE.md", ".claude/rules/notes:x.md", ".claude/rules/aux.md",
])
def test_the_same_names_are_the_files_they_say_on_posix(project: Path, rel: str) -> None:
    # On Linux and macOS each is a file of its own name: written as before.
    assert confine(project / rel, [project]) == project / rel


def test_a_users_file_spelled_as_windows_reads_another_is_refused_there(windows: None) -> None:
    home = Path(os.environ["HOME"])
    for rel in (".codex/rules/default:x.rules", ".claude/rules/prn.md",
                ".codex/prompts/review.md ", ".claude/commands/lpt1.md"):
        assert not may_write(home / rel), rel
    assert may_write(home / ".codex" / "rules" / "default.rules")


@pytest.mark.parametrize("rel", ["CLAUDE.md.", "CLAUDE.md ", "CLAUDE.md::$DATA",
                                 "AGENTS.md:evil", ".claude/settings.json.",
                                 ".claude./settings.json"])
def test_an_instruction_file_named_with_what_windows_drops_is_refused_on_either(
        project: Path, rel: str, windows: None, monkeypatch: pytest.MonkeyPatch) -> None:
    # Windows opens CLAUDE.md for each of the first two, and CLAUDE.md::$DATA is CLAUDE.md
    # itself: refused, never mapped to the name Windows would use.
    (project / "CLAUDE.md").write_text("# Shop\n")
    assert not may_write(project / rel, [project])
    monkeypatch.setattr(windows_names, "WINDOWS", False)
    assert not may_write(project / rel, [project])  # and by name on POSIX, as before


@pytest.mark.parametrize(("rel", "kind"), [
    ("claude.md", "instructions"), ("Claude.local.md", "instructions"),
    ("agents.md", "instructions"), ("sub/Agents.md", "instructions"),
    (".claude/Rules/testing.md", "instructions"), (".Claude/commands/Release.MD", "command"),
    (".claude/Settings.JSON", "claude-settings"), (".github/Copilot-Instructions.md",
                                                   "instructions"),
])
def test_a_surface_in_another_case_is_that_surface_on_windows(
        project: Path, rel: str, kind: str, windows: None,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # NTFS opens `claude.md` for CLAUDE.md: the file Claude Code reads there, refused as
    # "not an instruction file" before. It is of the kind its folded name says.
    path = project / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("x\n")
    assert confine(path, [project]) == path
    found = surface_of(path, (project,))
    assert found is not None and found.kind == kind
    monkeypatch.setattr(windows_names, "WINDOWS", False)
    assert not may_write(path, [project])  # POSIX: another file than CLAUDE.md, as before


def test_folding_lets_no_link_through_to_another_kind(project: Path, windows: None) -> None:
    # Folded, `.claude/Settings.JSON` is Claude Code's settings (it is, on Windows), so a
    # CLAUDE.md linked to it is a link from instructions to settings: refused.
    settings = project / ".claude" / "Settings.JSON"
    settings.parent.mkdir()
    settings.write_text("{}\n")
    (project / "CLAUDE.md").symlink_to(settings)
    with pytest.raises(ConfinementError, match="Claude Code settings JSON"):
        confine(project / "CLAUDE.md", [project])
    assert settings.read_text() == "{}\n"
    # Nor does a folded name make a dependency or hidden folder crossable.
    for rel in ("Node_Modules/CLAUDE.md", ".Git/CLAUDE.md", ".claude/Rules/x.TXT"):
        assert not may_write(project / rel, [project]), rel


def test_windows_names_and_folding_leave_a_write_through_apply_as_it_was(
        project: Path, windows: None) -> None:
    # apply's own path, end to end, with Windows' rules on: the lowercase CLAUDE.md gets
    # the rule, as Claude Code on Windows reads it.
    from learn.report.apply import plan_file, write_plan
    from learn.report.edits import RuleEdit

    memory = project / "claude.md"
    memory.write_text("# Shop\n")
    edit = RuleEdit(key="directive:use-bun", text="Use bun, not npm.", target=memory,
                    provenance="2 sessions", project=project)
    plan = plan_file(memory, [edit], [project])
    assert plan.path == memory
    write_plan(plan)
    assert "Use bun, not npm." in memory.read_text()


def _unshare_bind(tmp_path: Path, body: str) -> subprocess.CompletedProcess[str] | None:
    """`body` run by Python with HOME bind-mounted at tmp_path/alias, in a mount
    namespace of its own; None where this machine cannot make one."""
    unshare = shutil.which("unshare")
    if unshare is None or sys.platform != "linux":
        return None
    home = Path(os.environ["HOME"])
    alias = tmp_path / "alias"
    alias.mkdir()
    script = tmp_path / "run.py"
    script.write_text(body)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [unshare, "-rm", "sh", "-c",
         f'mount --bind "{home}" "{alias}" || exit 77; exec "{sys.executable}" "{script}"'],
        capture_output=True, text=True, env=env, timeout=120)
    return None if done.returncode == 77 or "unshare:" in done.stderr else done


def test_home_by_another_spelling_realpath_keeps_is_no_project(tmp_path: Path) -> None:
    # On Windows `\\localhost\C$\Users\ana` (or a drive mapped to it) is the home folder,
    # and realpath keeps the share's spelling. Taken as a project root, its
    # `.claude/settings.json` was "the project's settings": the person's own, where
    # learn then wrote a project's deny rules and its check hook.
    home = Path(os.environ["HOME"])
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text("{}\n")
    alias = tmp_path / "alias"
    done = _unshare_bind(tmp_path, f'''
from pathlib import Path
from learn.report.confine import may_write, project_roots
alias = Path({str(alias)!r})
assert (alias / ".claude" / "settings.json").read_text() == "{{}}\\n"  # one folder
print(project_roots([alias, alias / "code"]))
print(may_write(alias / ".claude" / "settings.json", [alias]),
      may_write(alias / "CLAUDE.md", [alias]),
      may_write(alias / "code" / "CLAUDE.md", [alias / "code"]))
''')
    if done is None:
        pytest.skip("no mount namespace here to make a second path to one folder")
    assert done.returncode == 0, done.stderr
    roots, writes = done.stdout.splitlines()
    assert roots == repr((alias / "code",))
    # The person's settings and ~/CLAUDE.md are no project's; a project below home is.
    assert writes == "False False True"


def test_project_roots_keep_every_folder_that_is_not_home(project: Path, tmp_path: Path) -> None:
    # The check by what a folder is refuses home and above only: a project, a folder
    # that does not exist yet and a sibling of home are roots as before.
    home = Path(os.environ["HOME"])
    assert project_roots([project, tmp_path / "missing", home.parent / "other"]) == (
        project, tmp_path / "missing", home.parent / "other")
    assert project_roots([home, home.parent, Path(home.anchor)]) == ()


def test_a_name_joined_onto_a_folder_never_leaves_it_as_an_absolute_path() -> None:
    # A name from a proposal joined on Windows: another drive's relative name is a
    # relative path (refused: confine writes only absolute ones), this drive's stays in
    # the folder, and a rooted one is outside every project (refused as no surface).
    rules = PureWindowsPath(r"C:\Users\ana\shop\.claude\rules")
    assert not (rules / "D:evil.md").is_absolute()
    assert rules / "C:evil.md" == rules / "evil.md"
    assert rules / "\\evil.md" == PureWindowsPath(r"C:\evil.md")
    assert not PureWindowsPath("C:CLAUDE.md").is_absolute()
    assert not PureWindowsPath(r"\Users\ana\shop\CLAUDE.md").is_absolute()


def test_the_last_look_before_a_rename_follows_no_link_where_there_is_no_o_nofollow(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Windows' os has no O_NOFOLLOW and no dir_fd: the look at the file just before the
    # rename opened a link swapped in at its name and read the link's target as the
    # file (its bytes, which passed the "unchanged since planning" look when they were
    # the same, and its mode). It is refused as a link now, as O_NOFOLLOW refuses it.
    from learn import osflags
    from learn.report import held_folder
    from learn.report.errors import ConcurrentEditError

    monkeypatch.setattr(held_folder, "BY_FOLDER", False)
    monkeypatch.setattr(held_folder, "_NOFOLLOW", 0)
    monkeypatch.setattr(held_folder, "_READ_FLAGS", osflags.READ)
    elsewhere = tmp_path / "elsewhere.md"
    elsewhere.write_text("# Shop\n")
    folder = held_folder.hold(project, held_folder.seen(project), private=False)
    assert held_folder.held_now(folder, "CLAUDE.md") is None
    (project / "CLAUDE.md").write_text("# Shop\n")
    held = held_folder.held_now(folder, "CLAUDE.md")
    assert held is not None and held.data == b"# Shop\n"
    (project / "CLAUDE.md").unlink()
    (project / "CLAUDE.md").symlink_to(elsewhere)
    with pytest.raises(ConcurrentEditError, match="is now a link"):
        held_folder.held_now(folder, "CLAUDE.md")


def test_apply_and_undo_on_simulated_windows_write_the_lowercase_memory(tmp_path: Path) -> None:
    # The whole of `learn apply` and `--undo` where `os` is Windows' (no O_NOFOLLOW, no
    # dir_fd, text-mode fds: tests/test_windows_sim.py) and names are read by Windows'
    # rules: the person's `claude.md` gets the rule, and undo puts back its bytes.
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    memory = project / "claude.md"
    memory.write_bytes(b"# Shop\r\n")
    done = run_simulated(tmp_path, record_bun_script(tmp_path, project) + '''
from click.testing import CliRunner
from learn import windows_names
windows_names.WINDOWS = True
from learn.commands.apply import command

res = CliRunner().invoke(command, ["--project", project, "--yes", "--file",
                                   str(Path(project, "claude.md"))])
assert res.exit_code == 0 and res.exception is None, (res.output, res.exception)
print(repr(Path(project, "claude.md").read_bytes()))
res = CliRunner().invoke(command, ["--project", project, "--undo", "--yes"])
assert res.exit_code == 0 and res.exception is None, (res.output, res.exception)
''')
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    applied = eval(done.stdout.strip().splitlines()[-1])  # a bytes repr this test printed
    assert applied.startswith(b"# Shop\r\n") and b"Use bun, not npm." in applied
    assert memory.read_bytes() == b"# Shop\r\n"


def test_a_file_windows_gives_no_count_of_names_is_refused_there(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # os.lstat on Windows counts a file's names from the open file
    # (GetFileInformationByHandle: real on NTFS, 1 on FAT). A file it may not open
    # (ERROR_ACCESS_DENIED, ERROR_SHARING_VIOLATION) is read from its folder's listing
    # instead (CPython's attributes_from_dir), which has no count: st_nlink 0, which
    # `> 1` took for one name. Modelled: lstat answers for the file as that path does.
    memory = project / "CLAUDE.md"
    memory.write_text("# Shop\n")
    lstat = Path.lstat

    def listed(self: Path) -> os.stat_result:
        st = lstat(self)
        if self != memory:
            return st
        fields = list(st)
        fields[3] = 0  # st_nlink
        return os.stat_result(fields)

    monkeypatch.setattr(Path, "lstat", listed)
    assert confine(memory, [project]) == memory  # POSIX: no such answer, as before
    monkeypatch.setattr(windows_names, "WINDOWS", True)
    with pytest.raises(ConfinementError, match="cannot be opened to count its names"):
        confine(memory, [project])


@pytest.mark.parametrize(("named", "said"), [
    ("node_modules./CLAUDE.md", "names 'node_modules'"),
    (".claude/rules/notes:tooling.md", "the stream 'tooling.md' of the file 'notes'"),
    (".claude/rules/aux.md", "the device AUX"),
])
def test_apply_file_spelled_as_windows_reads_another_writes_nothing_there(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, named: str, said: str) -> None:
    # `learn apply --file X` (typed, or from `/learn` inside Claude Code) makes X absolute
    # with pathlib, which keeps every name as typed; on Windows confine saw a sub-folder's
    # CLAUDE.md, a rules file, and Windows then made node_modules\CLAUDE.md, a stream of
    # `notes`, the device AUX. Here (POSIX names, Windows' rules) nothing is made at all.
    from click.testing import CliRunner

    from learn.commands.apply import command

    for name in ("DATA", "CONFIG", "CACHE"):
        monkeypatch.setenv(f"LEARN_{name}_DIR", str(tmp_path / name.lower()))
    monkeypatch.delenv("LEARN_DATABASE_URL", raising=False)
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    record_bun(tmp_path / "data", project)
    monkeypatch.setattr(windows_names, "WINDOWS", True)
    monkeypatch.chdir(project)
    res = CliRunner().invoke(command, ["--project", str(project), "--yes", "--file", named])
    assert res.exit_code != 0
    assert "not a name Windows keeps" in res.output and said in res.output
    assert sorted(p.name for p in project.iterdir()) == [".git"]  # nothing made
