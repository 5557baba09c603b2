"""Which file a rule goes to.

Default: the verdict's scope picks the file Claude Code loads for that scope
(user -> ~/.claude/CLAUDE.md, project -> the project's CLAUDE.md). Per run the
user can send rules to `.claude/rules/<topic>.md` (keeps the main file short;
Claude Code loads those files too), to AGENTS.md (Codex reads it), or to one
explicit file. A restated rule is rewritten where it already is, whatever the
choice: adding a second copy elsewhere is exactly the bloat the rewrite avoids.

A project rule goes to the project its quotes were said in (learn.projects: the
repository, one for all its worktrees), never to whatever folder `apply` happens
to run from (from ~ that made a ~/CLAUDE.md, read in every project below home),
and never to an agent's own folder (`~/.codex`: learn.projects.agent_homes), whose
instruction files are the person's own, read in every project.
Run inside a checkout of that repository (its main folder or any worktree), it is
written into that checkout: where the person works, and where the agent reads it;
run from elsewhere, into the main checkout. When several repositories said it,
the person chooses. Work the person keeps asking for by name becomes a command
file, `.claude/commands/<name>.md`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal

from learn.projects import (
    agent_home,
    as_folder,
    checkout_folder,
    in_this_checkout,
    is_path,
    key_within,
    on_this_machine,
    path_key,
    project_here,
    quote_projects,
)
from learn.records.proposal import Proposal, Quote, Scope
from learn.reduce import rule_places
from learn.reduce.agent_files import ALWAYS, codex_doc
from learn.reduce.pathscope import glob_folder
from learn.reduce.rules import loads_in
from learn.report.claimed_line import in_memory, unrelated_line
from learn.report.confine import may_write
from learn.report.scoped_files import Claims, scoped_file
from learn.transcripts.claude.builtin_commands import BUILTIN_COMMANDS
from learn.windows_names import not_opened

TargetKind = Literal["claude", "rules", "agents"]
# permission: deny rules merged into settings.json; codex-rule: an execpolicy
# prefix_rule; path-rule: a .claude/rules file with `paths:` (learn.report.escalation,
# learn.report.pathscope); agent-rule: the same rule in another agent's file, with that
# agent's frontmatter (learn.report.agent_targets).
Form = Literal["rule", "command", "permission", "codex-rule", "path-rule", "agent-rule"]


@dataclass(frozen=True, slots=True)
class TargetChoice:
    project_dir: Path
    kind: TargetKind = "claude"
    scope: Scope | None = None  # overrides the verdict's scope for every rule
    file: Path | None = None  # overrides everything but restated rewrites
    # When the user did not name a project, a project-scope rule goes to the
    # project its quotes were said in: the one `project_dir` is (or is inside),
    # else the only one; several, and the person is asked (TargetError).
    follow_quotes: bool = False
    # The project `project_dir` belongs to, when the caller knows more than the disk
    # (a worktree deleted since is remembered as its repository's): learn.projects.
    project: str | None = None
    # `kind` as the person named it (`--target`, `--agents`): written there whatever agents
    # the project uses. Left to its default, the main destination is written only where
    # an agent in use reads it (learn.report.agent_targets.unread_main).
    kind_named: bool = False
    # The rule files this apply has planned, and how each is to load: one apply plans
    # every rule before writing any, so a name promised to one scope is not another's
    # (learn.report.scoped_files). One choice is made per apply, and so one record.
    claims: Claims = field(default_factory=dict, compare=False, repr=False)


class TargetError(Exception):
    """No single right place for a rule: the message says why; `choices` lists the
    projects it could go to (empty when there is none)."""

    def __init__(self, message: str, choices: tuple[Path, ...] = ()) -> None:
        super().__init__(message)
        self.choices = choices


@dataclass(frozen=True, slots=True)
class Target:
    path: Path
    form: Form
    project: Path | None  # the project it belongs to; None for user-scope and named files
    rewrites: bool = False  # the existing rule's own file: its line is rewritten


def claude_home() -> Path:
    """~/.claude, or CLAUDE_CONFIG_DIR (which Claude Code honours in its place)."""
    return rule_places.claude_home(Path.home())


def codex_home() -> Path:
    """~/.codex, or CODEX_HOME."""
    return rule_places.codex_home(Path.home())


def codex_rules(home: Path | None = None) -> Path:
    """The execpolicy file learn's forbidden prefix_rules go to (learn.report.escalation):
    Codex reads rules from its home, for every project."""
    return rule_places.codex_home(home or Path.home()) / "rules" / "learn.rules"


# Names Windows gives its devices in every folder: `.claude/rules/aux.md` or a command
# `con.md` cannot be made there, and a repository holding one cannot be checked out on
# Windows by a teammate.
_WINDOWS_DEVICES: Final = frozenset(
    {"con", "prn", "aux", "nul", *(f"{d}{n}" for d in ("com", "lpt") for n in range(10))})


def slug(text: str, fallback: str = "general") -> str:
    """The name learn gives a file of `text`'s (a rule file, a command): lower-case
    letters, digits and dashes, never a Windows device's name (`my-` before it)."""
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    s = s[:48].strip("-") or fallback
    return f"my-{s}" if s in _WINDOWS_DEVICES else s


