"""A remembered verdict is reused only where the judge saw the quotes it stands for.

Found end to end: `learn run --all-projects` judged "don't mock the database" in a
web shop whose quotes named its docker test database and `pnpm test:db`; a plain
`learn run` in a notes API, whose quotes were about sqlite fixtures, then proposed
the shop's wording without a judge call (the verdict was keyed by `kind:label`
alone, store-wide). Here: the notes API's verdict comes from a call that saw its
quotes; a warm run in one project still asks nothing; a user-level rule judged from
the same words may stand in another project.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from _reduce_helpers import ScriptedBackend, TopicEmbedder, directive, items_of, session
from fakes.anthropic_server import FakeAnthropicServer
from fakes.http_server import RecordedRequest
from test_e2e_run import _env, _learn

from evals.builder import ClaudeSession, session_id
from evals.gold import Gold
from evals.oracle import GoldOracle
from learn.models.base import ModelRequest
from learn.records.proposal import Proposal, Quote, Scope
from learn.reduce.judge import judge_proposals
from learn.reduce.memory import InMemoryLabelIndex, InMemoryShownState, InMemoryVerdictMemory
from learn.reduce.protocols import VerdictMemory
from learn.reduce.stage import reduce_sessions
from learn.reduce.stored import StoreVerdictMemory
from learn.store import open_store

SHOP = "/home/dev/code/shopfront"
NOTES = "/home/dev/code/notes-api"
LABEL = "no-database-mocks-in-tests"
SHOP_RULE = "Never vi.mock lib/db; run the tests against the docker test database with `pnpm test:db`."
NOTES_RULE = "Never mock the database in tests; use the sqlite test database fixture."
ENGLISH_RULE = "Answer in English."
MODELS = {"name": "m", "coverage": "m", "judge": "m", "mine": "m"}


def verdicts_for(user: str, scope: Scope = "project") -> dict[str, Any]:
    """A judge's answer that words each rule from what its item says: the docker
    setup, the sqlite one, or the language."""
    rows = []
    for i, _, text in items_of(user):
        summary = (NOTES_RULE if "sqlite" in text else SHOP_RULE if "docker" in text
                   else ENGLISH_RULE)
        rows.append({"id": i, "accepted": True, "category": "testing", "scope": scope,
                     "confidence": 0.9, "summary": summary, "rationale": "said often",
                     "canonical_key": LABEL})
    return {"verdicts": rows}


def judge_by_quotes(scope: Scope = "project") -> Callable[[ModelRequest], Mapping[str, Any]]:
    return lambda request: verdicts_for(request.user, scope)


def said_in(project: str, *texts: str, label: str = LABEL) -> Proposal:
    """A point said in `project`, one session per quote."""
    quotes = tuple(Quote(f"{project.rsplit('/', 1)[1]}-{n}", text, f"2026-11-2{n}T10:00:00Z",
                         project=project) for n, text in enumerate(texts))
    return Proposal(kind="directive", label=label, text=texts[0], sessions=len(texts),
                    count=len(texts), last_seen=quotes[-1].at, quotes=quotes)


def spanning(*points: Proposal) -> Proposal:
    """One group of the quotes of several projects, as a run over all of them counts it."""
    quotes = tuple(q for p in points for q in p.quotes)
    return Proposal(kind="directive", label=points[0].label, text=points[0].text,
                    sessions=len(quotes), count=len(quotes), last_seen=points[0].last_seen,
                    quotes=quotes)


SHOP_SAYS = ("don't mock the db in these tests, they run on the docker test database",
             "stop mocking the database, use the docker db")
NOTES_SAYS = ("no mocks for the database, the tests have a sqlite fixture",
              "don't mock the db session, use the sqlite test database")


@contextmanager
def in_memory(_: Path) -> Iterator[VerdictMemory]:
    yield InMemoryVerdictMemory()


@contextmanager
def in_store(tmp: Path) -> Iterator[VerdictMemory]:
    with open_store(tmp / "data" / "feedback.db") as store:
        yield StoreVerdictMemory(store, TopicEmbedder.name)


MEMORIES: dict[str, Callable[[Path], AbstractContextManager[VerdictMemory]]] = {
    "in-memory": in_memory, "store": in_store}


def judge(points: list[Proposal], memory: VerdictMemory,
          scope: Scope = "project") -> tuple[list[Proposal], ScriptedBackend]:
    backend = ScriptedBackend(judge_by_quotes(scope))
    result = judge_proposals(points, backend=backend, model="m", embedder=TopicEmbedder(),
                             memory=memory)
    return list(result.proposals), backend


@pytest.mark.parametrize("where", sorted(MEMORIES))
def test_another_projects_verdict_of_the_same_key_is_judged_again(where: str, tmp_path: Path) -> None:
    with MEMORIES[where](tmp_path) as memory:
        (shop,), _ = judge([said_in(SHOP, *SHOP_SAYS)], memory)
        assert shop.verdict is not None and shop.verdict.summary == SHOP_RULE

        (notes,), backend = judge([said_in(NOTES, *NOTES_SAYS)], memory)
        # A new call, which saw the notes API's own quotes and worded its own rule.
        (request,) = backend.requests
        assert "sqlite fixture" in request.user and "docker" not in request.user
        assert notes.verdict is not None and not notes.verdict.reused
        assert notes.verdict.summary == NOTES_RULE


@pytest.mark.parametrize("where", sorted(MEMORIES))
def test_a_warm_run_in_the_same_project_asks_no_judge(where: str, tmp_path: Path) -> None:
    with MEMORIES[where](tmp_path) as memory:
        judge([said_in(SHOP, *SHOP_SAYS)], memory)
        judge([said_in(NOTES, *NOTES_SAYS)], memory)
        # Nothing new, then the same point said once more in the shop: its verdict
        # stands (the shop's, not the notes API's judged since), no call either time.
        for again in (said_in(SHOP, *SHOP_SAYS), said_in(SHOP, *SHOP_SAYS, "no db mocks, docker")):
            (point,), backend = judge([again], memory)
            assert backend.requests == []
            assert point.verdict is not None and point.verdict.reused
            assert point.verdict.summary == SHOP_RULE


def test_a_near_verdict_of_another_project_is_not_reused() -> None:
    memory = InMemoryVerdictMemory()
    judge([said_in(SHOP, *SHOP_SAYS, label="keep-the-db-unmocked")], memory)
    # Another label whose text embeds next to the shop's (the same topic words) and
    # whose label is the shop verdict's canonical key: neither reaches across projects.
    (notes,), backend = judge([said_in(NOTES, *NOTES_SAYS)], memory)
    assert len(backend.requests) == 1
    assert notes.verdict is not None and notes.verdict.summary == NOTES_RULE


def test_a_user_level_rule_judged_from_the_same_words_is_reused_elsewhere() -> None:
    memory = InMemoryVerdictMemory()
    words = ("always answer me in english", "reply in english please")
    judge([said_in(SHOP, *words, label="answer-in-english")], memory, scope="user")
    (notes,), backend = judge([said_in(NOTES, *words, label="answer-in-english")], memory)
    assert backend.requests == []
    assert notes.verdict is not None and notes.verdict.reused
    assert notes.verdict.summary == ENGLISH_RULE

    # Other words in a third project: judged on them.
    (other,), backend = judge([said_in("/home/dev/code/turret", "english answers only",
                                       label="answer-in-english")], memory)
    assert len(backend.requests) == 1 and other.verdict is not None and not other.verdict.reused


def test_a_project_rule_judged_from_the_same_words_is_judged_again_elsewhere() -> None:
    memory = InMemoryVerdictMemory()
    judge([said_in(SHOP, *SHOP_SAYS)], memory)
    # The same words, but a project rule: the judge saw the shop's context, not this one's.
    (point,), backend = judge([said_in(NOTES, *SHOP_SAYS)], memory)
    assert len(backend.requests) == 1 and point.verdict is not None and not point.verdict.reused


def test_a_run_over_several_projects_grounds_each_projects_share() -> None:
    memory = InMemoryVerdictMemory()
    judge([spanning(said_in(SHOP, *SHOP_SAYS), said_in(NOTES, *NOTES_SAYS))], memory)
    # The notes API's share of the quotes, as its own run counts them: the judge saw them.
    (notes,), backend = judge([said_in(NOTES, *NOTES_SAYS)], memory)
    assert backend.requests == [] and notes.verdict is not None and notes.verdict.reused

    # Said again there since: quotes the judge never saw, judged on them.
    (later,), backend = judge([said_in(NOTES, *NOTES_SAYS, "the sqlite fixture, not a mock")],
                              memory)
    assert len(backend.requests) == 1
    assert later.verdict is not None and not later.verdict.reused
    assert later.verdict.summary == NOTES_RULE


def _answer_run(request: ModelRequest) -> Mapping[str, Any]:
    if request.tool.name == "assign_labels":
        return {"labels": [{"id": i, "label": LABEL} for i, _, _ in items_of(request.user)]}
    return judge_by_quotes()(request)


def _reduce(project: str, texts: tuple[str, ...], memory: VerdictMemory) -> tuple[Proposal, ScriptedBackend]:
    backend = ScriptedBackend(_answer_run)
    sessions = [session(f"{project}-{n}", f"2026-11-2{n}T10:00:00Z", directive(text), project=project)
                for n, text in enumerate(texts)]
    out = reduce_sessions(sessions, embedder=TopicEmbedder(), backend=backend, models=MODELS,
                          label_index=InMemoryLabelIndex(), verdicts=memory,
                          shown_state=InMemoryShownState())
    (point,) = out.proposals
    return point, backend


def _judged(backend: ScriptedBackend) -> list[ModelRequest]:
    return [r for r in backend.requests if r.tool.name == "record_verdicts"]


def test_runs_in_two_projects_over_one_store(store_target: Path | str) -> None:
    with open_store(store_target) as store:
        memory = StoreVerdictMemory(store, TopicEmbedder.name)
        shop, _ = _reduce(SHOP, SHOP_SAYS, memory)
        assert shop.verdict is not None and shop.verdict.summary == SHOP_RULE

        notes, backend = _reduce(NOTES, NOTES_SAYS, memory)
        assert len(_judged(backend)) == 1
        assert notes.verdict is not None and notes.verdict.summary == NOTES_RULE

        # Warm, in either project: no judge call, each its own wording.
        for project, texts, rule in ((NOTES, NOTES_SAYS, NOTES_RULE), (SHOP, SHOP_SAYS, SHOP_RULE)):
            point, backend = _reduce(project, texts, memory)
            assert _judged(backend) == []
            assert point.verdict is not None and point.verdict.summary == rule


def _session(gold: Gold, name: str, cwd: Path, day: int, said: str) -> ClaudeSession:
    s = ClaudeSession(session_id(name), str(cwd), datetime(2026, 11, day, 10, tzinfo=UTC))
    s.user("the orders tests are red after the last change, have a look")
    s.assistant("I'll add a mock for the database module in the test.")
    s.user(gold.said(s.session_id, said, LABEL))
    s.assistant("Done.")
    return s


def _fake_judge_by_quotes(oracle: GoldOracle) -> FakeAnthropicServer:
    def answer(req: RecordedRequest) -> Mapping[str, Any]:
        if req.tool_name == "record_verdicts":
            return verdicts_for(req.user_text)
        return oracle.answer(req.tool_name or "", req.user_text)

    return FakeAnthropicServer(responder=answer)


def test_learn_run_in_another_project_judges_that_projects_quotes(tmp_path: Path) -> None:
    # `learn run --all-projects` judged the shop's point; the notes API said it in its
    # own words since, and a plain `learn run` there proposed the shop's docker rule.
    root = tmp_path / "corpus"
    home = root / "home"
    shop, notes = home / "code" / "shopfront", home / "code" / "notes-api"
    for folder in (shop, notes):
        (folder / ".git").mkdir(parents=True)
    gold = Gold(corpus="reuse")
    gold.group(LABEL, "directive", SHOP_RULE, category="testing")
    shop_sessions = [_session(gold, f"shop-{n}", shop, 3 + n, text) for n, text in enumerate(SHOP_SAYS)]
    notes_sessions = [_session(gold, f"notes-{n}", notes, 8 + n, text)
                      for n, text in enumerate(NOTES_SAYS)]
    for s in shop_sessions:
        s.write(home / ".claude")
    fake = _fake_judge_by_quotes(GoldOracle(gold))
    args = ["run", "--since", "2026-01-01", "--json", "--yes", "--quiet"]
    with fake:
        env = _env(root, fake)
        first = json.loads(_learn([*args, "--all-projects"], env).stdout)
        assert [p["verdict"]["summary"] for p in first["proposals"]] == [SHOP_RULE]

        for s in notes_sessions:
            s.write(home / ".claude")
        before = len(fake.requests)
        ran = subprocess.run([sys.executable, "-m", "learn", *args], env=env, cwd=notes,
                             capture_output=True, text=True, timeout=300)
        assert ran.returncode == 0, ran.stderr
        (point,) = json.loads(ran.stdout)["proposals"]
        judged = [r for r in fake.requests[before:] if r.tool_name == "record_verdicts"]
        assert len(judged) == 1 and "sqlite" in judged[0].user_text
        assert point["label"] == LABEL and point["verdict"]["summary"] == NOTES_RULE
        assert not point["verdict"].get("reused")

        # Warm, there and in the shop: no judge call.
        before = len(fake.requests)
        for folder in (notes, shop):
            again = subprocess.run([sys.executable, "-m", "learn", *args, "--all"], env=env,
                                   cwd=folder, capture_output=True, text=True, timeout=300)
            assert again.returncode == 0, again.stderr
        assert [r for r in fake.requests[before:] if r.tool_name == "record_verdicts"] == []
