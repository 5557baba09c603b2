"""Where in each other agent's files a rule also goes, beside the main one.

A rule learned from what the person told one agent belongs with every agent they
use in that project (learn.report.agent_targets finds which), each in the file it
reads, with its scope in that agent's own terms (`agent_formats`). A project that
uses none of an agent gets none of its files.

The main destination (CLAUDE.md, `.claude/rules`, AGENTS.md, as `learn apply
--target` says) is `learn.report.targets`'; this adds the others beside it
(`agent_edits`):


| agent | rule | path-scoped rule |
|---|---|---|
| Claude Code | CLAUDE.md, when the main file is one it does not read (`--agents`) | the same, with CLAUDE.md |
| Codex, OpenCode | AGENTS.md | AGENTS.md in the folder the globs share, else the root's with the scope in words |
| Gemini CLI | GEMINI.md (or the first name of `context.fileName` learn writes: a bare `*.md` name) | the same, with that name |
| Copilot CLI | `.github/copilot-instructions.md` | `.github/instructions/<name>.instructions.md` (`applyTo`) |
| Cursor | `.cursor/rules/learn.mdc` (`alwaysApply`) | `.cursor/rules/<name>.mdc` (`globs`) |
| Windsurf | `.windsurf/rules/learn.md` (`always_on`) | `.windsurf/rules/<name>.md` (`glob`) |
| Kiro | `.kiro/steering/learn.md` (`always`) | `.kiro/steering/<name>.md` (`fileMatch`) |

A `<name>` file already there that loads otherwise (other globs, always, or only on
request: Cursor's agent-requested rule, Windsurf's `manual`) is left as it is: the rule
goes to `<name>-2` (learn.report.scoped_files), where its own scope is; `learn` itself is
such a name, for the rules loaded always.

Codex reads an AGENTS.override.md in place of the AGENTS.md beside it: its copy goes
there (learn.reduce.agent_files.codex_doc). Each file planned counts its readers as
having the rule, under every name the file has (`file_readers`: a CLAUDE.md linked to
AGENTS.md is read by Codex, Copilot and Cursor too): Copilot and Cursor read the
AGENTS.md written for Codex, and a second copy in their own files was read twice.

A restated or contradicted rule's old line is rewritten in every file that holds it
(`replace_line`), not only the main one: left there, Codex read the old rule and the new.

Gemini CLI reads whatever its settings' `context.fileName` names, but a project's
`.gemini/settings.json` comes with a cloned repository: only a bare `*.md` file name is
written (learn.reduce.agent_files.gemini_context_name, asked again by the writer's
confinement); with none, Gemini gets nothing and the apply says why, once (`notes`).

A user-scope rule goes to the agents' user files that exist as files: `~/.gemini/
GEMINI.md`, `~/.copilot/copilot-instructions.md`, Codex's and OpenCode's AGENTS.md
(Cursor keeps user rules in its settings, not a file: none is written).

Every file chosen here is also a row of the one write-confinement check
(`learn.report.confine.SURFACES`): a write reaches it only after that check.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from learn.projects import within
from learn.records.proposal import Proposal
from learn.reduce.agent_files import (
    WINDSURF_MAX_CHARS,
    codex_doc,
    gemini_context,
    loading,
    opencode_config_dir,
)
from learn.reduce.file_readers import file_readers
from learn.reduce.pathscope import glob_folder, scoped_safely
from learn.reduce.rule_places import claude_home, codex_home
from learn.report.edits import RuleEdit
from learn.report.scoped_files import Claims, scoped_file
from learn.transcripts.copilot.places import copilot_dir
from learn.transcripts.gemini.places import gemini_dir
from learn.transcripts.ids import AGENT_NAMES

__all__ = ["agent_edits"]

_NAME = "learn"


def _slug(p: Proposal) -> str:
    from learn.report.targets import slug

    return slug(p.label)


def _in_words(text: str, globs: Sequence[str]) -> str:
    where = ", ".join(f"`{g}`" for g in globs)
    return f"When working on {where}: {text}"


def _agent_rule_file(folder: Path, name: str, suffix: str, globs: Sequence[str],
                    claims: Claims, *, fits: Callable[[str], bool] = lambda _: True) -> Path:
    """The file in an agent's rules `folder` a rule scoped to `globs` goes to (loaded
    always, for none): one that loads as the frontmatter learn writes for them would,
    as the agent reads it (learn.report.scoped_files): a file learn wrote is found again."""
    from learn.report.agent_formats import frontmatter_for

    first = folder / f"{name}{suffix}"
    return scoped_file(folder, name, suffix, loading(frontmatter_for(first, globs), first),
                       claims=claims, fits=fits)


def _windsurf(rules: Path, name: str, adding: int, globs: Sequence[str],
              claims: Claims) -> Path:
    """`<name>.md`, or the next `<name>-N.md` with room (and the rule's scope): Windsurf
    reads 12,000 characters of a file, so a full one is continued in another rather
    than cut."""
    return _agent_rule_file(rules, name, ".md", globs, claims,
                           fits=lambda text: len(text) + adding + 200 <= WINDSURF_MAX_CHARS)


def _gemini_file(folder: Path, settings: Path | None, home: Path,
                 notes: list[str] | None) -> Path | None:
    """Gemini's context file in `folder` (its settings read from `settings`, None: the
    user's only); None, with why in `notes`, when its settings name none learn writes."""
    found = gemini_context(settings, home)
    if found.name is None:
        if notes is not None and found.why not in notes:
            notes.append(found.why)
        return None
    return folder / found.name


def _user_file(agent: str, home: Path, notes: list[str] | None = None) -> Path | None:
    if agent == "claude":
        return claude_home(home) / "CLAUDE.md"
    if agent == "gemini":
        return _gemini_file(gemini_dir(home), None, home, notes)
    if agent == "copilot":
        return copilot_dir(home) / "copilot-instructions.md"
    if agent == "codex":
        return codex_doc(codex_home(home))
    if agent == "opencode":
        return opencode_config_dir(home) / "AGENTS.md"
    return None


def _chain_file(agent: str, folder: Path, root: Path, home: Path,
                notes: list[str] | None = None) -> Path | None:
    """The file `agent` reads in `folder` of project `root` (an agent that reads one file
    per folder of the directory chain); None: none learn writes (Gemini's, `notes` says)."""
    if agent == "claude":
        from learn.report.targets import project_claude_md

        return project_claude_md(root) if folder == root else folder / "CLAUDE.md"
    if agent == "codex":
        return codex_doc(folder)
    if agent == "gemini":
        return _gemini_file(folder, folder, home, notes)
    return folder / "AGENTS.md"  # OpenCode


def _project_file(agent: str, root: Path, p: Proposal, globs: Sequence[str], text: str,
                  claims: Claims, home: Path,
                  notes: list[str] | None = None) -> tuple[Path | None, str, tuple[str, ...]]:
    """(file, rule text, globs its frontmatter keeps) for `agent` in project `root`; no
    file when the agent reads none learn writes (`notes` says why)."""
    if agent in ("claude", "codex", "opencode", "gemini"):
        if not globs:
            return _chain_file(agent, root, root, home, notes), text, ()
        folder = glob_folder(globs)
        # Loaded where its folder is worked on: a folder says the scope; else words do.
        if folder and all(g.startswith(folder + "/") for g in globs):
            return _chain_file(agent, root / folder, root, home, notes), text, ()
        return _chain_file(agent, root, root, home, notes), _in_words(text, globs), ()
    # A rule's file in a rules folder is one that loads as the rule should: for its globs,
    # or always (learn.report.scoped_files).
    name = _slug(p) if globs else _NAME
    if agent == "copilot":
        if globs:
            return (_agent_rule_file(root / ".github" / "instructions", name,
                                    ".instructions.md", globs, claims), text, tuple(globs))
        return root / ".github" / "copilot-instructions.md", text, ()
    if agent == "cursor":
        return _agent_rule_file(root / ".cursor" / "rules", name, ".mdc", globs, claims), \
            text, tuple(globs)
    if agent == "windsurf":
        return _windsurf(root / ".windsurf" / "rules", name, len(text), globs, claims), text, \
            tuple(globs)
    # kiro
    return _agent_rule_file(root / ".kiro" / "steering", name, ".md", globs, claims), text, \
        tuple(globs)


def _owner(p: Proposal, main: RuleEdit) -> Path | None:
    """The project a rule rewritten in place belongs to: the one its file lies in. Never
    an agent's own folder (learn.projects.agent_homes): a rule said in ~/.claude and
    rewritten in ~/.claude/CLAUDE.md is the person's, and as that "project's" its copies
    went to ~/.claude/AGENTS.md and ~/.claude/GEMINI.md."""
    from learn.projects import agent_home, quote_projects
    from learn.windows_names import not_opened

    target = str(main.target.expanduser().resolve())
    for project in quote_projects(p.quotes):
        if not_opened(project) is not None:
            continue  # a share's folder is never resolved: that asks its server
        if agent_home(project) is not None:
            continue
        if within(target, str(Path(project).resolve())):
            return Path(project)
    return None


def agent_edits(p: Proposal, main: RuleEdit, agents: Sequence[str], *,
                home: Path | None = None, claims: Claims | None = None,
                notes: list[str] | None = None) -> list[RuleEdit]:
    """The edits that write `main`'s rule for each other agent in `agents` (beside `main`).

    Work asked for by name (a command) stays with the agent it was made for. An agent
    that already reads the rule (coverage found it in a file that agent reads, or it
    reads `main`'s file or one planned here before its turn) gets nothing new; Claude
    Code gets its CLAUDE.md only when it reads none of those (`--agents`, with a
    CLAUDE.md that does not import AGENTS.md). `claims`: the files the apply has planned so far, and how each loads
    (learn.report.scoped_files); the files planned here join it. `notes`: why an agent
    got nothing (Gemini's settings name no file learn writes), each said once."""
    if main.form == "command":
        return []
    home = home or Path.home()
    # By every name of each file (learn.reduce.file_readers): with CLAUDE.md linked to
    # AGENTS.md, the main CLAUDE.md is Codex's, Copilot's and Cursor's AGENTS.md too.
    # Not where coverage named a line that shares no subject with the rule (a steered
    # answer: learn.report.claimed_line.unrelated_line): that file's readers lack the rule.
    from learn.report.claimed_line import unrelated_line

    has_it = (file_readers(p.existing_rule_file, home)
              if p.existing_rule_file and not unrelated_line(p) else frozenset())
    has_it |= file_readers(main.target, home)
    p = scoped_safely(p)
    globs = p.surface_rules if p.surface == "path-rule" else ()
    root = main.project if main.project is not None else _owner(p, main)
    if root is None and (p.verdict is None or p.verdict.scope != "user"):
        return []  # a named file, or one in no project the rule was said in: that file only
    out: list[RuleEdit] = []
    taken = {main.target.expanduser().resolve()}
    for agent in agents:
        if agent in has_it:
            continue
        kept: tuple[str, ...] = ()
        if root is None:
            path = _user_file(agent, home, notes)
            text = main.text
        else:
            path, text, kept = _project_file(agent, root, p, globs, main.text,
                                             {} if claims is None else claims, home, notes)
        if path is None:
            continue
        real = path.expanduser().resolve()
        if real in taken:
            continue  # one file two agents read (AGENTS.md: Codex and OpenCode)
        taken.add(real)
        # Its readers have the rule now: the AGENTS.md written for Codex is Copilot's and
        # Cursor's too (ORDER puts the shared files first).
        has_it |= file_readers(path, home)
        # The old line of a restated or contradicted rule is rewritten here too where the
        # file holds it (agent_formats.plan_agent_file); else the rule is appended.
        out.append(replace(
            main, text=text, target=path, form="agent-rule", surface_rules=kept,
            replace_line=main.replace_line, surface_commands=(),
            description=main.description or f"{AGENT_NAMES.get(agent, agent)}: {main.text}"))
    return out
