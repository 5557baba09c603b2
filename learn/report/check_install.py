"""Installing learn's check and taking it away again, as planned file changes.

The check (learn.guard) is one fixed program; what differs per project is its data
file, `<data dir>/checks/<project id>.json`. Installing it for Claude Code adds one
PreToolUse hook (matcher `Bash`) to the project's `.claude/settings.local.json`:
that file is the person's own, not checked in, which is where a hook naming this
machine's Python belongs. For Codex (hooks since 0.124; `hooks` is a stable feature
in 0.171) the same program goes into `~/.codex/hooks.json` with `--agent codex`,
once per project (it lets other projects' sessions through itself); Codex runs a
new hook only after the person trusts it (`/hooks` in Codex), which learn never
does for them.

Every change is planned first (before and after, as bytes, shown as a diff) and
written only if the file still holds what was planned against, by `learn apply`'s
own writer, all of them or none (learn.report.check_writes). The settings as
they were before the first install are kept in the install record, so removing
the last rule restores them byte for byte; if the person changed the file since,
only learn's hook is taken out and the rest of their edits stay.

On Windows Claude Code's hook is written in exec form (`command` this Python, `args` the
rest): without Git Bash Claude Code runs a shell line with PowerShell, which cannot run
learn's (learn.invocation), and the check was silently gone. Every form learn wrote is
its own, so a re-install turns the shell line into the exec form in place and a removal
takes either out. Codex's hooks.json keeps the shell line: nothing says Codex reads `args`.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

from learn import invocation
from learn.guard.files import record_file, rules_file
from learn.guard.rules import BadRules, CheckRule, Mode, RuleSet, load_rules
from learn.invocation import (
    has_fields,
    hook_fields,
    learn_line,
    older_line,
    put_fields,
)
from learn.report.edits import shown_diff
from learn.report.json_settings import (
    SettingsError,
    edit_settings,
    parse_settings,
    render_settings,
)

if TYPE_CHECKING:
    pass

# "codex-rules": a Codex without hooks (older than 0.124, or `[features] hooks = false`)
# gets the exact prefix_rules execpolicy can say instead, in a file of learn's own.
Agent = Literal["claude", "codex", "codex-rules"]
# The install record's slot of Claude Code's hook in a further checkout (a worktree).
_ELSEWHERE: Final = "claude@"
CODEX_HOOKS_SINCE = (0, 124, 0)
CODEX_RULES_NAME = "learn-check.rules"
HOOK_TIMEOUT_S = 10


class CheckError(Exception):
    """A change learn will not make, and why."""


def _guard_args(rules: Path, agent: Agent) -> tuple[str, ...]:
    return ("--rules", str(rules), *(("--agent", "codex") if agent == "codex" else ()))


def hook_command(rules: Path, agent: Agent) -> str:
    """The one command line the agent runs through a shell: this Python, the fixed
    program, the data file (`-P`: never a `learn` of the session's folder,
    learn.invocation)."""
    return learn_line("learn.guard", *_guard_args(rules, agent))


def hook_forms(rules: Path, agent: Agent) -> tuple[dict[str, Any], ...]:
    """Every form (`command`, and `args` in exec form) of learn's check hook for `rules`
    that is learn's own: the one written now first (exec form for Claude Code on
    Windows, learn.invocation), then the others, which a re-install replaces and a
    removal takes out like it: the shell line, the line written before `-P`, and for
    Claude Code the exec form."""
    args = _guard_args(rules, agent)
    line = {"command": learn_line("learn.guard", *args)}
    older = {"command": older_line("learn.guard", *args)}
    if agent != "claude":
        return (line, older)
    spawned = hook_fields("learn.guard", *args, exec_form=True)
    return (spawned, line, older) if invocation.exec_form_hooks() else (line, older, spawned)


def claude_settings(project: str) -> Path:
    return Path(project) / ".claude" / "settings.local.json"


def codex_hooks(home: Path | None = None) -> Path:
    from learn.reduce.rule_places import codex_home

    return codex_home(home or Path.home()) / "hooks.json"


@dataclass(frozen=True, slots=True)
class FileChange:
    path: Path
    before: bytes | None  # None: the file does not exist
    after: bytes | None  # None: the file is removed
    private: bool = False  # learn's own data (0600), not a file of the agent's
    made_dir: bool = False  # learn made the file's folder: removed with it when left empty

    def diff(self) -> str:
        def text(b: bytes | None) -> str | None:
            return b.decode("utf-8", "replace") if b is not None else None

        return shown_diff(text(self.before), text(self.after),
                          str(self.path) if self.before is not None else "/dev/null",
                          str(self.path) if self.after is not None else "/dev/null")


@dataclass(frozen=True, slots=True)
class CheckPlan:
    changes: tuple[FileChange, ...]
    notes: tuple[str, ...] = ()
    record: dict[str, Any] = field(default_factory=dict)  # the install record to keep

    @property
    def empty(self) -> bool:
        return all(c.before == c.after for c in self.changes)


def read_settings_bytes(path: Path) -> bytes | None:
    """`path`'s bytes (None: no file). Read before the path is confined (planning shows the
    diff first), so only as a regular file of bounded size: a `.claude/settings.local.json`
    committed as a link to /dev/zero was read until MemoryError (learn.report.confine)."""
    from learn.report.confine import read_regular
    from learn.report.errors import ConfinementError

    try:
        return read_regular(path)
    except ConfinementError as exc:
        raise CheckError(str(exc)) from exc


def _json_object(path: Path, raw: bytes | None) -> dict[str, Any]:
    try:
        return parse_settings(raw, path)[0]
    except SettingsError as exc:
        raise CheckError(str(exc)) from exc


def _is_ours(hook: Any, forms: Sequence[dict[str, Any]]) -> bool:
    return isinstance(hook, dict) and any(has_fields(hook, f) for f in forms)


def _with_hook(data: dict[str, Any], forms: Sequence[dict[str, Any]],
               path: Path) -> dict[str, Any]:
    """`data` with learn's hook running `forms[0]`: another form of it (`forms[1:]`) is
    pointed at it in place, so a re-install never leaves two."""
    wanted = forms[0]
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise CheckError(f"{path}: \"hooks\" is not an object; fix it by hand first")
    groups = hooks.get("PreToolUse", [])
    if not isinstance(groups, list):
        raise CheckError(f"{path}: \"hooks.PreToolUse\" is not a list; fix it by hand first")
    found = [h for g in groups if isinstance(g, dict) for h in g.get("hooks") or ()
             if _is_ours(h, forms)]
    if found and all(has_fields(h, wanted) for h in found):
        return data
    out = copy.deepcopy(data)
    if found:
        for g in out["hooks"]["PreToolUse"]:
            for h in (g.get("hooks") or ()) if isinstance(g, dict) else ():
                if _is_ours(h, forms):
                    put_fields(h, wanted)
        return out
    out.setdefault("hooks", {}).setdefault("PreToolUse", []).append(
        {"matcher": "Bash", "hooks": [{"type": "command", **wanted,
                                       "timeout": HOOK_TIMEOUT_S}]})
    return out


def _without_hook(data: dict[str, Any], forms: Sequence[dict[str, Any]]) -> dict[str, Any]:
    out = copy.deepcopy(data)
    hooks = out.get("hooks")
    if not isinstance(hooks, dict) or not isinstance(hooks.get("PreToolUse"), list):
        return out
    kept = []
    for g in hooks["PreToolUse"]:
        if isinstance(g, dict) and isinstance(g.get("hooks"), list):
            inner = [h for h in g["hooks"] if not _is_ours(h, forms)]
            if not inner and g["hooks"]:
                continue
            g = {**g, "hooks": inner}
        kept.append(g)
    if kept:
        hooks["PreToolUse"] = kept
    else:
        del hooks["PreToolUse"]
        if not hooks:
            del out["hooks"]
    return out


def _edited(path: Path, before: bytes | None,
            forms: Sequence[dict[str, Any]]) -> bytes | None:
    """The settings with learn's hook added, in the file's own style; `before` when it
    is there already."""
    try:
        edited = edit_settings(before, path, lambda data: _with_hook(data, forms, path))
    except SettingsError as exc:
        raise CheckError(str(exc)) from exc
    return before if edited is None else edited.encode("utf-8")


def _dumps(data: dict[str, Any], like: bytes | None, path: Path) -> bytes:
    """`data` written as the file was (`like`: its bytes), so only learn's hook changes in
    the person's settings (learn.report.json_settings)."""
    try:
        style = parse_settings(like, path)[1]
    except SettingsError as exc:
        raise CheckError(str(exc)) from exc
    return render_settings(data, style).encode("utf-8")