def command_name(label: str) -> str:
    """The name of a command file learn proposes for Claude Code: the label's slug, never a
    name Claude Code already answers to (its built-ins, and /learn itself), which the
    file would shadow or be shadowed by. 2.1.332's untagged /review record once became
    a proposed `code-review.md` (learn.transcripts.claude.builtin_commands)."""
    name = slug(label, "command")
    return f"my-{name}" if name in BUILTIN_COMMANDS or name == "learn" else name


def topic_for(p: Proposal) -> str:
    category = p.verdict.category if p.verdict else ""
    return slug(category or p.label)


def scope_for(p: Proposal, choice: TargetChoice) -> Scope:
    if choice.scope is not None:
        return choice.scope
    return p.verdict.scope if p.verdict else "project"


def form_for(p: Proposal) -> Form:
    """Work the person keeps asking for by name is a command (typed when wanted, free
    until then); what they keep saying or fixing is a rule line."""
    return "command" if p.kind == "request" or p.surface == "command" else "rule"


def project_claude_md(root: Path) -> Path:
    # Both ./CLAUDE.md and ./.claude/CLAUDE.md are loaded; write to the one in use.
    top, nested = root / "CLAUDE.md", root / ".claude" / "CLAUDE.md"
    return nested if nested.exists() and not top.exists() else top


def _home() -> Path:
    return Path.home().expanduser().resolve()


def _home_or_above(folder: Path) -> bool:
    """The home folder, or a folder holding it (`/Users`, `/`): a CLAUDE.md there is
    read in every project below it. Compared by key: on macOS a project's key is
    case-folded (`/users/ana`), and as Paths it never equalled `/Users/ana`, so a
    rule said in home went to ~/CLAUDE.md there."""
    text = str(folder)
    return is_path(text) and key_within(path_key(_home()), path_key(text))


def _home_words(folder: Path) -> str:
    return ("your home folder" if path_key(str(folder)) == path_key(_home())
            else "a folder above your home folder")


def _no_project(folder: Path) -> str | None:
    """Why `folder` is no project's, as a sentence's end; None when it may be one.

    The home folder (or above): a CLAUDE.md there is read in every project below it.
    An agent's own folder (`~/.codex`, `~/.claude`, or in one: learn.projects.
    agent_homes): its AGENTS.md or CLAUDE.md is the person's own, loaded in every
    project; a rule said in ~/.codex was planned into ~/.codex/AGENTS.md that way."""
    if _home_or_above(folder):
        return (f"{_home_words(folder)}: a CLAUDE.md there would be read in every project "
                "below it")
    own = agent_home(str(folder))
    if own is None:
        return None
    where = "an agent's own folder" if own == path_key(str(folder)) else \
        f"inside an agent's own folder ({own})"
    return f"{where}, whose instruction files the agent reads in every project"


