"""Issue 20 acceptance: no secret reaches a model or a disk, and no decoy is lost.

Every secret of tests/secrets_corpus.py sits in every place a session holds one: typed
by the person, in a shell command, in a file the agent wrote, in a command's output
(failed and successful), in a `.env`/config the agent read, in the agent's prose, and
in ~/.claude/CLAUDE.md and a skill. Two Claude Code sessions and a Codex one; a
password given in answer to the agent's numbered questions and to AskUserQuestion.
`learn run` runs over them with the real anthropic SDK against the fake Messages
server; the fake model mines every typed line as a directive, so whatever it was sent
comes back to be stored. Then every file under learn's data, cache and config dirs is
read as bytes (SQLite databases and their -wal, caches, reports), with every zstd frame
and zlib stream in them decompressed.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest
import zstandard
from fakes.anthropic_server import FakeAnthropicServer, default_tool_input, items_in
from fakes.http_server import RecordedRequest
from fixtures.fidelity.writers import Chain, Rollout, claude_path
from secrets_corpus import (
    ALL_SECRETS,
    ASKED_ANSWER,
    ASKED_KEY_QUESTION,
    ASKED_KEY_REPLY_ZH,
    ASKED_NUMERIC_KEY,
    ASKED_QUESTION,
    ASKED_SINGLE_ANSWER,
    ASKED_SINGLE_QUESTION,
    DECOYS,
    SECRETS,
    TOOL_INPUTS,
)

REPO = Path(__file__).resolve().parents[1]
CORRECTION = "never log the auth token, mask it in every log line"
SESSIONS = ("00000000-0020-4000-8000-000000000001", "00000000-0020-4000-8000-000000000002")
CODEX = "0199aaaa-0020-7000-8000-000000000001"


def _lines() -> list[str]:
    return [line for _, line, _ in SECRETS] + [line for _, line, _ in DECOYS]


def _claude_session(home: Path, project: Path, sid: str) -> None:
    c = Chain(sid, cwd=str(project))
    c.user(f"{CORRECTION}", parent=False)
    c.assistant("Understood.")
    for n, line in enumerate(_lines()):
        c.user(f"note: {line}")  # typed
        c.assistant(f"I will keep this in mind: {line}")  # agent prose
        c.tool(f"toolu_cmd{n}", "Bash", {"command": line, "description": "run it"})  # command
        c.result(f"toolu_cmd{n}", f"error: {line}", is_error=True)  # failed output
        c.tool(f"toolu_ok{n}", "Bash", {"command": "cat .env"})
        c.result(f"toolu_ok{n}", f"# .env\n{line}\n")  # successful output, a config read
        c.tool(f"toolu_w{n}", "Write", {"file_path": f"{project}/config/{n}.env", "content": f"{line}\n"})
        c.result(f"toolu_w{n}", "File created successfully")
        c.tool(f"toolu_r{n}", "Read", {"file_path": f"{project}/.env"})
        c.result(f"toolu_r{n}", f"     1\t{line}\n")
    # A password given only as the answer to the agent's numbered questions.
    c.assistant(ASKED_QUESTION)
    c.user(ASKED_ANSWER)
    c.assistant(ASKED_SINGLE_QUESTION)
    c.user(ASKED_SINGLE_ANSWER)
    # The same, through AskUserQuestion (a free-form answer, not one of the options).
    c.assistant([{"type": "tool_use", "id": "toolu_ask", "name": "AskUserQuestion", "input": {
        "questions": [{"question": "What is the staging database password?", "header": "DB",
                       "multiSelect": False, "options": [{"label": "Skip", "description": "later"},
                                                         {"label": "Use .env", "description": ""}]}]}}])
    c.result("toolu_ask", "User has answered your questions: "
             f"\"What is the staging database password?\"=\"{ASKED_SINGLE_ANSWER}\". "
             "You can now continue with the user's answers in mind.",
             toolUseResult={"questions": [], "answers": {
                 "What is the staging database password?": ASKED_SINGLE_ANSWER}})
    # Passwords a tool typed into a form or passed to a database: only the field says so.
    for n, (tool, tool_input, _) in enumerate(TOOL_INPUTS):
        c.tool(f"toolu_in{n}", tool, tool_input)
        c.result(f"toolu_in{n}", "done")
    # Asked for a key, the person asks where to find it (a sentence with no space in
    # it, in Chinese), and later gives one that is digits only.
    c.assistant(ASKED_KEY_QUESTION)
    c.user(ASKED_KEY_REPLY_ZH)
    c.assistant("Please paste the API key when you have it.")
    c.user(ASKED_NUMERIC_KEY)
    c.user(f"{CORRECTION}")
    c.write(claude_path(home, sid, str(project)))


def _codex_session(home: Path, project: Path) -> None:
    r = Rollout(CODEX, cwd=str(project))
    r.user(CORRECTION)
    for n, line in enumerate(_lines()):
        r.user(f"remember {line}")
        r.agent(f"Noted: {line}")
        r.shell(f"call_{n}", line, f"failed: {line}", exit_code=1)
    r.agent(ASKED_QUESTION)
    r.user(ASKED_ANSWER)
    r.write(r.path(home))


def _install(root: Path) -> tuple[Path, Path]:
    home, project = root / "home", root / "shop"
    project.mkdir(parents=True)
    for sid in SESSIONS:
        _claude_session(home, project, sid)
    _codex_session(home, project)
    rules = "# My rules\n\n" + "\n".join(f"- {line}" for line in _lines()) + "\n"
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    (home / ".claude" / "CLAUDE.md").write_text(rules)
    (project / "CLAUDE.md").write_text(rules)
    # A rules file (read for coverage) holding the new kinds too.
    rules_dir = project / ".claude" / "rules"
    rules_dir.mkdir(parents=True)
    (rules_dir / "deploy.md").write_text("# Deploy\n\n" + "\n".join(f"- {line}" for _, line, _ in SECRETS[-10:]) + "\n")
    skill = home / ".claude" / "skills" / "deploy" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: deploy\ndescription: deploy with "
                     + " and ".join(line for _, line, _ in SECRETS[:10]) + "\n---\nbody\n")
    return home, project


_USER_LINE = re.compile(r"^USER(?: \([^)]*\))?: (.*)$", re.M)


def _responder(request: RecordedRequest) -> dict[str, Any]:
    """A model that mines every typed line as a directive and accepts everything: what
    it was sent comes back to be verified, named, judged and stored."""
    tool = request.tool_name
    if tool == "record_candidates":
        found = [m.group(1).strip() for m in _USER_LINE.finditer(request.user_text)]
        return {"candidates": [{"kind": "directive", "text": t, "rationale": f"said: {t}"}
                               for t in found if t]}
    if tool == "assign_labels":
        labels = []
        for item_id, _, text in items_in(request.user_text):
            words = re.findall(r"[a-z]+", text.lower())[:5]
            label = "never-log-auth-token" if "auth token" in text else "-".join(words) or "misc"
            labels.append({"id": item_id, "label": label})
        return {"labels": labels}
    if tool == "check_coverage":
        return {"verdicts": [{"id": i, "verdict": "new"} for i, _, _ in items_in(request.user_text)]}
    if tool == "record_verdicts":
        return {"verdicts": [
            {"id": i, "accepted": True, "category": "other", "scope": "project", "confidence": 0.9,
             "summary": text[:200], "rationale": f"the model echoes what it saw: {text}",
             "canonical_key": f"k{i}"}
            for i, _, text in items_in(request.user_text)]}
    return default_tool_input(tool)


def _env(home: Path, fake: FakeAnthropicServer) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_", "CLAUDE_"))}
    env.update(fake.env(), HOME=str(home), LEARN_DATA_DIR=str(home / ".learn-data"),
               LEARN_CACHE_DIR=str(home / ".learn-cache"), LEARN_CONFIG_DIR=str(home / ".learn-config"),
               PYTHONPATH=str(REPO))
    return env


def _learn(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "learn", *args], env=env, capture_output=True,
                          text=True, timeout=600, cwd=cwd, check=False)


def _expanded(data: bytes, pickles: bool = True) -> list[bytes]:
    """`data` and every zstd frame and zlib stream inside it, decompressed (but for
    `pickles=False` a frame holding a pickle: the session index's raw records)."""
    out = [data]
    for m in re.finditer(rb"\x28\xb5\x2f\xfd", data):
        try:
            frame = zstandard.ZstdDecompressor().decompressobj().decompress(data[m.start():])
        except zstandard.ZstdError:
            continue
        if pickles or not frame.startswith(b"\x80"):
            out.append(frame)
    for m in re.finditer(rb"\x78[\x01\x5e\x9c\xda]", data):
        with contextlib.suppress(zlib.error):
            out.append(zlib.decompressobj().decompress(data[m.start():]))
    return out


def _blobs(db: Path, skip: set[tuple[str, str]]) -> list[tuple[str, bytes]]:
    """(table.column, value) of every value in a SQLite database, but the skipped columns."""
    out: list[tuple[str, bytes]] = []
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for table in tables:
            try:
                cols = [r[1] for r in con.execute(f'PRAGMA table_info("{table}")')]
                for col in cols:
                    if (table, col) in skip:
                        continue
                    for (value,) in con.execute(f'SELECT "{col}" FROM "{table}"'):
                        if isinstance(value, str):
                            out.append((f"{table}.{col}", value.encode()))
                        elif isinstance(value, bytes):
                            out.append((f"{table}.{col}", value))
            except sqlite3.DatabaseError:
                continue  # a virtual table whose module this sqlite lacks (sqlite-vec)
    finally:
        con.close()
    return out


def _leaks(blobs: list[tuple[str, bytes]], pickles: bool = True) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for where, data in blobs:
        for chunk in _expanded(data, pickles):
            for secret in ALL_SECRETS:
                forms = {secret.encode(), json.dumps(secret)[1:-1].encode()}
                if any(f in chunk for f in forms):
                    found.setdefault(secret[:10], []).append(where)
    return found


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("secrets")
    home, project = _install(root)
    with FakeAnthropicServer(responder=_responder) as fake:
        env = _env(home, fake)
        run = _learn(env, project, "run", "--all-projects", "--since", "2026-01-01", "--json", "--yes",
                     "--quiet", "--backend", "anthropic")
        assert run.returncode == 0, run.stderr[-3000:]
        shown = _learn(env, project, "show", str(claude_path(home, SESSIONS[0], str(project))), "--json")
        assert shown.returncode == 0, shown.stderr[-2000:]
        revealed = _learn(env, project, "show", str(claude_path(home, SESSIONS[0], str(project))),
                          "--json", "--reveal")
        # Reports written from the store: the HTML report and a markdown digest.
        reports = home / ".learn-data" / "reports"
        reports.mkdir()
        report = _learn(env, project, "report", "--out", str(reports / "report.html"))
        assert report.returncode == 0, report.stderr[-2000:]
        digest = _learn(env, project, "digest", "--out", str(reports / "digest.md"))
        assert digest.returncode == 0, digest.stderr[-2000:]
        requests = list(fake.requests)
    return {"home": home, "project": project, "result": json.loads(run.stdout), "requests": requests,
            "show": shown.stdout, "revealed": revealed.stdout, "run_out": run.stdout + run.stderr}


def test_no_secret_reaches_the_model(ran: dict[str, Any]) -> None:
    requests: list[RecordedRequest] = ran["requests"]
    assert {r.tool_name for r in requests} >= {"record_candidates", "check_coverage"}
    leaks = _leaks([(f"request {n} ({r.tool_name})", r.raw) for n, r in enumerate(requests)])
    assert leaks == {}, f"{len(leaks)} of {len(ALL_SECRETS)} secrets reached the model: {leaks}"


def test_no_decoy_is_redacted(ran: dict[str, Any]) -> None:
    sent = "\n".join(r.user_text for r in ran["requests"] if r.tool_name == "record_candidates")
    lost = [name for name, line, keep in DECOYS if f"note: {line}" not in sent or keep not in sent]
    assert lost == [], f"over-redacted: {lost}"
    # The question typed after the agent asked for a key is a question, not the key.
    assert ASKED_KEY_REPLY_ZH in sent
    typed = [t["text"] for t in json.loads(ran["show"])["human_turns_detail"]]
    assert ASKED_KEY_REPLY_ZH in typed


def test_tool_summaries_in_show_name_the_field_not_the_password(ran: dict[str, Any]) -> None:
    summaries = [i["summary"] for i in json.loads(ran["revealed"])["timeline"] if i["type"] == "tool_call"]
    for tool, _, secret in TOOL_INPUTS:
        line = next(s for s in summaries if "[REDACTED:password]" in s and secret not in s
                    and ("element=" in s if tool == "browser_type" else "host=" in s))
        assert line


def test_a_correction_about_tokens_is_proposed_intact(ran: dict[str, Any]) -> None:
    quotes = [q["text"] for p in ran["result"]["proposals"] for q in p["quotes"]]
    assert CORRECTION in quotes
    proposal = next(p for p in ran["result"]["proposals"] if any(q["text"] == CORRECTION for q in p["quotes"]))
    assert proposal["sessions"] >= 2


def test_learn_show_and_run_output_carry_no_secret(ran: dict[str, Any]) -> None:
    leaks = _leaks([("learn show", ran["show"].encode()), ("learn run", ran["run_out"].encode())])
    assert leaks == {}, leaks
    # --reveal shows the turns as typed: the same view, the secrets in it.
    typed = [t["text"] for t in json.loads(ran["revealed"])["human_turns_detail"]]
    assert f"note: {SECRETS[0][1]}" in typed
    # ...but a value given in answer to a password question is gone from the view itself.
    assert ASKED_ANSWER not in typed and any(t.startswith("1. Skip for now\n2. [REDACTED:") for t in typed)


def _disk(home: Path, skip: set[tuple[str, str]]) -> list[tuple[str, bytes]]:
    blobs: list[tuple[str, bytes]] = []
    for d in (".learn-data", ".learn-cache", ".learn-config"):
        for path in sorted((home / d).rglob("*")):
            if not path.is_file():
                continue
            if path.suffix == ".db":
                blobs.extend((f"{path.name}:{w}", b) for w, b in _blobs(path, skip))
            else:
                blobs.append((str(path.relative_to(home)), path.read_bytes()))
    return blobs


def test_no_secret_anywhere_on_disk(ran: dict[str, Any]) -> None:
    """Every byte of every file learn wrote, the -wal and every compressed blob
    included: the session index keeps derived, redacted data only."""
    home: Path = ran["home"]
    assert any((home / ".learn-data").rglob("*.db")), "learn stored nothing?"
    assert (home / ".learn-data" / "reports" / "report.html").stat().st_size > 1000
    leaks = _leaks(_disk(home, set()))
    assert leaks == {}, f"{len(leaks)} of {len(ALL_SECRETS)} secrets on disk: {leaks}"
