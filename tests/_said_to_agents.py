"""A project and the points said in it to given agents, stored as a run stores them:
the setup of the tests of where `learn apply` writes for the agents a person uses
(tests/test_f1_main_destination_follows_agents.py, test_f5_commands_and_denials_follow_agents.py,
test_h5_codex_only_person_gets_no_claude_md.py, test_h5_codex_home_is_no_project.py).

The fixtures are written for these tests (not copied from any transcript).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from learn.records.proposal import Proposal, Quote


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """learn's folders under `tmp_path`, no team store, and a repository `service`."""
    learn_dirs(tmp_path, monkeypatch)
    root = tmp_path / "service"
    (root / ".git").mkdir(parents=True)
    return root


def learn_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DATA", "CONFIG", "CACHE"):
        monkeypatch.setenv(f"LEARN_{name}_DIR", str(tmp_path / name.lower()))
    monkeypatch.delenv("LEARN_DATABASE_URL", raising=False)


def said_quotes(where: Path, said: tuple[str | None, ...], text: str,
                prefix: str = "s") -> tuple[Quote, ...]:
    """`text` said in `where` once per agent of `said` (None: a quote of an older run,
    which recorded no agent), a day apart."""
    return tuple(Quote(f"{prefix}{i}", text, f"2026-03-2{i}T00:00:00+00:00", str(where),
                       agent=agent) for i, agent in enumerate(said))


def agents_of(said: tuple[str | None, ...]) -> tuple[tuple[str, int], ...]:
    """A proposal's `agents`: each agent named in `said` with its count."""
    return tuple((a, said.count(a)) for a in dict.fromkeys(said) if a is not None)


def record(tmp_path: Path, where: Path, *points: Proposal, scanned: bool = True) -> None:
    """`points` stored pending in `tmp_path/data`, as a run over `where` stores them;
    `scanned`: learn's session index knows their sessions (each under its quote's
    agent, Claude Code when the quote names none)."""
    from learn.store.feedback import FeedbackStore
    from learn.store.proposals import ProposalBook
    from learn.store.scan_tables import ScannedSession, ScanTables

    (tmp_path / "data").mkdir(exist_ok=True)
    with FeedbackStore.open(tmp_path / "data" / "learn.db") as store:
        ProposalBook(store).record(list(points), run_id=None, fallback_project=str(where))
        if scanned:
            scans = ScanTables(store)
            for q in {q.session_id: q for p in points for q in p.quotes}.values():
                scans.record_session(ScannedSession(q.session_id, q.agent or "claude",
                                                    str(where), f"/x/{q.session_id}", "h",
                                                    None, 0, q.at or ""))