def placed_quotes(p: Proposal) -> list[Quote]:
    """The quotes whose project is a folder of some machine (learn.projects.is_path),
    and not an agent's own folder. A transcript with a relative `cwd` says nothing
    about where it ran: resolved, it would name whatever folder learn runs from (a
    rule once went two folders above the project that way); a team's repository id
    is no folder either. A session in `~/.codex` is the person's words in no project
    (learn.projects.agent_homes): it names no project for the rule to go to."""
    from learn.projects import is_path

    return [q for q in p.quotes if q.project and is_path(q.project)
            and agent_home(q.project) is None]


def _said_in(p: Proposal) -> str:
    from learn.projects import project_of

    counts: dict[str, set[str]] = {}
    for q in placed_quotes(p):
        project = project_of(q.project)
        if project:
            counts.setdefault(project, set()).add(q.session_id)
    return ", ".join(f"{k} ({len(v)} session{'s' if len(v) != 1 else ''})"
                     for k, v in sorted(counts.items(), key=lambda kv: (-len(kv[1]), kv[0])))


def _folder_of(directory: Path) -> Path:
    return checkout_folder(directory)


def _not_here(folder: Path | str) -> str:
    """Why a project's folder cannot be written: on a network share, deleted, or another
    system's path."""
    if not_opened(str(folder)) is not None:
        return f"{folder} is {_on_share(folder)}"
    if not on_this_machine(str(folder)):
        return (f"{folder} is a folder of another system (a Windows path), not of this "
                "machine; run `learn apply` where it is, or name a checkout here with "
                "--project DIR")
    return f"{folder} no longer exists; name a checkout of the project with --project DIR"


def _on_share(folder: Path | str) -> str:
    return (f"{not_opened(str(folder))} (on Windows, opening it sends your login to that "
            "server); name a checkout on this machine with --project DIR")


def project_for(p: Proposal, choice: TargetChoice) -> Path:
    """The checkout a project-scope rule is written into, or TargetError saying why none."""
    here = _folder_of(choice.project_dir)
    # A folder on a share is never looked at (its server is asked, with your login).
    shared = not_opened(str(here)) is not None
    if not shared and not here.is_dir():
        # A checkout deleted since: its repository's main checkout stands in.
        project = choice.project or project_here(choice.project_dir.expanduser())
        here = as_folder(project) or here
    if not choice.follow_quotes:  # named by the person
        if shared or not here.is_dir():
            raise TargetError(_not_here(here if shared else choice.project_dir))
        why = _no_project(here)
        if why is not None:
            raise TargetError(f"{here} is {why}. Use --scope user (the files your agents "
                              "read in every project), or name the project")
        return here
    said = quote_projects(placed_quotes(p))
    if not said:
        own = sorted({a for q in p.quotes if q.project and (a := agent_home(q.project))})
        if own:
            raise TargetError(f"{p.key} was said only in {', '.join(own)}, an agent's own "
                              "folder, which is no project; name one with --project DIR "
                              "(or --scope user)")
        raise TargetError(f"{p.key}: no quote says which project it was said in; name one "
                          "with --project DIR (or --scope user)")
    here_project = choice.project or project_here(choice.project_dir.expanduser())
    folders = {x: as_folder(x) for x in said}
    if here_project in said:
        root = here  # this checkout of the repository: the main one or a worktree
    else:
        below = [x for x in said if (f := folders[x]) is not None
                 and key_within(path_key(f), path_key(here))]
        if len(below) == 1 or len(said) == 1:
            chosen = (below or said)[0]
            folder = folders[chosen]
            if folder is None and not_opened(chosen) is not None:
                raise TargetError(f"{p.key} was said in {chosen}, which is {_on_share(chosen)}")
            if folder is None:
                raise TargetError(f"{p.key} was said in {chosen}, which no longer exists on "
                                  "this machine (deleted, or another machine's folder); name "
                                  "a checkout with --project DIR")
            root = folder
        else:
            options = tuple(f for x in (below or said) if (f := folders[x]) is not None)
            raise TargetError(f"{p.key} was said in several projects: {_said_in(p)}; choose "
                              "one with --project DIR, or --scope user for all of them",
                              options)
    if not_opened(str(root)) is not None:
        raise TargetError(f"{p.key} was said in {root}, which is {_on_share(root)}")
    if _home_or_above(root):
        # ~/CLAUDE.md is loaded in every project below home: not a project file.
        raise TargetError(f"{p.key} was said in {_home_words(root)} ({root}); a "
                          "CLAUDE.md there would be read in every project below it. Use "
                          "--scope user, or --project DIR to name the project")
    if (why := _no_project(root)) is not None:
        # No quote in an agent's folder chose it (placed_quotes); a project folder
        # reached through a link into ~/.codex still must not be written as a project's.
        raise TargetError(f"{p.key} would go to {root}, {why}. Use --scope user, or "
                          "--project DIR to name the project")
    if not root.is_dir():
        raise TargetError(f"{p.key} was said in {_not_here(root)}")
    return root


