"""Programs that run a command written in their own arguments, for learn's check.

Each of these ran `git push -f` past the check (audit 2, r3): the words after them
were read as their arguments, never as a command.
- `watch git push -f`: watch hands its words, joined, to `sh -c` (`-x`: runs them);
- `script -qc 'git push -f' /dev/null`: script runs `-c`'s value with the shell;
- `find . -exec git push -f \\;` (`-execdir`, `-ok`, `-okdir`): the words up to `;`/`+`;
- `git -c alias.p='push -f' p`: the alias named on the command line is the command
  (`!...`: a shell script).

`commands_run_by` returns what each runs, as text for learn.guard.shell to read again.
"""

from __future__ import annotations

import shlex
from typing import Final

# Options a program takes before its subcommand, with a value in the next word.
GLOBAL_VALUED: Final[dict[str, frozenset[str]]] = {
    "git": frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix",
                      "--config-env", "--exec-path"}),
    "docker": frozenset({"-H", "--host", "-c", "--context", "--config", "-l", "--log-level"}),
    "kubectl": frozenset({"-n", "--namespace", "--context", "--kubeconfig", "-s", "--server",
                          "--cluster", "--user"}),
    "npm": frozenset({"--prefix", "-w", "--workspace", "-C"}),
    "pnpm": frozenset({"-C", "--dir", "--filter", "-F"}),
    "yarn": frozenset({"--cwd"}),
    "cargo": frozenset({"-C", "--config", "-Z", "--manifest-path"}),
    "gh": frozenset({"-R", "--repo"}),
}
_WATCH_VALUED: Final = frozenset({"-n", "--interval", "-q", "--equexit"})
_FIND_RUNS: Final = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


def _watch(words: list[str]) -> list[str]:
    rest, run = words[1:], False
    while rest and rest[0].startswith("-") and rest[0] != "-":
        opt = rest.pop(0)
        if opt == "--":
            break
        run = run or opt in ("-x", "--exec") or (not opt.startswith("--") and "x" in opt[1:])
        if opt in _WATCH_VALUED:
            rest = rest[1:]
    if not rest:
        return []
    return [shlex.join(rest) if run else " ".join(rest)]


def _script(words: list[str]) -> list[str]:
    for k, w in enumerate(words[1:], start=1):
        if w.startswith("--command="):
            return [w.split("=", 1)[1]]
        if (w == "--command" or (w.startswith("-") and not w.startswith("--")
                                 and w[1:].isalpha() and "c" in w[1:])) and k + 1 < len(words):
            return [words[k + 1]]
    return []


def _find(words: list[str]) -> list[str]:
    out: list[str] = []
    k = 1
    while k < len(words):
        if words[k] in _FIND_RUNS:
            end = k + 1
            while end < len(words) and words[end] not in (";", "+"):
                end += 1
            if end > k + 1:
                out.append(shlex.join(words[k + 1:end]))
            k = end
        k += 1
    return out


def _git(words: list[str]) -> list[str]:
    aliases: dict[str, str] = {}
    k = 1
    while k < len(words) and words[k].startswith("-"):
        if words[k] == "-c" and k + 1 < len(words):
            name, eq, value = words[k + 1].partition("=")
            if eq and name.lower().startswith("alias."):
                aliases[name[len("alias."):]] = value
        k += 2 if words[k] in GLOBAL_VALUED["git"] else 1
    alias = aliases.get(words[k]) if k < len(words) else None
    if alias is None:
        return []
    rest = shlex.join(words[k + 1:])
    if alias.startswith("!"):  # git runs it with the shell, the arguments after it
        return [f"{alias[1:]} {rest}"]
    return [f"{shlex.join(words[:k])} {alias} {rest}"]


def commands_run_by(name: str, words: list[str]) -> list[str] | None:
    """The commands `words` (a command of program `name`) runs as text; None when
    `name` runs none of its arguments."""
    if name == "watch":
        return _watch(words)
    if name == "script":
        return _script(words)
    if name == "find":
        return _find(words)
    if name == "git":
        return _git(words)
    return None