def target_path(agent: str, project: str, home: Path | None = None) -> Path:
    """The settings file the agent reads learn's hook (or prefix rules) from."""
    from learn.reduce.rule_places import codex_home

    if agent == "claude":
        return claude_settings(project)
    if agent == "codex-rules":
        return codex_home(home or Path.home()) / "rules" / CODEX_RULES_NAME
    return codex_hooks(home)


def codex_has_hooks(home: Path | None = None, binary: str = "codex") -> bool | None:
    """Does the installed Codex run hooks? None when no Codex is on PATH. Hooks are on
    by default from 0.124 (a stable feature in 0.171, checked against the real CLI);
    config.toml's `[features] hooks = false` (or `codex_hooks`) turns them off."""
    import re
    import shutil
    import subprocess
    import tomllib

    from learn.reduce.rule_places import codex_home

    exe = shutil.which(binary)
    if exe is None:
        return None
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=10,
                             check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"(\d+)\.(\d+)\.(\d+)", out)
    if m is None or tuple(int(x) for x in m.groups()) < CODEX_HOOKS_SINCE:
        return False
    try:
        config = tomllib.loads((codex_home(home or Path.home()) / "config.toml").read_text(
            encoding="utf-8"))
    except (OSError, ValueError):
        return True
    features = config.get("features")
    if not isinstance(features, dict):
        return True
    return all(features.get(k) is not False for k in ("hooks", "codex_hooks"))


