"""Which file a command for Codex is: a custom prompt for an old Codex, a skill for a current one.

learn wrote every Codex command as a custom prompt, `~/.codex/prompts/<name>.md`. Codex
0.117.0 removed custom prompts (openai/codex#16115, "Remove remaining custom prompt
support"), and the Codex this project pins (.ci/install-codex, 0.171.0) never reads that
folder: a person on a current Codex got a dead file and was told a command was written.
Its reusable instructions are skills now: a folder holding `SKILL.md`, front matter
`name` and `description` (read with serde_yaml, so real YAML: learn.report.apply.
yaml_string's quoting is read back as meant), then the body, which Codex sends the model
when the person names the skill with `$<name>` in a message.

Where Codex 0.171.0 reads a person's skills (codex-rs/core-skills/src/loader.rs, and its
app-server's `skills/list` answer, tests/test_codex_skills.py): `~/.agents/skills` (the
home folder's, whatever CODEX_HOME says) and `$CODEX_HOME/skills`, which its loader calls
the deprecated place; learn writes the first. A name is at most 64 characters and a
description at most 1024 (longer: the skill is not loaded); a folder whose name starts
with `.` is never looked in; `$name` is read as ASCII letters, digits, `_`, `-` and `:`
(`:` joins a plugin's name to its skill's), and never as `$PATH`, `$HOME` and the other
common variables.

A skill is more than a prompt was: Codex puts every skill's name and description in the
model's context and lets the model use one on its own when it judges a task matches, while a
custom prompt ran only when the person typed it, which is what they confirmed ("a command I
call"). So beside each SKILL.md learn writes the skill's metadata file, `agents/openai.yaml`
(loader.rs `load_skill_metadata`), saying `policy: allow_implicit_invocation: false`
(`EXPLICIT_ONLY`): Codex 0.171.0 then leaves the skill out of the list the model is given
(its `codex debug prompt-input`: a skill without the file is listed, one with it is not)
and still runs it on `$name` (injection.rs selects a mention among every enabled skill);
`skills/list` still lists it, with no error, and has no field for the policy
(tests/test_codex_skill_policy.py, with the real Codex). Its text is learn's, never a
transcript's (learn.report.command_plan.plan_policy): Codex ignores a metadata file it cannot
parse (fail open), which would make the skill implicit again.

Which Codex a person runs is what their newest sessions say (`cli_version` in a rollout's
`session_meta`): before 0.117.0 a prompt, from it (or when no session says) a skill
(`reads_skills`, the one decision).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from learn.reduce.rule_places import codex_home
from learn.report.confine import surface_of
from learn.transcripts.files.compressed import ZST_SUFFIX, read_prefix
from learn.transcripts.files.sources import open_regular

# The first Codex that reads no custom prompt (openai/codex#16115); 0.116.0 was the last
# that read `~/.codex/prompts` (its `/prompts:` menu, learn.report.codex_prompt).
SKILLS_FROM: Final = (0, 117, 0)

# Codex's own limit on a skill's name (loader.rs MAX_NAME_LEN): a longer one is an error
# and the skill is not loaded. learn's names are at most 51 (targets.slug: 48, `my-`).
MAX_SKILL_NAME: Final = 64

# Names a `$name` cannot call: the variables Codex never reads as a skill (injection.rs
# is_common_env_var), and the skills Codex 0.171.0 ships (its `skills/list` in an empty
# home): two skills of one name make `$name` call neither.
_UNCALLABLE: Final = frozenset({
    "path", "home", "user", "shell", "pwd", "tmpdir", "temp", "tmp", "lang", "term",
    "xdg_config_home", "create-statusline", "imagegen", "openai-docs", "review-agent",
    "skill-creator", "skill-installer"})

# The rollouts read for the version: the newest by name (`rollout-<date>T<time>-<id>`,
# in `sessions/YYYY/MM/DD`). The highest version among them, not the newest file's
# alone: Codex's IDE extension bundles its own Codex, and a session of an older one
# there must not turn a current CLI's commands back into prompts.
_NEWEST: Final = 8
# session_meta is the first line, `cli_version` in its first few hundred bytes (0.171.0:
# byte 200); instructions a client put there come after it.
_HEAD_BYTES: Final = 8 * 1024
# Unescaped quotes around the key: inside a JSON string (a cwd, an instruction) every
# quote is escaped, so no value can spell this.
_CLI_VERSION: Final = re.compile(rb'"cli_version"\s*:\s*"(\d+)\.(\d+)\.(\d+)')


def reads_skills(version: tuple[int, int, int] | None) -> bool:
    """Whether a Codex of `version` reads skills, not custom prompts; None (no session
    says which Codex it is): yes, as a Codex installed today does."""
    return version is None or version >= SKILLS_FROM


def codex_version(home: Path | None = None) -> tuple[int, int, int] | None:
    """The Codex the person runs: the highest `cli_version` of their newest rollouts
    (`_NEWEST`, under CODEX_HOME's `sessions`); None when none says."""
    found = [v for v in map(_rollout_version, _newest_rollouts(home)) if v is not None]
    return max(found, default=None)


def codex_command(name: str, home: Path | None = None) -> Path:
    """Where a command named `name` (a file name learn made: learn.report.targets.slug) is
    written for the person's Codex: a skill `~/.agents/skills/<name>/SKILL.md`, or for a
    Codex before 0.117.0 a custom prompt `~/.codex/prompts/<name>.md` (CODEX_HOME's)."""
    home = home or Path.home()
    if reads_skills(codex_version(home)):
        return skills_dir(home) / skill_name(name) / "SKILL.md"
    return prompt_path(name, home)


def prompt_path(name: str, home: Path | None = None) -> Path:
    """A Codex custom prompt named `name`: its home's `prompts` folder (CODEX_HOME's), the
    only one a Codex before 0.117.0 reads them from, so a project's is every project's."""
    return codex_home(home or Path.home()) / "prompts" / f"{name}.md"


def skills_dir(home: Path | None = None) -> Path:
    """The folder of the person's own skills, `~/.agents/skills`: the one Codex reads that
    its loader does not call deprecated. Not CODEX_HOME's: Codex finds it from the home."""
    return (home or Path.home()) / ".agents" / "skills"


def skill_name(name: str) -> str:
    """`name` as a skill's name, which is its folder's name too: `my-` before one that
    `$name` cannot call (`_UNCALLABLE`). A name learn makes (lower-case letters, digits
    and dashes, at most 48) is otherwise one Codex loads and calls as it is."""
    return f"my-{name}" if name in _UNCALLABLE else name


def is_codex_skill(real: Path) -> bool:
    """Whether the resolved path `real` is a skill learn writes for Codex: learn.report.
    confine's `~/.agents/skills/<name>/SKILL.md`."""
    surface = surface_of(real, ())
    return surface is not None and surface.kind == "skill"


# The skill's metadata file, in its folder (loader.rs SKILLS_METADATA_DIR and
# SKILLS_METADATA_FILENAME), and the one text learn writes there (the module doc).
POLICY_FILE: Final = ("agents", "openai.yaml")
EXPLICIT_ONLY: Final = "policy:\n  allow_implicit_invocation: false\n"


def policy_path(skill: Path) -> Path:
    """The metadata file of the skill whose SKILL.md is `skill`: `<folder>/agents/openai.yaml`."""
    return skill.parent.joinpath(*POLICY_FILE)


def is_skill_policy(real: Path) -> bool:
    """Whether the resolved path `real` is a skill's metadata file (learn.report.confine's
    `~/.agents/skills/<name>/agents/openai.yaml`): learn writes only `EXPLICIT_ONLY` there."""
    surface = surface_of(real, ())
    return surface is not None and surface.kind == "skill-policy"


def invocation(path: Path) -> str:
    """How the person calls the command written to `path`, as a clause: `$name` for a
    skill, `/prompts:name` for a custom prompt (Codex 0.116.0's menu)."""
    if path.name == "SKILL.md":
        return f"type ${path.parent.name} in a Codex message to use it"
    return f"type /prompts:{path.stem} in Codex to use it"


def codex_command_noun(path: Path) -> str:
    """What the file at `path` is to Codex, for the apply's and the digest's sentences."""
    return "a Codex skill" if path.name == "SKILL.md" else "a Codex custom prompt"


def _newest_rollouts(home: Path | None) -> Iterator[Path]:
    """Up to `_NEWEST` rollouts, the newest first by their folders' and names' dates."""
    left = _NEWEST
    for path in _walk_newest(codex_home(home or Path.home()) / "sessions", depth=3):
        yield path
        left -= 1
        if not left:
            return


def _walk_newest(folder: Path, depth: int) -> Iterator[Path]:
    try:
        names = sorted(os.listdir(folder), reverse=True)
    except OSError:  # no sessions yet, or a folder learn may not read: no version
        return
    for name in names:
        if depth:
            if name.isdigit():
                yield from _walk_newest(folder / name, depth - 1)
        elif name.startswith("rollout-") and name.endswith((".jsonl", ".jsonl" + ZST_SUFFIX)):
            yield folder / name


def _rollout_version(path: Path) -> tuple[int, int, int] | None:
    """The `cli_version` of the rollout's first line, a `session_meta`; None when it has none
    (a bare-era rollout) or cannot be read. Opened as a regular file only (a FIFO named
    like a rollout would hang the read)."""
    try:
        if path.name.endswith(ZST_SUFFIX):
            head = read_prefix(path, _HEAD_BYTES)
        else:
            fh, _ = open_regular(path)
            with fh:
                head = fh.read(_HEAD_BYTES)
    except OSError:
        return None
    first = head.split(b"\n", 1)[0]
    if b'"session_meta"' not in first:
        return None
    found = _CLI_VERSION.search(first)
    return None if found is None else (int(found[1]), int(found[2]), int(found[3]))
