"""A project's identity across git checkouts, audited on real git (learn.projects).

People work in linked worktrees (`git worktree add`, Claude Code desktop's
`<repo>/.claude/worktrees/<name>`), in submodules, in repositories moved since.
Every layout here is made with the `git` CLI and checked against what `git` says
of it. What failed before: a worktree whose repository was moved or deleted (its
own project, and what learn remembered of it overwritten with that), a worktree
of a submodule (the submodule's git dir, a project apart from the submodule),
`apply` in a worktree rewriting a rule in the main checkout, the other agents'
copies of a rule written into the folder above the project `apply` ran from, a
worktree using no agent but those with files in it, and a rule said in a folder
above home written there.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from learn.projects import Hints, Known, as_folder, checkout_root, project_of
from learn.records.proposal import Proposal, Quote, Verdict
from learn.reduce.rule_places import chain
from learn.report.agent_targets import agent_edits, agents_in_use
from learn.report.apply import edit_for, plan_all, write_plan
from learn.report.targets import TargetChoice, TargetError, choose

GIT = shutil.which("git")
pytestmark = pytest.mark.skipif(GIT is None, reason="git is not installed")
RULE = "- Use npm for every script."


def git(*args: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    return subprocess.run([GIT or "git", "-c", "protocol.file.allow=always", *args], cwd=cwd,
                          env=env, check=check, capture_output=True, text=True)


def repository(root: Path, files: dict[str, str] | None = None) -> Path:
    root.mkdir(parents=True)
    git("init", "-q", "-b", "main", cwd=root)
    for name, text in (files or {"a.txt": "a\n"}).items():
        (root / name).write_text(text)
        git("add", name, cwd=root)
    git("commit", "-q", "-m", "one", cwd=root)
    return root


def worktree(repo: Path, folder: Path, branch: str) -> Path:
    git("worktree", "add", "-q", str(folder), "-b", branch, cwd=repo)
    return folder


def said_in(*folders: Path, status: str = "new", existing: Path | None = None) -> Proposal:
    quotes = tuple(Quote(f"s{i}", "use npm", f"2026-11-0{i + 1}T00:00:00Z", project=str(f))
                   for i, f in enumerate(folders))
    verdict = Verdict(True, "Run scripts with npm, never yarn.", "tooling", "project", 0.9)
    p = Proposal(kind="directive", label="use-npm", text="use npm", sessions=len(folders),
                 count=len(folders), last_seen="2026-11-02T00:00:00Z", quotes=quotes,
                 verdict=verdict)
    if existing is None:
        return p
    return dataclasses.replace(p, status=status, existing_rule_file=str(existing),
                               existing_rule=RULE)


# ------------------------------------------------------------------ identity


def test_every_checkout_and_spelling_of_a_worktree_is_its_repository(tmp_path: Path) -> None:
    repo = repository(tmp_path / "repo")
    fix = worktree(repo, tmp_path / "repo-fix", "fix")
    desk = worktree(repo, repo / ".claude" / "worktrees" / "calm-fox", "calm-fox")
    rel = worktree(repo, tmp_path / "repo-rel", "rel")
    crlf = worktree(repo, tmp_path / "repo-crlf", "crlf")
    (rel / ".git").write_text("gitdir: ../repo/.git/worktrees/repo-rel\n")
    (crlf / ".git").write_bytes(f"gitdir: {repo}/.git/worktrees/repo-crlf\r\n".encode())
    for checkout in (rel, crlf):  # git reads both
        assert git("rev-parse", "--show-toplevel", cwd=checkout).stdout.strip() == str(checkout)
    (fix / "src" / "deep").mkdir(parents=True)
    for folder, root in [(repo, repo), (fix, fix), (fix / "src" / "deep", fix), (desk, desk),
                         (desk / "gone-since", desk), (rel, rel), (crlf, crlf)]:
        assert project_of(folder) == str(repo), folder
        assert checkout_root(folder) == str(root), folder
    assert project_of(f"{fix}/") == project_of(f"{fix}/src/../") == str(repo)
    # Where Claude Code and Codex read instruction files from: the checkout down.
    assert chain(fix / "src" / "deep") == [fix, fix / "src", fix / "src" / "deep"]


def test_a_worktree_whose_repository_was_moved_or_deleted_keeps_its_project(
        tmp_path: Path) -> None:
    repo = repository(tmp_path / "repo")
    fix = worktree(repo, tmp_path / "repo-fix", "fix")
    desk = worktree(repo, repo / ".claude" / "worktrees" / "calm-fox", "calm-fox")
    (fix / "src").mkdir()
    seen = Known()
    assert project_of(fix / "src", seen) == str(repo)
    remembered = dict(seen.learned)

    moved = tmp_path / "moved" / "repo"
    moved.parent.mkdir()
    repo.rename(moved)
    assert "not a git repository" in git("status", cwd=fix, check=False).stderr
    # The checkout is still where apply writes; whose it is, learn remembers.
    assert checkout_root(fix / "src") == str(fix)
    again = Known(remembered=remembered)
    assert project_of(fix / "src", again) == str(repo)
    assert again.learned == {}  # a broken checkout teaches nothing to remember
    # Never seen before: the git dir's own name says which repository it was.
    assert project_of(fix) == str(repo)
    # Where it sits: a desktop worktree moved with its repository is that repository's.
    moved_desk = moved / desk.relative_to(repo)
    assert "not a git repository" in git("status", cwd=moved_desk, check=False).stderr
    assert project_of(moved_desk) == str(moved)
    assert checkout_root(moved_desk) == str(moved_desk)
    # Or what the transcript recorded: a branch of a repository beside it.
    beside = moved.parent / "repo-fix"
    fix.rename(beside)
    known = Known()
    known.add_folder(str(moved), Hints("main"))
    assert project_of(beside, known, Hints("fix")) == str(moved)

    shutil.rmtree(moved)  # deleted outright: still the repository it was
    assert project_of(beside) == str(repo)


def test_a_worktree_of_a_submodule_is_the_submodules_project(tmp_path: Path) -> None:
    lib = repository(tmp_path / "lib")
    app = repository(tmp_path / "app")
    git("submodule", "add", "-q", str(lib), "vendor/lib", cwd=app)
    sub = app / "vendor" / "lib"
    assert (sub / ".git").read_text().startswith("gitdir: ../../.git/modules/")
    lib_fix = worktree(sub, tmp_path / "lib-fix", "fix")
    common = git("rev-parse", "--git-common-dir", cwd=lib_fix).stdout.strip()
    assert Path(common) == app / ".git" / "modules" / "vendor" / "lib"
    assert project_of(sub) == project_of(lib_fix) == project_of(sub / "src") == str(sub)
    assert project_of(app) == str(app)
    assert checkout_root(lib_fix) == str(lib_fix)


def test_bare_nested_broken_and_plain_folders(tmp_path: Path) -> None:
    repo = repository(tmp_path / "repo")
    # A bare repository's worktree: the git dir is the project, no folder to write from
    # elsewhere; the worktree is where apply run in it writes.
    bare = tmp_path / "shop.git"
    git("clone", "-q", "--bare", str(repo), str(bare), cwd=tmp_path)
    wt = worktree(bare, tmp_path / "shop-wt", "wt")
    assert project_of(wt) == project_of(bare) == str(bare)
    assert checkout_root(wt) == str(wt) and checkout_root(bare) is None
    assert as_folder(str(bare)) is None
    # A repository inside another is its own.
    inner = repository(repo / "tools" / "inner")
    assert project_of(inner / "x") == str(inner) and project_of(repo / "tools") == str(repo)
    # A `.git` file of junk: git refuses it; it names no repository, the folder stays
    # its enclosing repository's.
    junk = repo / "junk"
    junk.mkdir()
    (junk / ".git").write_text("this is not a gitdir line\n")
    assert "invalid gitfile" in git("status", cwd=junk, check=False).stderr
    assert project_of(junk) == str(repo)
    # A gitdir out through `..` to a folder that is no git dir: git refuses it; the folder
    # is a checkout of its own, no folder above it claims it.
    out = repo / "out"
    out.mkdir()
    (out / ".git").write_text("gitdir: ../../..\n")
    assert "not a git repository" in git("status", cwd=out, check=False).stderr
    assert project_of(out / "sub") == str(out) and checkout_root(out) == str(out)
    # Through `..` into a real worktree's git dir: git takes it for that repository, so
    # does learn.
    stray = tmp_path / "stray"
    stray.mkdir()
    worktree(repo, tmp_path / "repo-b", "b")
    (stray / ".git").write_text("gitdir: ../repo/.git/worktrees/repo-b\n")
    common = git("rev-parse", "--git-common-dir", cwd=stray).stdout.strip()
    assert (stray / common).resolve() == repo / ".git"
    assert project_of(stray) == str(repo)
    # A folder in no repository is its own; so are `/` and home.
    plain = tmp_path / "notes"
    plain.mkdir()
    assert project_of(plain / "x") == str(plain / "x") and checkout_root(plain) is None
    home = Path(os.environ["HOME"])
    assert project_of("/") == "/" and project_of(home) == str(home)


# ------------------------------------------------------------------ where apply writes


def test_apply_in_a_worktree_rewrites_the_rule_in_that_worktree(tmp_path: Path) -> None:
    repo = repository(tmp_path / "repo", {"CLAUDE.md": f"# Rules\n\n{RULE}\n"})
    fix = worktree(repo, tmp_path / "repo-fix", "fix")
    desk = worktree(repo, repo / ".claude" / "worktrees" / "calm-fox", "calm-fox")
    (fix / "src").mkdir()
    # A run over every project read the main checkout's file and found the rule there.
    p = said_in(repo, fix, status="restated", existing=repo / "CLAUDE.md")
    main_before = (repo / "CLAUDE.md").read_bytes()

    for here, root in [(fix / "src", fix), (desk, desk)]:
        target = choose(p, TargetChoice(here, follow_quotes=True))
        assert (target.path, target.project, target.rewrites) == (root / "CLAUDE.md", root, True)
        new = said_in(repo, fix)
        assert choose(new, TargetChoice(here, kind="agents", follow_quotes=True)).path == \
            root / "AGENTS.md"
        edit = edit_for(new, TargetChoice(here, follow_quotes=True))
        assert edit.target == root / "CLAUDE.md"
        assert [e.target for e in agent_edits(new, edit, ("claude", "codex"))] == [
            root / "AGENTS.md"]
    edit = edit_for(p, TargetChoice(fix, follow_quotes=True))
    [plan] = plan_all([edit], projects=[fix])
    assert plan.refused is None
    write_plan(plan, backup=False)
    assert "Run scripts with npm, never yarn." in (fix / "CLAUDE.md").read_text()
    assert RULE not in (fix / "CLAUDE.md").read_text()  # rewritten on its line
    assert (repo / "CLAUDE.md").read_bytes() == main_before
    assert (desk / "CLAUDE.md").read_text() == f"# Rules\n\n{RULE}\n"

    # A rule file only the main checkout has: the worktree gets the rule as a new one.
    rules = repo / ".claude" / "rules" / "tooling.md"
    rules.parent.mkdir(parents=True)
    rules.write_text(f"{RULE}\n")
    only_main = said_in(repo, fix, status="restated", existing=rules)
    target = choose(only_main, TargetChoice(fix, follow_quotes=True))
    assert (target.path, target.rewrites) == (fix / "CLAUDE.md", False)
    # In the main checkout it stays where it is.
    assert choose(only_main, TargetChoice(repo, follow_quotes=True)).path == rules


def test_apply_from_a_folder_above_the_project_writes_only_into_the_project(
        tmp_path: Path) -> None:
    code = tmp_path / "code"
    web = repository(code / "web", {"CLAUDE.md": f"{RULE}\n"})
    p = said_in(web, web, status="restated", existing=web / "CLAUDE.md")
    edit = edit_for(p, TargetChoice(code, follow_quotes=True))
    assert (edit.target, edit.project) == (web / "CLAUDE.md", web)
    others = agent_edits(p, edit, ("claude", "codex"))
    assert [e.target for e in others] == [web / "AGENTS.md"]


def test_a_worktree_uses_the_agents_its_repository_has_sessions_with(tmp_path: Path) -> None:
    repo = repository(tmp_path / "repo")
    fix = worktree(repo, tmp_path / "repo-fix", "fix")
    desk = worktree(repo, repo / ".claude" / "worktrees" / "calm-fox", "calm-fox")
    other = repository(tmp_path / "other")
    # Sessions are stored under their project: the repository, whichever checkout.
    sessions = [("claude", str(repo)), ("codex", str(repo)), ("gemini", str(other))]
    for checkout in (repo, fix, desk):
        assert agents_in_use(checkout, sessions) == ("claude", "codex"), checkout
    assert agents_in_use(other, sessions) == ("gemini",)


def test_no_rule_file_in_home_or_a_folder_above_it(tmp_path: Path) -> None:
    home = Path(os.environ["HOME"])
    assert tmp_path in home.parents
    web = repository(tmp_path / "web")
    for folder in (Path("/"), tmp_path, home):
        with pytest.raises(TargetError, match="home folder"):
            choose(said_in(folder, folder), TargetChoice(web, follow_quotes=True))
        with pytest.raises(TargetError, match="home folder"):
            choose(said_in(web), TargetChoice(folder))  # named with --project
    assert choose(said_in(web), TargetChoice(web)).path == web / "CLAUDE.md"
