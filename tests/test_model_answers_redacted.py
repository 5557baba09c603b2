"""What a model answers is redacted before learn keeps, prints or resends any of it.

The request is redacted, but the answer came back as it was: a verdict's summary or
rationale holding a database URL with its password, an AWS key or the endpoint's own
key went into `learn run --json`, report.html and the store's tables; and a first
answer that failed its schema went back to the endpoint whole in the repair turn."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fakes.anthropic_server import FakeAnthropicServer, tool_calls_made
from fakes.http_server import RecordedRequest
from test_e2e_run import _env, _learn

from evals.corpora import demo
from evals.gold import Gold
from evals.oracle import GoldOracle
from learn.models.base import Correction, ModelRequest, ModelResponse, ToolSpec
from learn.redaction.redact import redact

# Of no vendor's shape: only held-value redaction knows it.
HELD_KEY = "proxy-5c0ffee9d1"
DB_PASSWORD = "Gr4nite-Lynx-Vq81"
DB_URL = f"mysql://app:{DB_PASSWORD}@mysql.internal.example/app"
AWS_ID = "AKIAZ7Q2W3E4R5T6Y7U2"
SECRETS = (HELD_KEY, DB_PASSWORD, AWS_ID)
LEAK = f"see {DB_URL}, key {AWS_ID}, proxy {HELD_KEY}"


class LeakyModel(FakeAnthropicServer):
    """The demo's oracle, whose verdicts quote secrets; its first verdicts fail the
    schema (no `accepted`), so learn sends them back in a repair turn."""

    def __init__(self, gold: Gold) -> None:
        self.oracle = GoldOracle(gold)
        self.judged = 0
        super().__init__(responder=self.answer)

    def answer(self, request: RecordedRequest) -> dict[str, Any]:
        out = self.oracle.answer(request.tool_name or "", request.user_text)
        if request.tool_name != "record_verdicts":
            return out
        self.judged += 1
        if self.judged == 1:
            return {"verdicts": [{"id": 0, "category": "other", "scope": "project",
                                  "confidence": 0.5, "summary": LEAK, "rationale": LEAK}]}
        for verdict in out["verdicts"]:
            verdict["summary"] = f"{verdict['summary']} ({LEAK})"
            verdict["rationale"] = f"{verdict['rationale']}; {LEAK}"
        return out


def _holds_a_secret(data: bytes) -> list[str]:
    return [s for s in SECRETS if s.encode() in data or json.dumps(s)[1:-1].encode() in data]


def test_a_verdict_quoting_secrets_is_stored_printed_and_resent_redacted(tmp_path: Path) -> None:
    root = tmp_path / "home"
    gold = demo.build(root)
    with LeakyModel(gold) as fake:
        env = {**_env(root, fake), "ANTHROPIC_API_KEY": HELD_KEY}
        done = _learn(["run", "--all-projects", "--since", "2026-01-01", "--json", "--yes"], env)
        report = _learn(["report", "--all-projects", "--out", str(tmp_path / "report.html")], env)
    assert done.returncode == 0, done.stderr
    assert report.returncode == 0 and (tmp_path / "report.html").exists(), report
    result = json.loads(done.stdout)
    assert result["proposals"], result
    # Every place an answer goes, gathered, so a failure names them all.
    leaks: dict[str, list[str]] = {}
    places = {"run output": (done.stdout + done.stderr).encode(),
              "report output": (report.stdout + report.stderr).encode()}
    # The repair turn carried the first answer back.
    repairs = [r for r in fake.requests if r.tool_name == "record_verdicts" and tool_calls_made(r)]
    assert repairs
    places.update((f"repair request {n}", r.raw) for n, r in enumerate(repairs))
    # The store, its write-ahead log, the caches and the report.
    stored = [p for d in (root / "data", root / "cache") for p in d.rglob("*") if p.is_file()]
    assert any(p.name.endswith(".db") for p in stored), stored
    places.update((str(p), p.read_bytes()) for p in [*stored, tmp_path / "report.html"])
    for where, data in places.items():
        found = _holds_a_secret(data)
        if found:
            leaks[where] = found
    assert leaks == {}
    # The answers were used, their secrets' markers in their words.
    assert "[REDACTED:" in done.stdout
    assert all("[REDACTED:" in json.dumps(tool_calls_made(r)) for r in repairs)

TOOL = ToolSpec("record_verdicts", "Record.", {"type": "object", "properties": {}})


def test_an_answer_is_redacted_where_it_becomes_a_response(monkeypatch: Any) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", HELD_KEY)
    answer = {"verdicts": [{"id": 0, "accepted": True, "confidence": 0.9,
                            "summary": LEAK, "tags": [LEAK, 3, None]}]}
    got = ModelResponse(answer, "m").tool_input
    assert not _holds_a_secret(json.dumps(got).encode())
    row = got["verdicts"][0]
    assert row["id"] == 0 and row["accepted"] is True and row["confidence"] == 0.9
    assert row["tags"][1:] == [3, None]
    assert "[REDACTED:api-key]" in row["summary"]
    # Idempotent: an answer read again (a replay, a `replace`) and a quote of the
    # person's already redacted words are left as they are.
    assert ModelResponse(got, "m").tool_input == got
    said = redact(f"always connect with {DB_URL} and key {AWS_ID}")
    assert ModelResponse({"quote": said}, "m").tool_input == {"quote": said}
    # A correction built by hand (not from a response) still loses the held key.
    request = ModelRequest("judge", "m", "s", TOOL, "u",
                           corrections=(Correction({"verdicts": [{"summary": LEAK}]}, "bad"),))
    assert HELD_KEY not in json.dumps(request.corrections[0].answer)


def test_a_lone_surrogate_in_an_answer_becomes_a_replacement_character() -> None:
    """JSON may spell a lone surrogate (`"\\ud800"`); no UTF-8 does, and a rule text holding
    one made the store's write raise on every `learn run`."""
    got = ModelResponse({"verdicts": [{"rule": "Use bun \ud800 always \udcff", "n": 1},
                                      "pair \ud83d\ude00 and é"]}, "m")
    rule = got.tool_input["verdicts"][0]["rule"]
    assert rule == "Use bun \ufffd always \ufffd"
    assert got.tool_input["verdicts"][1] == "pair \U0001f600 and é"
    json.dumps(got.tool_input, ensure_ascii=False).encode("utf-8")
