"""Long prompts repeated verbatim across sessions: machinery, and a finding of their own.

A harness or SDK that drives Claude Code or Codex opens every session with the
same long prompt ("You are X, an autonomous development agent…"). Each copy is
a user turn, and mined as speech its every sentence became a "directive" with a
session count equal to the number of runs: on the issue-10 corpus a single
scripted prompt produced more candidates than everything the person typed.
The same shape comes from a person pasting their own long prompt by hand into
session after session; that is not a rule to learn either, but it is worth
saying once: it should be a command.

This is a corpus-level pass over the session views (one session cannot know
its opening prompt is repeated): `repeated_prompts` finds them, and
`without_prompts` removes them from a view through the template machinery
(`replay`), so words the person added around a pasted prompt stay typed
(both in `repeated`, re-exported here); `machinery` runs the whole pass
(`corpus`), and `without_project_prompts` judges one session (`learn show`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Final

from learn.transcripts.templates.entries import Entry
from learn.transcripts.templates.keys import Keys
from learn.transcripts.templates.repeated import (
    BY_HAND_SHARE as BY_HAND_SHARE,
)
from learn.transcripts.templates.repeated import (
    REPEATED_MIN_CHARS as REPEATED_MIN_CHARS,
)
from learn.transcripts.templates.repeated import (
    REPEATED_MIN_SESSIONS as REPEATED_MIN_SESSIONS,
)
from learn.transcripts.templates.repeated import (
    Machinery as Machinery,
)
from learn.transcripts.templates.repeated import (
    RepeatedPrompt as RepeatedPrompt,
)
from learn.transcripts.templates.repeated import (
    command_suggestion as command_suggestion,
)
from learn.transcripts.templates.repeated import (
    repeated_prompts as repeated_prompts,
)
from learn.transcripts.templates.repeated import (
    with_prompts as with_prompts,
)
from learn.transcripts.templates.repeated import (
    without_prompts as without_prompts,
)
from learn.transcripts.view.model import Session


def machinery(
    views: Sequence[Session],
    fingerprints: Sequence[str] = (),
    *,
    include_programmatic: bool = False,
    keys: Keys | None = None,
) -> Machinery:
    """Cut what programs wrote from `views`, judged across all of them.

    Prompts repeated word for word (`repeated_prompts`) and template instances
    (`skeleton`) lose everything but the parts a person supplied; each session
    gets an origin (`origin.judge_origins`), and a programmatic one keeps no
    typed turns unless `include_programmatic`. Linear in the sessions and their
    text (`corpus`). `keys`: each turn's keys when the caller has them (the
    session index stores them), and the texts of light views (`keys.Keys`); a
    light view's turns come back with the empty texts they were given.
    """
    from learn.transcripts.templates.corpus import judge

    return judge(views, fingerprints, include_programmatic=include_programmatic, keys=keys)


def judged_sessions(entries: Sequence[Entry], *, include_programmatic: bool = False,
                    keys: Keys | None = None) -> list[Session]:
    """`machinery(...).views` of sessions as the session index stores them
    (`entries.Entry`): their turns read only where the judgement needs them."""
    from learn.transcripts.templates import corpus

    return corpus.judged_sessions(entries, include_programmatic=include_programmatic, keys=keys)


# A scripted prompt opens its session, so the head of each file is enough to
# find it when only one session is being shown (`learn show`); the full views
# are used where the pipeline has them anyway.
HEAD_BYTES: Final = 64 * 1024
# `learn show` is interactive: the newest sessions of the project are enough to
# see a prompt that opens many of them (64 kB x 300 is ~20 MB of reading).
HEAD_SESSIONS: Final = 300


def head_view(path: Path, fingerprints: Sequence[str] = ()) -> Session | None:
    """The view of the first HEAD_BYTES of `path` (whole lines), None when unreadable or empty."""
    from learn.transcripts.files.sources import open_regular
    from learn.transcripts.parser import parse
    from learn.transcripts.view.session import build_session

    try:
        fh, _ = open_regular(path)  # never a FIFO named like a session
        with fh:
            head = fh.read(HEAD_BYTES)
    except OSError:
        return None
    head = head[: head.rfind(b"\n") + 1]
    return build_session(parse(head), fingerprints=fingerprints) if head else None


def project_views(project: str | None, fingerprints: Sequence[str] = (),
                  skip: Path | None = None) -> list[Session]:
    """The views of the sessions of `project` (but `skip`), read from each file's head."""
    from learn.transcripts.files.discover import scan
    from learn.windows_names import not_opened

    # A project on a network share is not looked for (discovery's scan resolves its
    # folder, which asks the server with the person's login): its sessions are judged
    # alone, as `learn show` judges them (learn.windows_names.not_opened).
    if not project or not_opened(project) is not None:
        return []
    views: list[Session] = []
    for file in scan(project=Path(project)).files[:HEAD_SESSIONS]:
        if skip is not None and file.path == skip:
            continue
        view = head_view(file.path, fingerprints)
        if view is not None:
            views.append(view)
    return views


def project_prompts(project: str | None, fingerprints: Sequence[str] = ()) -> list[RepeatedPrompt]:
    """The repeated prompts among the sessions of `project`, read from each file's head."""
    from learn.transcripts.view.resume import own_turns

    return repeated_prompts(own_turns(project_views(project, fingerprints)).values())


def without_project_prompts(view: Session, fingerprints: Sequence[str] = (), *,
                            include_programmatic: bool = False,
                            others: Sequence[Session | Entry] | None = None,
                            keys: Keys | None = None) -> Session:
    """`view` as a run reads it (`learn show`): judged with the other sessions of
    its project, without the prompts and templates repeated across them.

    `others`: those sessions when the caller has them (as the session index
    stores them, `project_turns.project_turn_views`); else each file's head is read.
    """
    from learn.transcripts.templates.corpus import judge_one

    keys = keys if keys is not None else Keys()
    if others is None:
        others = project_views(view.project, fingerprints, skip=view.path)
    entries = [o if isinstance(o, Entry) else Entry.of(o, keys) for o in others]
    return judge_one([Entry.of(view, keys), *entries], fingerprints,
                     include_programmatic=include_programmatic, keys=keys)