def codex_prefix_rules(rules: Sequence[CheckRule],
                       notes: list[str] | None = None) -> bytes | None:
    """The exact prefix_rules a Codex without hooks can be given for the enforced rules:
    `program subcommand flag` at the start of a command only (`git push origin main
    --force` is not caught, argument patterns cannot be said, and a rule narrowed to a
    target gets none: its prefix would forbid more than the person did); None when none.
    A rule with a word that is not plain (learn.report.escalation.codex_refusal) gets none
    either, and `notes` says why: the rules file is learn's data, but read back from disk,
    and its words go into Codex's Starlark."""
    from learn.report.escalation import codex_refusal, merged_codex_rules

    text: str | None = None
    for r in rules:
        if r.mode != "enforce" or r.targets:
            continue
        head = [r.program, *([r.subcommand] if r.subcommand else [])]
        commands = [" ".join([*head, f]) for f in r.flags] or [" ".join(head)]
        odd = next((w for c in commands if (w := codex_refusal(c))), None)
        if odd is not None:
            if notes is not None:
                notes.append(f"check {r.id}: {odd}")
            continue
        text = merged_codex_rules(text or "# Written by `learn check` (Codex without hooks): "
                                  "the exact prefixes of the commands you forbade.\n",
                                  commands, r.reason, r.id)
    return text.encode("utf-8") if text is not None else None


def current_rules(project: str, root: Path | None = None) -> RuleSet:
    path = rules_file(project, root)
    if not path.exists():
        return RuleSet(project, ())
    try:
        return load_rules(path)
    except BadRules as exc:
        raise CheckError(f"{path}: {exc}; remove it (learn check remove --all) or fix it") from exc