def _written_for(p: Proposal, choice: TargetChoice) -> Path | None:
    """The checkout `learn apply` writes `p` for (`project_for`: the one named, else
    the one its quotes say), None when there is no single one (said in several
    projects, apply run from none of them): then only a user's own file is its own."""
    try:
        return project_for(p, choice)
    except TargetError:
        return None


def _old_file(p: Proposal) -> Path | None:
    """The file of a restated or contradicted rule that names one of the person's lines
    of the same subject (`unrelated_line`), None otherwise or when it is in memory
    (promoted instead) or no file."""
    if p.status not in ("restated", "contradicts") or not p.existing_rule_file or in_memory(p):
        return None
    if unrelated_line(p):
        return None  # the one check before any line of the person's is replaced
    existing = Path(p.existing_rule_file).expanduser()
    return existing if existing.is_absolute() and existing.is_file() else None


def existing_in_place(p: Proposal, choice: TargetChoice) -> Target | None:
    """A restated or contradicted rule is rewritten on its own line, where it is, when
    that file is an instruction file learn may write (learn.report.confine), shares a
    subject with the rule (`unrelated_line`), and loads where the rule is written
    (`loads_in`): a user's own file, or one of the project's the apply writes for. A
    rule found in a file a CLAUDE.md only @imports, or outside the project
    (`@~/.bashrc`), is evidence; one in another project's file is that project's: the
    new rule goes where a new one would, the old line stays."""
    existing = _old_file(p)
    if existing is None:
        return None
    if loads_in(existing, None):  # the person's own, read in every project
        return Target(existing, "rule", None, rewrites=True) if may_write(existing) else None
    here = _written_for(p, choice)
    if here is None:
        return None
    # Found in another checkout of this repository (a run over every project read the
    # main one): rewritten in the checkout apply writes for, never in the other; a file
    # this checkout lacks gets the rule where a new one goes.
    moved = in_this_checkout(existing, here)
    target = moved if moved is not None else existing
    if not target.is_file() or not loads_in(target, here) or not may_write(target, [here]):
        return None
    return Target(target, "rule", here, rewrites=True)


def loaded_elsewhere(p: Proposal, choice: TargetChoice) -> Path | None:
    """The file of a restated or contradicted rule when it is another project's, not
    loaded where `learn apply` writes the rule (`loads_in`): left as it is, the rule
    written as a new one here, and the person told. None otherwise."""
    existing = _old_file(p)
    if existing is None or loads_in(existing, None):
        return None
    here = _written_for(p, choice)
    if here is not None and (in_this_checkout(existing, here) is not None
                             or loads_in(existing, here)):
        return None
    return existing


