"""Issue 18 item 6: one huge turn (a pasted log) costs bounded work to show and to price.

`learn show` cuts what nobody can read (a marker says how much; --full prints it
all); `learn plan` prices what the miner sends, through the same cut.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from test_mining_plan import _line

from learn.cli import cli
from learn.commands.show import SHOW_CHARS
from learn.mining.miner import default_chunk_chars, mine_session
from learn.mining.plan import plan_mining
from learn.models.base import CallUsage, ModelRequest, ModelResponse
from learn.render.chunk import hard_chunk_chars
from learn.transcripts.parser import parse
from learn.transcripts.view.session import build_session

MODEL = "claude-haiku-4-5"
SID = "5e55e55e-0000-4000-8000-000000000001"
LOG_LINE = "09:00:01 ERROR worker[42] connection reset by peer while reading block 0x7f3a\n"


def write_huge(home: Path, chars: int) -> tuple[Path, str]:
    paste = "why does this keep failing?\n" + LOG_LINE * (chars // len(LOG_LINE)) + "THE LAST LINE"
    d = home / ".claude" / "projects" / "-proj"
    d.mkdir(parents=True, exist_ok=True)
    path = d / f"{SID}.jsonl"
    path.write_text("\n".join([
        _line("user", "u1", None, SID, "always run the tests with -x before you commit"),
        _line("assistant", "a1", "u1", SID, [{"type": "text", "text": "ok"}]),
        _line("user", "u2", "a1", SID, paste),
        _line("assistant", "a2", "u2", SID, [{"type": "text", "text": "looking"}]),
        _line("user", "u3", "a2", SID, "no, use bun not npm"),
    ]) + "\n")
    return path, paste


def show(*args: str) -> str:
    result = CliRunner().invoke(cli, ["show", SID, *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_show_cuts_a_huge_turn_with_a_marker_and_full_prints_it(_isolated_home: Path) -> None:
    _, paste = write_huge(_isolated_home, 2_000_000)
    out = show()
    assert len(out) < 3 * SHOW_CHARS + 2000
    cut = len(paste) - SHOW_CHARS
    assert f"[… {cut:,} chars cut here: `learn show --full` prints all of it …]" in out
    assert "why does this keep failing?" in out and "THE LAST LINE" in out  # head and tail
    assert "always run the tests with -x" in out and "no, use bun not npm" in out

    data = json.loads(show("--json"))
    texts = [t["text"] for t in data["human_turns_detail"]]
    assert max(len(t) for t in texts) <= SHOW_CHARS and "chars cut here" in texts[1]

    full = show("--full")
    assert LOG_LINE.strip() in full and full.count("connection reset by peer") >= len(paste) // len(LOG_LINE)
    assert "chars cut here" not in full


class Recorder:
    name = "recorder"

    def __init__(self) -> None:
        self.requests: list[ModelRequest] = []

    def call(self, request: ModelRequest) -> ModelResponse:
        self.requests.append(request)
        return ModelResponse({"candidates": []}, request.model, CallUsage(calls=1))


def _sent_chars(request: ModelRequest) -> int:
    user: Any = request.user
    return len(user if isinstance(user, str) else json.dumps(user))


def test_plan_prices_what_the_miner_sends_not_the_whole_paste(_isolated_home: Path) -> None:
    path, paste = write_huge(_isolated_home, 2_000_000)
    budget = default_chunk_chars(MODEL)
    assert len(paste) > hard_chunk_chars(budget)  # bigger than any chunk the miner sends

    plan = plan_mining([path], None, MODEL)
    (planned,) = plan.to_mine
    recorder = Recorder()
    mine_session(build_session(parse(path)), recorder, model=MODEL)
    assert plan.calls == len(recorder.requests)
    # The plan's characters are the miner's chunks: each request is the chunk plus
    # the same small wrapper, so the totals agree to within that wrapper.
    sent = sum(_sent_chars(r) for r in recorder.requests)
    assert planned.rendered_chars <= sent <= planned.rendered_chars + 2000 * plan.calls
    assert planned.rendered_chars <= hard_chunk_chars(budget) + 1000
    assert any("chars cut here: longer than the model's window" in str(r.user)
               for r in recorder.requests)

    result = CliRunner().invoke(cli, ["plan", "--all-projects", "--since", "2000-01-01", "--json"],
                                catch_exceptions=False)
    priced = json.loads(result.output)
    assert priced["to_mine"][0]["rendered_chars"] == planned.rendered_chars
    # Before: the whole 2 MB paste, ~$0.50 at haiku prices for this one turn.
    assert priced["est_input_tokens"] < len(paste) // 4 // 2


def test_the_session_index_keeps_a_huge_turn_cut(_isolated_home: Path) -> None:

    from learn.transcripts.view.bounded import MAX_TURN_CHARS, bounded_turns

    path, _ = write_huge(_isolated_home, 3 * MAX_TURN_CHARS)
    session = build_session(parse(path))
    cut = bounded_turns(session)
    long_turn = max(cut.human_turns, key=lambda t: len(t.text))
    assert len(long_turn.text) <= MAX_TURN_CHARS and "chars cut here" in long_turn.text
    assert long_turn.text.endswith("THE LAST LINE")
    # The timeline and the evidence still share the turn (the index stores it once).
    assert any(item is long_turn for item in cut.timeline)
    assert bounded_turns(cut) is cut

    result = CliRunner().invoke(cli, ["sessions", "--all-projects", "--since", "2000-01-01", "--json"],
                                catch_exceptions=False)
    assert json.loads(result.output)["sessions"][0]["human_turns"] == 3

    # What the index keeps (and a run mines) is the cut turn: the miner still sees
    # head and tail, and plan prices the same.
    from learn.index.indexed import indexed_views
    from learn.index.indexed_turns import turns_view
    from learn.store import open_store
    from learn.transcripts.files.discover import scan

    with open_store(local_only=True) as local:
        index = local.index
        files = scan(all_projects=True).files
        (listed,) = indexed_views(files, index=index, fingerprints_for=lambda _: (),
                                  min_confidence=0.75, views=False)
        assert listed.from_index  # stored by `learn sessions` above: its summary and turns
        assert listed.row.prompts is not None
        turns = turns_view(listed.summary, listed.row.prompts, path).human_turns
        (item,) = indexed_views(files, index=index, fingerprints_for=lambda _: (),
                                min_confidence=0.75)
        viewed = max(item.session.human_turns, key=lambda t: len(t.text)).text
    for stored in (max(turns, key=lambda t: len(t.text)).text, viewed):
        assert len(stored) <= MAX_TURN_CHARS and "cut here: longer than any model's window" in stored
    plan = plan_mining([path], None, MODEL)
    assert plan.to_mine[0].rendered_chars <= hard_chunk_chars(default_chunk_chars(MODEL)) + 1000
