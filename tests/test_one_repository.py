"""One repository, one project; one typed turn, one session — end to end, on real git.

A repository checked out with `git init`, two sibling worktrees added with `git
worktree add` (one removed, with its branch, after its session), a Claude Code
desktop worktree in `.claude/worktrees/<name>`, a session in a sub-folder, a
Windows vault spelled `C:\\` and `c:\\` with a desktop worktree and a sub-folder,
a Codex session from a folder this machine never had, and a session forked with
`/branch`. Sessions are written in Claude Code's and Codex's formats (cwd,
gitBranch, forkedFrom; session_meta's git), in words of our own.

Each point said across them is counted once per session over all of them; `learn
digest --project` and `learn apply --dry-run` from any of the folders (and from an
unrelated folder with `--project`) show the same proposals and write to the
checkout they run in; the forked session's copied turn counts once.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from _git import git, needs_git
from _learn_cli import learn, learn_env

from evals.builder.claude import ClaudeSession
from evals.builder.codex import CodexSession
from evals.builder.common import stable_uuid
from learn.projects import path_key

REPO = Path(__file__).resolve().parents[1]
pytestmark = needs_git

CENTS = "keep the order totals in integer cents, never floats"
INBOX = "write each daily note into the inbox folder first"
MIGRATE = "run the migration check before you push anything"
VAULT = r"C:\Users\ana\VAULT"
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)




def session(n: int, cwd: str, branch: str, reason: str | None) -> ClaudeSession:
    s = ClaudeSession(stable_uuid("one-repo", str(n)), cwd, START + timedelta(hours=n),
                      git_branch=branch)
    s.user("let's tidy the checkout code")
    s.assistant("I'll edit the totals module.")
    if reason is not None:
        s.denied_tool("Edit", {"file_path": f"{cwd}/totals.py", "old_string": "a",
                               "new_string": "b"}, reason)
    s.assistant("Understood.")
    return s


@pytest.fixture()
def world(tmp_path: Path) -> dict[str, Path]:
    home = Path(os.environ["HOME"])
    claude = home / ".claude"
    shop = home / "src" / "shop"
    shop.mkdir(parents=True)
    git("init", "-q", "-b", "main", cwd=shop)
    git("remote", "add", "origin", "git@github.com:Acme/Shop.git", cwd=shop)
    (shop / "README.md").write_text("shop\n")
    git("add", "README.md", cwd=shop)
    git("commit", "-q", "-m", "init", cwd=shop)
    fix, gone = home / "src" / "shop-fix-total", home / "src" / "shop-tidy-logs"
    desktop = shop / ".claude" / "worktrees" / "calm-fox"
    git("worktree", "add", "-q", str(fix), "-b", "fix-total", cwd=shop)
    git("worktree", "add", "-q", str(gone), "-b", "tidy-logs", cwd=shop)
    git("worktree", "add", "-q", str(desktop), "-b", "calm-fox", cwd=shop)
    ui = shop / "packages" / "ui"
    ui.mkdir(parents=True)

    # The same correction typed in five checkouts and folders of one repository.
    for n, (cwd, branch) in enumerate([(shop, "main"), (fix, "fix-total"), (gone, "tidy-logs"),
                                       (desktop, "calm-fox"), (ui, "main")]):
        session(n, str(cwd), branch, CENTS).write(claude)
    # A Windows vault, both spellings, a desktop worktree and a sub-folder.
    for n, cwd in enumerate([VAULT, r"c:\users\ana\vault\.claude\worktrees\brave-owl",
                             r"c:\Users\ana\VAULT\notes"], start=10):
        session(n, cwd, "main", INBOX).write(claude)
    # Typed once, then the session was forked: the fork's copy is not a second session.
    first = session(20, str(shop), "main", MIGRATE)
    first.write(claude)
    fork = ClaudeSession(stable_uuid("one-repo", "fork"), str(shop), first.last_time,
                         git_branch="main")
    fork.fork_from(first)
    fork.user("now the invoice export, please")
    fork.assistant("On it.")
    fork.write(claude)
    # Codex in a folder this machine never had, recording the repository.
    codex = CodexSession("0199a0b1-2c3d-7e4f-8a9b-0c1d2e3f4a77", "/home/runner/work/shop/shop",
                         START + timedelta(hours=30),
                         git={"repository_url": "https://github.com/acme/shop",
                              "branch": "ci-fix", "commit_hash": "0" * 40})
    codex.user("please look at the failing export job")
    codex.assistant("Looking.")
    codex.write(home / ".codex")
    return {"home": home, "shop": shop, "fix": fix, "gone": gone, "desktop": desktop, "ui": ui,
            "elsewhere": tmp_path / "elsewhere", "fork": Path(fork.session_id),
            "first": Path(first.session_id)}


def keys(data: dict[str, object]) -> dict[str, int]:
    proposals = data["proposals"]
    assert isinstance(proposals, list)
    return {f"{p['kind']}:{p['label']}": int(p["sessions"]) for p in proposals}


def test_one_repository_is_one_project_from_every_folder(world: dict[str, Path]) -> None:
    home, shop, elsewhere = world["home"], world["shop"], world["elsewhere"]
    # learn had listed the sessions while the worktree was there; then it was
    # removed with its branch: only what learn remembered places it now.
    listed = learn("sessions", "--all-projects", "--json", cwd=home)
    assert listed.returncode == 0, listed.stderr
    git("worktree", "remove", "--force", str(world["gone"]), cwd=shop)
    git("branch", "-D", "tidy-logs", cwd=shop)
    assert not world["gone"].exists()

    rows = json.loads(learn("sessions", "--all-projects", "--json", cwd=home).stdout)["sessions"]
    projects = {r["cwd"]: r["project"] for r in rows}
    for folder in ("shop", "fix", "gone", "desktop", "ui"):
        assert projects[str(world[folder])] == str(shop), folder
    assert projects["/home/runner/work/shop/shop"] == str(shop)  # Codex: its repository URL
    assert {projects[c] for c in (VAULT, r"c:\users\ana\vault\.claude\worktrees\brave-owl",
                                  r"c:\Users\ana\VAULT\notes")} == {VAULT}

    run = learn("run", "--offline", "--all-projects", "--since", "2026-01-01", "--json",
                "--quiet", cwd=home)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    counted = keys(result)
    by_text = {p["text"]: f"{p['kind']}:{p['label']}" for p in result["proposals"]}
    cents, inbox = by_text[CENTS], by_text[INBOX]
    assert counted[cents] == 5 and counted[inbox] == 3, counted
    # Typed once before the fork: one session, below the two-session threshold.
    assert MIGRATE not in by_text, counted
    by_key = {f"{p['kind']}:{p['label']}": p for p in result["proposals"]}
    assert by_key[cents]["project"] == str(shop)
    assert by_key[inbox]["project"] == path_key(VAULT)
    # The digest's header names the two projects, each once, in the spelling used most;
    # its window opens at the earliest turn read.
    header = learn("digest", "--all-projects", cwd=home).stdout.splitlines()[0]
    assert f"in `{shop}`, `{VAULT}`, 2026-03-02 to 2026-03-03." in header, header

    # The same pending proposal, from every folder of the repository and from an
    # unrelated folder naming any of them (the removed worktree included).
    seen = []
    for folder in ("shop", "fix", "desktop", "ui"):
        seen.append(learn("digest", "--json", cwd=world[folder]))
    for folder in ("shop", "fix", "gone", "desktop", "ui"):
        seen.append(learn("digest", "--json", "--project", str(world[folder]), cwd=elsewhere))
    for proc in seen:
        assert proc.returncode == 0, proc.stderr
        assert keys(json.loads(proc.stdout)) == {cents: 5}
    for spelled in (VAULT, r"c:\users\ana\vault", r"C:\Users\ana\VAULT\.claude\worktrees\brave-owl"):
        proc = learn("digest", "--json", "--project", spelled, cwd=elsewhere)
        assert proc.returncode == 0, proc.stderr
        assert keys(json.loads(proc.stdout)) == {inbox: 3}

    # Apply writes into the checkout it runs in, a worktree said so; never "which project?".
    def dry(cwd: Path, *extra: str) -> str:
        proc = learn("apply", "--dry-run", "--yes", *extra, cwd=cwd)
        assert proc.returncode == 0, proc.stderr
        assert "several projects" not in proc.stdout + proc.stderr
        return proc.stdout

    assert f"+++ {shop / 'CLAUDE.md'}" in dry(shop)
    assert f"+++ {shop / 'CLAUDE.md'}" in dry(world["ui"])
    assert f"+++ {shop / 'CLAUDE.md'}" in dry(elsewhere, "--project", str(world["gone"]))
    in_fix = dry(world["fix"])
    assert f"+++ {world['fix'] / 'CLAUDE.md'}" in in_fix
    assert f"is in the worktree {world['fix']} of {shop}" in in_fix
    assert f"+++ {world['desktop'] / 'CLAUDE.md'}" in dry(world["desktop"])
    for path in (shop, world["fix"], world["desktop"], world["ui"]):
        assert not (path / "CLAUDE.md").exists()  # a dry run writes nothing

    # The vault is another machine's folder: refused, and nothing glued to this one's.
    proc = learn("apply", "--dry-run", "--yes", "--project", VAULT, cwd=elsewhere)
    assert proc.returncode != 0
    assert f"{VAULT} is a folder of another system (a Windows path)" in proc.stderr, proc.stderr
    assert not any("VAULT" in p.name or "vault" in p.name for p in elsewhere.rglob("*"))


def test_a_forked_sessions_copied_turns_count_once_in_the_session_typed(
        world: dict[str, Path], tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.mkdir()
    (config / "config.toml").write_text("[thresholds]\ndirective = 1\n")
    env = learn_env(LEARN_CONFIG_DIR=str(config))
    run = learn("run", "--offline", "--all-projects", "--since", "2026-01-01", "--json",
                "--quiet", cwd=world["home"], env=env)
    assert run.returncode == 0, run.stderr
    said = [p for p in json.loads(run.stdout)["proposals"] if p["text"] == MIGRATE]
    # Typed once, before the fork copied it: one session, the one it was typed in.
    assert [(p["sessions"], [q["session_id"] for q in p["quotes"]]) for p in said] == [
        (1, [str(world["first"])])]
    # The fork's file still shows what it holds (learn show reads the file).
    shown = learn("show", str(world["fork"]), "--json", cwd=world["home"])
    assert shown.returncode == 0, shown.stderr
    view = json.loads(shown.stdout)
    assert view["started_at"] > json.loads(learn("show", str(world["first"]), "--json",
                                                 cwd=world["home"]).stdout)["started_at"]


def test_the_listing_and_show_agree_and_every_listed_id_opens(world: dict[str, Path]) -> None:
    home, shop = world["home"], world["shop"]
    # A session file renamed by hand: listed by the id its content carries.
    named = next((home / ".claude" / "projects").rglob(f"{world['first']}.jsonl"))
    renamed = named.with_name("exported copy.jsonl")
    named.rename(renamed)
    listing = learn("sessions", "--json", cwd=world["ui"])  # a sub-folder: the repository
    assert listing.returncode == 0, listing.stderr
    rows = json.loads(listing.stdout)["sessions"]
    assert {r["project"] for r in rows} == {str(shop)} and len(rows) == 8
    assert str(world["first"]) in {r["id"] for r in rows}
    for row in rows:
        shown = learn("show", row["id"], "--json", cwd=world["desktop"])
        assert shown.returncode == 0, (row["id"], shown.stderr)
        view = json.loads(shown.stdout)
        assert view["human_turns"] == row["human_turns"], row["cwd"]


def test_a_rule_written_in_a_worktree_is_undone_and_pruned_there(world: dict[str, Path]) -> None:
    home, fix = world["home"], world["fix"]
    run = learn("run", "--offline", "--all-projects", "--since", "2026-01-01", "--json",
                "--quiet", cwd=home)
    assert run.returncode == 0, run.stderr
    cents = next(f"{p['kind']}:{p['label']}" for p in json.loads(run.stdout)["proposals"]
                 if p["text"] == CENTS)
    target = fix / "CLAUDE.md"

    wrote = learn("apply", "--only", cents, "--yes", cwd=fix)
    assert wrote.returncode == 0, wrote.stdout + wrote.stderr
    assert "integer cents" in target.read_text()
    assert not (world["shop"] / "CLAUDE.md").exists()
    undone = learn("apply", "--undo", "--yes", cwd=fix)
    assert undone.returncode == 0, undone.stdout + undone.stderr
    assert not target.exists()

    again = learn("apply", "--only", cents, "--yes", cwd=fix)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "integer cents" in target.read_text()
    pruned = learn("apply", "--prune", cents, "--yes", cwd=fix)
    assert pruned.returncode == 0, pruned.stdout + pruned.stderr
    assert "integer cents" not in target.read_text()


def test_a_repository_opted_in_to_sharing_is_shared_from_any_of_its_checkouts(
        world: dict[str, Path], tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.mkdir()
    (config / "config.toml").write_text(f'[team]\nauthor = "ana"\nprojects = ["{world["shop"]}"]\n')
    env = learn_env(LEARN_CONFIG_DIR=str(config))
    run = learn("run", "--offline", "--all-projects", "--since", "2026-01-01", "--json",
                "--quiet", cwd=world["home"], env=env)
    assert run.returncode == 0, run.stderr

    def shared(cwd: Path) -> list[dict[str, object]]:
        proc = learn("share", "--dry-run", cwd=cwd, env=env)
        assert proc.returncode == 0, proc.stderr
        return [json.loads(line) for line in proc.stdout.splitlines()]

    from_main = shared(world["shop"])
    # The worktrees' and the sub-folder's sessions are the repository's, under its id.
    assert sum(r["quote"] == CENTS for r in from_main) == 5
    assert {r["project_remote"] for r in from_main} == {"github.com/acme/shop"}
    for folder in ("fix", "desktop", "ui"):
        assert shared(world[folder]) == from_main, folder
    # The vault is not opted in, from any spelling of it.
    refused = learn("share", "--dry-run", "--project", VAULT, cwd=world["elsewhere"], env=env)
    assert refused.returncode == 2 and "not opted in" in refused.stderr