def install_record(project: str, root: Path | None = None) -> dict[str, Any]:
    try:
        data = json.loads(record_file(project, root).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def plan_rules(project: str, rules: Sequence[CheckRule], *, agents: Sequence[Agent] = ("claude",),
               root: Path | None = None, home: Path | None = None,
               checkout: str | None = None) -> CheckPlan:
    """The changes that leave `project` checked by exactly `rules`: the data file, and
    the hook installed (rules left) or removed (none left) for each of `agents`.

    Claude Code's hook goes into the settings of `checkout` (the checkout the command
    runs in, default the project's folder) and stays in every checkout it went into
    before: Claude Code reads the settings of the checkout a session runs in, so a
    hook in the main checkout never reaches a session in a worktree (the desktop app
    runs each session in one). The rules stay the project's, one data file for every
    checkout; with none left, the hook leaves every checkout."""
    data_path = rules_file(project, root)
    old_rules = read_settings_bytes(data_path)
    record = install_record(project, root)
    changes: list[FileChange] = []
    notes: list[str] = []
    new_record: dict[str, Any] = dict(record)
    installed: list[str] = list(record.get("agents") or [])
    want = list(dict.fromkeys(agents)) if rules else []
    targets: dict[str, Any] = dict(record.get("targets") or {})
    # Claude Code's hook in other checkouts of the repository than the first one it
    # went into: a slot each, `claude@<settings file>`, installed and removed with it.
    extra = sorted(k for k in targets if k.startswith(_ELSEWHERE))
    # A checkout removed since (`git worktree remove`) took learn's hook with it:
    # nothing to write or restore there, and writing there would be refused.
    for key in [k for k in ("claude", *extra) if k in targets]:
        folder = Path(targets[key]["path"]).parent.parent
        if not folder.is_dir():
            notes.append(f"{folder} no longer exists: learn's hook went with it")
            del targets[key]
            extra = [k for k in extra if k != key]
    if "claude" in installed and "claude" not in targets:
        if extra:  # the first further checkout takes the place of the one removed
            targets["claude"] = targets.pop(extra.pop(0))
        else:
            installed.remove("claude")
    new_record["targets"] = dict(targets)
    if "claude" in want and checkout is not None and targets.get("claude"):
        here = target_path("claude", checkout, home)
        if Path(targets["claude"]["path"]) != here and f"{_ELSEWHERE}{here}" not in extra:
            extra.append(f"{_ELSEWHERE}{here}")
    for key in [*sorted(set(installed) | set(want)), *extra]:
        agent = "claude" if key.startswith(_ELSEWHERE) else key
        had = key in targets if key.startswith(_ELSEWHERE) else key in installed
        target = targets.get(key) or {}
        path = Path(target["path"]) if target.get("path") else (
            Path(key[len(_ELSEWHERE):]) if key.startswith(_ELSEWHERE)
            else target_path(agent, checkout or project, home))
        forms = hook_forms(data_path, "codex" if agent == "codex" else "claude")
        before = read_settings_bytes(path)
        if agent in want:
            if agent == "codex-rules":
                after = codex_prefix_rules(rules, notes)
                after = before if after is None else after
            else:
                after = _edited(path, before, forms)
            if not had:
                new_record.setdefault("targets", {})[key] = {
                    "path": str(path), "original": None if before is None
                    else base64.b64encode(before).decode("ascii"),
                    "written": hashlib.sha256(after or b"").hexdigest(),
                    "made_dir": not path.parent.exists()}
            elif agent == "codex-rules":
                new_record["targets"][agent]["written"] = hashlib.sha256(after or b"").hexdigest()
            changes.append(FileChange(path, before, after))
            continue
        original = target.get("original")
        original_bytes = None if original is None else base64.b64decode(original)
        if before is None or hashlib.sha256(before).hexdigest() == target.get("written"):
            after_b: bytes | None = original_bytes  # untouched since: byte for byte
        elif agent == "codex-rules":
            after_b = before
            notes.append(f"{path} changed since learn wrote it: left as it is; delete learn's "
                         "prefix rules from it by hand")
        else:
            stripped = _without_hook(_json_object(path, before), forms)
            if original_bytes is not None and stripped == _json_object(path, original_bytes):
                after_b = original_bytes
            elif original_bytes is None and not stripped:
                after_b = None
            else:
                after_b = _dumps(stripped, before, path)
                notes.append(f"{path} changed since the check was installed: only learn's hook "
                             "is taken out, your other changes stay")
        changes.append(FileChange(path, before, after_b,
                                  made_dir=bool(target.get("made_dir")) and after_b is None))
        new_record.get("targets", {}).pop(key, None)
    new_record["agents"] = want
    after_rules = RuleSet(project, tuple(rules)).dumps().encode("utf-8") if rules else None
    changes.insert(0, FileChange(data_path, old_rules, after_rules, private=True))
    if "codex" in want and "codex" not in installed:
        notes.append("Codex runs a new hook only once you trust it: open /hooks in Codex and "
                     "trust learn's check")
    if "codex-rules" in want and "codex-rules" not in installed:
        notes.append("this Codex runs no hooks: it gets exact prefix_rules for the enforced "
                     "rules instead, which catch a forbidden flag only right after the "
                     "subcommand (`git push --force`, not `git push origin main --force`); "
                     "Codex 0.124 or later runs learn's check itself")
    return CheckPlan(tuple(changes), tuple(notes), new_record if rules else {})


def with_rule(rules: Sequence[CheckRule], rule: CheckRule) -> list[CheckRule]:
    """`rules` with `rule` added, or in place of the rule with its id."""
    out = [r for r in rules if r.id != rule.id]
    out.append(rule)
    return out


def with_mode(rules: Sequence[CheckRule], rule_id: str, mode: Mode) -> list[CheckRule]:
    """`rules` with `rule_id` switched to `mode` (dated when it starts to enforce)."""
    from learn.isotime import now_iso

    if not any(r.id == rule_id for r in rules):
        raise CheckError(f"no check rule {rule_id!r} in this project (learn check list)")
    return [r._replace(mode=mode, enforced_at=now_iso() if mode == "enforce" else None)
            if r.id == rule_id and r.mode != mode else r for r in rules]


def installed_agents(project: str, root: Path | None = None) -> list[Agent]:
    return [a for a in install_record(project, root).get("agents") or []
            if a in ("claude", "codex", "codex-rules")]
