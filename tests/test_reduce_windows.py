"""The judge sees what happened around a quote (the seed's capture_window)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from _reduce_helpers import ScriptedBackend, TopicEmbedder, items_of

from evals.builder import ClaudeSession, session_id
from evals.metrics import Occurrence
from evals.windows import reported_share
from learn.models.base import ModelRequest
from learn.records.proposal import Proposal, Quote
from learn.reduce.judge import judge_proposals
from learn.reduce.windows import FULL_TURN_CHARS, LINE_CHARS, TranscriptContext


def _session(tmp_path: Path) -> tuple[str, Path, str]:
    cwd = str(tmp_path / "proj")
    s = ClaudeSession(session_id("ctx"), cwd, datetime(2026, 11, 1, 9, tzinfo=UTC))
    s.user("add a retry to the uploader")
    s.tool("Bash", {"command": "npm install axios-retry"}, "added 1 package")
    s.user("no, use bun for installs, never npm")
    s.assistant("Switching to bun.")
    s.tool("Bash", {"command": "bun add axios-retry"}, "installed")
    path = s.write(tmp_path / ".claude")
    return s.session_id, path, cwd


def test_context_names_what_the_agent_had_just_done_and_what_came_after(tmp_path: Path) -> None:
    sid, path, cwd = _session(tmp_path)
    context = TranscriptContext({sid: path}, projects={sid: cwd})
    line = context(sid, "use bun for installs, never npm")
    assert line is not None
    # The quote is part of a longer turn: the turn comes first, in full.
    said, _, rest = line.partition("; ")
    assert said == 'said in full: "no, use bun for installs, never npm"'
    before, _, after = rest.partition("; ")
    assert before.startswith("agent before:") and "npm install axios-retry" in before
    assert after.startswith("agent after:") and "Switching to bun" in after
    # An ellipsis quote finds its turn by its fragments; an unknown quote has no context.
    assert context(sid, "no, use bun … never npm") == line
    assert context(sid, "something nobody typed here") is None
    assert context("other-session", "use bun") is None


def test_context_is_redacted_and_paths_are_relative(tmp_path: Path) -> None:
    cwd = str(tmp_path / "proj")
    s = ClaudeSession(session_id("ctx2"), cwd, datetime(2026, 11, 1, 9, tzinfo=UTC))
    s.user("start")
    s.tool("Read", {"file_path": f"{cwd}/src/app.py"}, "code")
    s.user("keep the config in one place please")
    path = s.write(tmp_path / ".claude")
    context = TranscriptContext({s.session_id: path}, projects={s.session_id: cwd},
                                redact=lambda t: t.replace("app.py", "[REDACTED]"))
    line = context(s.session_id, "keep the config in one place please")
    assert line is not None and cwd not in line and "src/[REDACTED]" in line


def test_the_context_line_is_the_same_wherever_the_checkout_lives(tmp_path: Path) -> None:
    # The recorded answers (the demo's, a replay cache) key on the judge's request:
    # a project folder deeper than a tool line's cut once lost its prefix there and
    # the line came out as `Read ~/code…(+24ch)` instead of `Read CONTRIBUTING.md`.
    lines = []
    for folder in (tmp_path / "a", tmp_path / ("deep-" * 30) / "b"):
        cwd = str(folder / "proj")
        s = ClaudeSession(session_id("ctx3"), cwd, datetime(2026, 11, 1, 9, tzinfo=UTC))
        s.user("start")
        s.tool("Read", {"file_path": f"{cwd}/CONTRIBUTING.md"}, "text")
        s.user("keep the config in one place please")
        path = s.write(folder / ".claude")
        context = TranscriptContext({s.session_id: path}, projects={s.session_id: cwd})
        lines.append(context(s.session_id, "keep the config in one place please"))
    assert lines[0] is not None and "[Read CONTRIBUTING.md]" in lines[0]
    assert lines[0] == lines[1]


def test_the_judge_item_carries_the_context_line(tmp_path: Path) -> None:
    sid, path, cwd = _session(tmp_path)
    proposal = Proposal(kind="directive", label="use-bun-not-npm", text="use bun for installs, never npm",
                        sessions=2, count=2, last_seen="2026-11-01",
                        quotes=(Quote(sid, "use bun for installs, never npm", "2026-11-01"),))
    seen: list[str] = []

    def answer(request: ModelRequest) -> dict[str, object]:
        seen.append(request.user)
        return {"verdicts": [{"id": i, "accepted": True, "category": "tooling", "scope": "project",
                              "confidence": 0.9, "summary": "Use bun.", "rationale": "r"}
                             for i, _, _ in items_of(request.user)]}

    judge_proposals([proposal], backend=ScriptedBackend(answer), model="m", embedder=TopicEmbedder(),
                    context=TranscriptContext({sid: path}, projects={sid: cwd}))
    (user,) = seen
    assert 'context: said in full: "no, use bun for installs, never npm"; agent before:' in user
    assert "npm install axios-retry" in user


def test_the_context_reaches_the_model_through_the_sdk_redacted(tmp_path: Path) -> None:
    from fakes.anthropic_server import FakeAnthropicServer, items_in

    from learn.models.anthropic_backend import AnthropicBackend
    from learn.models.retry import RetryPolicy
    from learn.redaction.redact import redact

    cwd = str(tmp_path / "proj")
    s = ClaudeSession(session_id("ctx3"), cwd, datetime(2026, 11, 1, 9, tzinfo=UTC))
    s.user("deploy it")
    s.tool("Bash", {"command": "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY ./deploy.sh"}, "ok")
    s.user("never deploy from a dirty tree, commit first")
    path = s.write(tmp_path / ".claude")
    proposal = Proposal(kind="directive", label="commit-before-deploy",
                        text="never deploy from a dirty tree, commit first", sessions=2, count=2, last_seen=None,
                        quotes=(Quote(s.session_id, "never deploy from a dirty tree, commit first", None),))

    def responder(request: object) -> dict[str, object]:
        user = getattr(request, "user_text", "")
        return {"verdicts": [{"id": i, "accepted": True, "category": "git", "scope": "user",
                              "confidence": 0.8, "summary": "Commit before deploying.", "rationale": "r"}
                             for i, _, _ in items_in(user)]}

    with FakeAnthropicServer(responder=responder) as fake:
        backend = AnthropicBackend(api_key="k", base_url=fake.base_url,
                                   retry=RetryPolicy(max_attempts=1, sleep=lambda s: None))
        result = judge_proposals([proposal], backend=backend, model="claude-sonnet-4-6",
                                 embedder=TopicEmbedder(),
                                 context=TranscriptContext({s.session_id: path}, redact=redact,
                                                           projects={s.session_id: cwd}))
        sent = fake.requests[0].user_text
    assert "context: agent before:" in sent and "deploy.sh" in sent
    assert "wJalrXUtnFEMI" not in sent
    assert result.proposals[0].verdict is not None


SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"


def _one_turn(tmp_path: Path, text: str, name: str = "full") -> tuple[TranscriptContext, str, str]:
    cwd = str(tmp_path / "proj")
    s = ClaudeSession(session_id(name), cwd, datetime(2026, 11, 1, 9, tzinfo=UTC))
    s.user("add a build script")
    s.tool("Bash", {"command": "npm run build"}, "built")
    s.user(text)
    s.assistant("Done.")
    path = s.write(tmp_path / ".claude")
    from learn.redaction.redact import redact

    context = TranscriptContext({s.session_id: path}, projects={s.session_id: cwd}, redact=redact)
    return context, s.session_id, cwd


def _said(line: str | None) -> str:
    assert line is not None and line.startswith('said in full: "')
    return line.removeprefix('said in full: "').split('"; agent before:', 1)[0]


def test_a_fragment_quote_comes_with_its_whole_turn_redacted_and_relative(tmp_path: Path) -> None:
    cwd = str(tmp_path / "proj")
    turn = (f"we're on bun now so use bun, but only for {cwd}/scripts/build.ts, "
            f"the deploy keeps npm; AWS_SECRET_ACCESS_KEY={SECRET} is in the env")
    context, sid, _ = _one_turn(tmp_path, turn)
    line = context(sid, "use bun")
    said = _said(line)
    # The part of the turn that limits the quote is what the judge now sees.
    assert "use bun, but only for scripts/build.ts, the deploy keeps npm" in said
    assert line is not None and cwd not in line and str(tmp_path) not in line
    assert SECRET[:8] not in line and "[REDACTED" in said
    # The turn is first; what the agent did follows, as before.
    assert "; agent before: [Bash npm run build]; agent after: Done." in line
    assert len(line) <= LINE_CHARS


def test_a_quote_that_is_the_whole_turn_gets_no_turn_part(tmp_path: Path) -> None:
    context, sid, _ = _one_turn(tmp_path, "Use bun for scripts, not npm!")
    line = context(sid, "use bun for scripts, not npm")
    assert line is not None and "said in full" not in line
    assert line.startswith("agent before: [Bash npm run build]")


def test_the_turn_shown_is_the_message_that_holds_the_quote(tmp_path: Path) -> None:
    # Messages sent one after another are one turn; the next one is about
    # something else and is not the quote's sentence.
    cwd = str(tmp_path / "proj")
    s = ClaudeSession(session_id("msgs"), cwd, datetime(2026, 11, 1, 9, tzinfo=UTC))
    s.user("start")
    s.assistant("Started.")
    s.user("here's the smoke test, run it once and then forget it")
    s.user("run ruff check before you commit anything")
    s.user("use bun, only for this one script")
    path = s.write(tmp_path / ".claude")
    context = TranscriptContext({s.session_id: path}, projects={s.session_id: cwd})
    whole = context(s.session_id, "run ruff check before you commit anything")
    assert whole is not None and "said in full" not in whole and "run it once" not in whole
    assert _said(context(s.session_id, "use bun")) == "use bun, only for this one script"


def test_a_long_turn_is_cut_around_the_quote(tmp_path: Path) -> None:
    head = " ".join(f"before{i}" for i in range(80))
    tail = " ".join(f"after{i}" for i in range(80))
    quote = "keep the migrations reversible"
    context, sid, _ = _one_turn(tmp_path, f"{head} {quote} for this one release only {tail}")
    said = _said(context(sid, quote))
    assert said.startswith("…before") and said.endswith("…")
    assert f"{quote} for this one release only" in said
    assert len(said) <= FULL_TURN_CHARS + 2
    # Cut between words, and about as much on each side of the quote.
    inner = said.strip("…").split()
    assert all(w.startswith(("before", "after")) or w in quote.split() or w in "for this one release only"
               for w in inner)
    left, _, right = said.partition(quote)
    assert abs(len(left) - len(right)) < 40
    # A quote near the end keeps the end, the room going before it; an ellipsis
    # quote is shown around its first fragment.
    end = _said(context(sid, "after78 after79"))
    assert end.startswith("…") and end.endswith("after78 after79") and len(end) <= FULL_TURN_CHARS + 2
    first = _said(context(sid, "before2 before3 … after77"))
    assert first.startswith("before0 ") and first.endswith("…")


def test_a_secret_where_the_turn_is_cut_never_shows(tmp_path: Path) -> None:
    # Redacted whole, then cut: a cut through the secret would leave a piece no
    # pattern recognises.
    head = " ".join(f"w{i}" for i in range(60))
    mid = " ".join(f"m{i}" for i in range(28))  # the cut before the quote falls in the secret
    tail = " ".join(f"t{i}" for i in range(60))
    turn = f"{head} AWS_SECRET_ACCESS_KEY={SECRET} {mid} run the linter first {tail}"
    context, sid, _ = _one_turn(tmp_path, turn, "cut")
    line = context(sid, "run the linter first")
    assert line is not None
    assert not any(SECRET[i:i + 6] in line for i in range(len(SECRET) - 5))


def test_reports_from_negative_windows_are_counted() -> None:
    replies = [("s1", "ok continue with the refund tests"), ("s2", "looks good, ship it")]
    said = [Occurrence("s1", "directive", "continue with the refund tests", "x")]
    assert reported_share(replies, said) == 0.5
    assert reported_share(replies, []) == 0.0
    # A fix is a command, not something read off the reply.
    assert reported_share(replies, [Occurrence("s2", "fix", "looks good", "y")]) == 0.0


def test_a_codex_quote_gets_its_context_too(tmp_path: Path) -> None:
    # The context was read as Claude Code's JSONL whatever the session's agent: a Codex
    # rollout's quote came to the judge with no context at all (the eval's did).
    from evals.builder import CodexSession

    cwd = str(tmp_path / "proj")
    s = CodexSession(session_id("cdx"), cwd, datetime(2026, 11, 2, 9, tzinfo=UTC))
    s.user("add a retry to the uploader")
    s.shell("npm install axios-retry", "added 1 package")
    s.user("no, use bun for installs, never npm")
    s.assistant("Switching to bun.")
    path = s.write(tmp_path / ".codex")
    context = TranscriptContext({s.session_id: path}, projects={s.session_id: cwd})
    line = context(s.session_id, "use bun for installs")
    assert line is not None
    assert line.startswith('said in full: "no, use bun for installs, never npm"')
    assert "npm install axios-retry" in line and "Switching to bun" in line


def _chain_context(tmp_path: Path, build: Callable[[Any], None]) -> TranscriptContext:
    from fixtures.fidelity.writers import Chain, claude_path

    from learn.redaction.redact import redact

    c = Chain("0000000a-0061-4000-8000-00000000000a", cwd="/home/dev/shop")
    build(c)
    path = c.write(claude_path(tmp_path, c.session, "/home/dev/shop"))
    return TranscriptContext({"s": path}, redact=redact)


def test_the_context_holds_the_persons_words_as_mining_reads_them(tmp_path: Path) -> None:
    # The context was read from the raw entries and redacted by shape only, after the
    # cut (audit 60): a password typed in answer to the agent, a token caught once and
    # echoed later by the agent, an IDE selection the view leaves out all reached the judge.
    def build(c: Any) -> None:
        c.user("export GITHUB_TOKEN=Zq8vW3nR7tY2pL5kX9mB4cF6hJ1dS0aE and push", parent=False)
        c.assistant("Pushed using token Zq8vW3nR7tY2pL5kX9mB4cF6hJ1dS0aE for auth.")
        c.user("stop echoing my tokens back to me, it ends up in my scrollback")
        c.assistant("What's the password for the staging database?")
        c.user("Hunter2Secret9. and from now on never run migrations against prod without asking")
        c.assistant("Understood.")
        c.user([{"type": "text", "text": "<ide_selection>The user selected the lines 1 to 2 "
                 "from /home/dev/shop/hr/notes.txt:\nDana Whitfield to be let go in March\n"
                 "</ide_selection>"},
                {"type": "text", "text": "please use bun for scripts, never npm here"}])
        c.assistant("ok")

    context = _chain_context(tmp_path, build)
    echoed = context("s", "stop echoing my tokens")
    assert echoed is not None and "agent before:" in echoed
    assert "Zq8vW3nR7tY2pL5kX9mB4cF6hJ1dS0aE" not in echoed
    answered = context("s", "never run migrations against prod")
    assert answered is not None and answered.startswith("said in full:")
    assert "Hunter2Secret9" not in answered
    ide = context("s", "use bun for scripts")
    assert ide is not None and "Dana" not in ide and "notes.txt" not in ide


def test_a_secret_is_redacted_before_the_context_is_cut(tmp_path: Path) -> None:
    # The tool line is cut at 120 characters five letters into the password.
    long_dir = "/srv/app/services/billing/worker/" + "x" * 48
    url = "postgres://admin:Tr0ub4dorProd99xQzz@db.internal:5432/app"

    def build(c: Any) -> None:
        c.user("deploy the worker", parent=False)
        c.tool("toolu_psql", "Bash", {"command": f"cd {long_dir} && psql {url} -c 'select 1'"})
        c.result("toolu_psql", "1")
        c.user("no, never run psql against prod from a script")
        c.assistant("ok")

    line = _chain_context(tmp_path, build)("s", "never run psql against prod")
    assert line is not None and "agent before:" in line
    assert "Tr0ub4dor" not in line and "Tr0ub" not in line
