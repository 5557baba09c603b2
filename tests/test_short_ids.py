"""The session id `learn sessions` and `learn plan` show is one `learn show` opens.

Audit finding L1: ids were cut to 8 characters. Codex's ids are UUIDv7, time
first, so two sessions started 20 s apart were both listed as `01a23c34`, and
`learn show 01a23c34` then said "matches 2 sessions" (exit 2). Both commands now
show each id's shortest prefix, at least 8 characters, that no other listed id
starts with (learn.commands.sessions.short_ids).

Audit 58 finding 4: unique among the listed rows was not enough, since `learn show`
looks in every project with no `--since` or `--limit`: a twin in another project, or
one `--limit` cut, made the id shown ambiguous there. The prefixes are now cut
against every id the listing's scan saw (learn.commands.sessions.known_ids).
"""

from __future__ import annotations

import os
import random
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

from _learn_cli import learn

from evals.builder.codex import CodexSession
from learn.commands.sessions import short_ids

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
# Two Codex (UUIDv7) ids started 20 s apart: the first 9 characters are the same.
TWINS = ("01a23c34-5a10-7e4f-8a9b-0c1d2e3f4a01", "01a23c34-5fe0-7a11-9b2c-1d2e3f4a5b02")
ALONE = "9f3e2d1c-0b0a-4f9e-8d7c-6b5a49382716"


def test_each_id_is_cut_to_its_shortest_unique_prefix_of_at_least_8() -> None:
    ids = [*TWINS, ALONE, "01a23c35-0000-7000-8000-000000000000"]
    short = short_ids(ids)
    assert short == {TWINS[0]: "01a23c34-5a", TWINS[1]: "01a23c34-5f", ALONE: "9f3e2d1c",
                     ids[3]: "01a23c35"}
    assert short_ids([]) == {}
    assert short_ids(["abc"]) == {"abc": "abc"}  # shorter than 8: whole
    # One id a prefix of another: the shorter is shown whole, the longer one past it.
    assert short_ids(["0123456789", "01234567890"]) == {"0123456789": "0123456789",
                                                        "01234567890": "01234567890"}


def test_short_ids_are_unique_and_shortest_against_every_other_id() -> None:
    rng = random.Random(7)
    ids = [f"{rng.choice('01')}{rng.choice('ab')}{rng.randrange(16 ** 10):010x}"[:12]
           for _ in range(400)] + [f"0a{'0' * 6}{n:04x}" for n in range(50)]
    short = short_ids(ids)
    for sid, cut in short.items():
        assert sid.startswith(cut) and len(cut) >= min(8, len(sid))
        others = [o for o in short if o != sid]
        assert not any(o.startswith(cut) for o in others), (sid, cut)
        if len(cut) > 8:  # one character fewer is some other id's prefix too
            assert any(o.startswith(cut[:-1]) for o in others), (sid, cut)


def test_sessions_and_plan_list_ids_that_show_opens() -> None:
    home = Path(os.environ["HOME"])
    work = home / "code" / "api"
    work.mkdir(parents=True)
    for n, sid in enumerate((*TWINS, ALONE)):
        s = CodexSession(sid, str(work), START + timedelta(seconds=20 * n))
        s.user(["fix the login redirect", "the cache key misses the tenant",
                "rename the config loader"][n])
        s.assistant("Looking.")
        s.write(home / ".codex")

    listed = learn("sessions", cwd=work)
    assert listed.returncode == 0, listed.stderr
    shown = re.findall(r"^codex\s+(\S+)", listed.stdout, re.MULTILINE)
    assert sorted(shown) == ["01a23c34-5a", "01a23c34-5f", "9f3e2d1c"], listed.stdout

    plan = learn("plan", "--since", "2026-01-01", cwd=work)
    assert plan.returncode == 0, plan.stderr
    planned = re.findall(r"^  (\S+)  +\d+ KB", plan.stdout, re.MULTILINE)
    assert sorted(planned) == sorted(shown), plan.stdout

    for cut in shown:
        opened = learn("show", cut, cwd=work)
        assert opened.returncode == 0, (cut, opened.stderr)


def _codex(home: Path, where: Path, sid: str, n: int, said: str) -> None:
    where.mkdir(parents=True, exist_ok=True)
    s = CodexSession(sid, str(where), START + timedelta(seconds=20 * n))
    s.user(said)
    s.assistant("Looking.")
    s.write(home / ".codex")


def _shown(listed: str) -> list[str]:
    return re.findall(r"^codex\s+(\S+)", listed, re.MULTILINE)


def test_an_id_listed_in_one_project_opens_though_its_twin_is_in_another() -> None:
    """Audit 58 finding 4: the twin in another project made `learn show` (which looks in
    every project) refuse the 8 characters `learn sessions` showed in this one."""
    home = Path(os.environ["HOME"])
    api, web = home / "code" / "api", home / "code" / "web"
    _codex(home, api, TWINS[0], 0, "fix the login redirect")
    _codex(home, web, TWINS[1], 1, "the cache key misses the tenant")

    listed = learn("sessions", cwd=api)
    assert listed.returncode == 0, listed.stderr
    assert _shown(listed.stdout) == ["01a23c34-5a"], listed.stdout
    plan = learn("plan", "--since", "2026-01-01", cwd=api)
    assert re.findall(r"^  (\S+)  +\d+ KB", plan.stdout, re.MULTILINE) == ["01a23c34-5a"], plan.stdout
    # The same session from either folder: an id names one session wherever it is typed.
    for where in (api, web):
        opened = learn("show", "01a23c34-5a", cwd=where)
        assert opened.returncode == 0, opened.stderr
        assert "fix the login redirect" in opened.stdout
        assert "the cache key misses the tenant" not in opened.stdout


def test_an_id_listed_under_limit_or_since_opens_though_its_twin_was_cut() -> None:
    home = Path(os.environ["HOME"])
    api = home / "code" / "api"
    _codex(home, api, TWINS[0], 0, "fix the login redirect")
    _codex(home, api, TWINS[1], 1, "the cache key misses the tenant")

    for cut in (("--limit", "1"), ("--since", (START + timedelta(seconds=110)).isoformat())):
        listed = learn("sessions", *cut, cwd=api)
        assert listed.returncode == 0, listed.stderr
        shown = _shown(listed.stdout)
        assert shown == ["01a23c34-5f"], (cut, listed.stdout)
        opened = learn("show", shown[0], cwd=api)
        assert opened.returncode == 0, (cut, opened.stderr)
        assert "the cache key misses the tenant" in opened.stdout