def old_line_stays(p: Proposal, choice: TargetChoice | None = None) -> Path | None:
    """The file of a restated or contradicted rule that `learn apply` leaves as it is: one
    a CLAUDE.md only @imports and learn does not write (`@docs/conventions.md`), where the
    old line stays and the agent still reads it. None when the line is rewritten in place,
    is in memory (promoted instead), is in no file, or is another project's
    (`loaded_elsewhere`). `choice`: the apply's; none, the project of the rule's quotes
    that loads the file (the digest).

    Measured in the audit of 2026-12: the digest said "`learn apply` rewrites that line",
    and apply appended the new rule to CLAUDE.md and said nothing of the old one, so
    Claude Code read "Use npm for installs" and "Use pnpm, never npm" side by side."""
    existing = _old_file(p)
    if existing is None:
        return None
    if choice is None:
        said = [f for f in (as_folder(x) for x in quote_projects(placed_quotes(p))) if f]
        loading = [f for f in said if loads_in(existing, f)]
        choice = TargetChoice(project_dir=(loading or said or [existing.parent])[0])
    if existing_in_place(p, choice) is not None or loaded_elsewhere(p, choice) is not None:
        return None
    return existing


def _claude_rule_file(folder: Path, name: str, globs: Sequence[str], claims: Claims) -> Path:
    """The rule's own scope (loaded always for no globs): never a same-named file that
    loads otherwise (other `paths:`, or none), whose scope it would take (learn.report.
    scoped_files). Claude Code reads back each glob learn writes as it was (quoted:
    surfaces_apply.path_rule_header), and loads a file without `paths:` always."""
    return scoped_file(folder, name, ".md", frozenset(globs) or ALWAYS, claims=claims)


def choose(p: Proposal, choice: TargetChoice) -> Target:
    """Where proposal `p` is written, in which form, for which project."""
    form = form_for(p)
    in_place = existing_in_place(p, choice)
    if in_place is not None:
        return in_place
    if choice.file is not None and p.surface not in ("permission", "path-rule"):
        return Target(choice.file.expanduser(), "rule", None)
    scope = scope_for(p, choice)
    root = None if scope == "user" else project_for(p, choice)
    if p.surface == "permission":
        if choice.kind == "agents":  # Codex reads execpolicy rules from its home
            return Target(codex_rules(), "codex-rule", root)
        base = claude_home() if root is None else root / ".claude"
        return Target(base / "settings.json", "permission", root)
    if p.surface == "path-rule" and root is not None:
        if choice.kind == "agents":
            # Codex reads AGENTS.md along the directory chain: one in the folder is its
            # path scope. An AGENTS.override.md there is what Codex reads (codex_doc).
            folder = glob_folder(p.surface_rules)
            return Target(codex_doc(root / folder), "rule", root)
        return Target(_claude_rule_file(root / ".claude" / "rules", slug(p.label),
                                        p.surface_rules, choice.claims), "path-rule", root)
    if form == "command":
        if choice.kind == "agents":
            # Codex reads commands from the home only: a skill, or an old Codex's prompt.
            from learn.report.codex_commands import codex_command

            return Target(codex_command(slug(p.label, "command")), form, root)
        base = claude_home() if root is None else root / ".claude"
        return Target(base / "commands" / f"{command_name(p.label)}.md", form, root)
    if choice.kind == "agents":
        # The file Codex reads there: an AGENTS.override.md hides AGENTS.md (codex_doc).
        return Target(codex_doc(codex_home() if root is None else root), form, root)
    if choice.kind == "rules":
        base = claude_home() if root is None else root / ".claude"
        return Target(_claude_rule_file(base / "rules", topic_for(p), (), choice.claims),
                      form, root)
    return Target(claude_home() / "CLAUDE.md" if root is None else project_claude_md(root),
                  form, root)


def choose_target(p: Proposal, choice: TargetChoice) -> Path:
    return choose(p, choice).path
