"""What a word of a command sets, as learn's check compares it with a rule's flag.

Two spellings the check listed as not read (docs/outcomes.md) ran a forbidden command
past a rule that named it:
- a long option cut short: GNU getopt_long and git's parse-options take any
  unambiguous prefix, and a one-letter one is enough: with git 2.39.5, `git reset --h`
  reset hard and `git clean --f` removed files, and GNU rm 9.1 ran `rm --r --f`;
- the long and the short spelling mixed: `rm --recursive --force` and `rm -r --force`
  passed a rule against `rm -rf`, `git push --force` one against `git push -f`.

So `sets` reads every option word of a command (and every flag of a rule) as the
options it sets, each by one name: SAME maps, for a few well-known programs, a
spelling to the option(s) it documents (`rm -R` is `--recursive`, `git branch -D` is
`--delete --force`); every other word is its own name. A rule's flag is broken where
the words before `--` set every option it names. This is the one place flags are
compared: learn.guard.rules matches and logs through it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final, NamedTuple

# (program, subcommand) -> a short spelling -> the long option(s) it is documented as
# (the man page / `git help` of each). Only documented equivalents: a program not here
# compares its flags as written, so `-f` there is not `--force`. git clean's `-d` and
# `-x` have no long spelling: they stay themselves (`-fdx` is `--force -d -x`).
SAME: Final[Mapping[tuple[str, str | None], Mapping[str, tuple[str, ...]]]] = {
    ("rm", None): {"-r": ("--recursive",), "-R": ("--recursive",), "-f": ("--force",)},
    ("cp", None): {"-r": ("--recursive",), "-R": ("--recursive",)},
    ("chmod", None): {"-R": ("--recursive",)},  # chmod's `-r` is a mode (no read)
    ("chown", None): {"-R": ("--recursive",)},
    ("git", "push"): {"-f": ("--force",), "-d": ("--delete",)},
    ("git", "commit"): {"-n": ("--no-verify",)},
    ("git", "clean"): {"-f": ("--force",)},
    ("git", "checkout"): {"-f": ("--force",)},
    ("git", "branch"): {"-D": ("--delete", "--force"), "-d": ("--delete",),
                        "-f": ("--force",)},
}
# The shortest prefix of a long option read as that option. One letter: git and
# getopt_long take any unambiguous prefix (`git reset --h` is `--hard`, `git clean
# --f` is `--force`, `rm --r` is `--recursive`: the module's docstring), and a prefix two
# options share is refused by the program, so stopping it costs the agent a rewrite
# it needed anyway, told why; a miss breaks the promise that a forbidden command is
# stopped in any spelling. `--` itself (no letter) ends the options and is no prefix.
MIN_PREFIX: Final = 1


def spellings(program: str, subcommand: str | None) -> tuple[tuple[str, ...], ...]:
    """SAME's row for `program` `subcommand` as groups of words that set the same options:
    a long option first, then each short spelling of exactly it (rm: `("--recursive",
    "-r", "-R")`, `("--force", "-f")`); a short that sets several options at once is a
    group of its own (git branch's `-D`). () for a program not in SAME. For what is
    offered as a rule (learn.report.check_offer): a rule forbids each spelling."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for short, options in SAME.get((program, subcommand), {}).items():
        groups.setdefault(options, list(options) if len(options) == 1 else []).append(short)
    return tuple(tuple(g) for g in groups.values())


class Reading(NamedTuple):
    """How one rule's program reads its option words."""

    same: Mapping[str, tuple[str, ...]]  # SAME's row for the program, or {}
    longs: frozenset[str]  # long options known by name: read as written, never as a prefix


def reading(program: str, subcommand: str | None, flags: Iterable[str]) -> Reading:
    """The Reading for a rule of `program` `subcommand` with `flags`."""
    same = SAME.get((program, subcommand), {})
    longs = {o for spelled in (same, *same.values()) for o in spelled if o.startswith("--")}
    return Reading(same, frozenset(longs | {f for f in flags if f.startswith("--")}))


def short_letters(word: str) -> str:
    """The one-letter options a word sets (`-r`, `-rf`, `-vquf`: a cluster of any
    length), or "" for anything else."""
    if word.startswith("-") and not word.startswith("--") and word[1:].isalpha():
        return word[1:]
    return ""


def sets(r: Reading, word: str) -> frozenset[str]:
    """The options an option word sets, each by one name: `--force=yes` and `--forc`
    (a prefix of a known long option) are `--force`; `-rf` is `-r` and `-f`, for rm
    `--recursive` and `--force`; anything else is the word itself. A name known exactly
    (the table's, the rule's) wins over a prefix, as in getopt_long: for git push,
    `--force` is not a cut `--force-with-lease`."""
    if word.startswith("--"):
        name = word.split("=", 1)[0]
        if name in r.longs:
            return frozenset(r.same.get(name, (name,)))
        if len(name) - 2 >= MIN_PREFIX:
            cut = [o for n in sorted(r.longs) if n.startswith(name) for o in r.same.get(n, (n,))]
            if cut:
                return frozenset(cut)
        return frozenset({name})
    letters = short_letters(word)
    if letters:
        return frozenset(o for x in letters for o in r.same.get("-" + x, ("-" + x,)))
    return frozenset({word})


def set_by(r: Reading, flag: str, words: Iterable[str]) -> tuple[str, ...] | None:
    """The words (option words of a command) that together set every option the rule's
    `flag` names (`-rf`: `-fr`, `-r -f`, for rm `--recursive --force`), or None."""
    need = sets(r, flag)
    used = [w for w in words if sets(r, w) & need]
    have = frozenset().union(*(sets(r, w) for w in used))
    return tuple(used) if used and need <= have else None
