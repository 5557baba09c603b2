"""Was a rule loaded? Claude Code's `paths:` matching, size limits, the records of loads
(plugin and transcript), the inference where none exists, and outcomes counted only
over the sessions that loaded the rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from learn.reduce.claude_paths import expand_braces, matches
from learn.reduce.loaded import Seen, load_call, not_loaded
from learn.reduce.outcomes import InPlace, Said, rule_outcomes
from learn.reduce.rates import Rate, change, difference, rate_words, wilson
from learn.reduce.rule_target import MEMORY_MAX_BYTES, RuleTarget, target_of
from learn.transcripts.instructions import (
    BadLoadRecord,
    Load,
    Records,
    append_hook_record,
    hook_records,
    records_of,
    transcript_records,
)

# What the real Claude Code 2.1.332 did with one rule per glob and one Read of
# src/api/handler.py (InstructionsLoaded records; see learn/reduce/claude_paths.py).
OBSERVED = {"*.py": True, "src/**/*.py": True, "handler.py": True, "**/*.md": False,
            "src/*.py": False, "api/**": True, "src/{api,db}/**": True, "src/api": True,
            "SRC/api/**": True, "./src/api/**": False, "src/api/*.py": True}


@pytest.mark.parametrize(("glob", "loads"), sorted(OBSERVED.items()))
def test_paths_globs_match_as_claude_code_matched_them(glob: str, loads: bool) -> None:
    assert matches([glob], "/w/shop/src/api/handler.py", "/w/shop") is loads
    assert matches([glob], "src/api/handler.py", "/w/shop") is loads  # relative spelling


def test_braces_expand_and_files_outside_the_project_never_match() -> None:
    assert expand_braces("src/{api,db}/{a,b}.py") == ["src/api/a.py", "src/api/b.py",
                                                      "src/db/a.py", "src/db/b.py"]
    assert not matches(["**/*.py"], "/elsewhere/x.py", "/w/shop")


def _project(tmp_path: Path) -> Path:
    p = tmp_path / "shop"
    (p / ".git").mkdir(parents=True)
    (p / ".claude" / "rules").mkdir(parents=True)
    return p


def test_a_rules_file_with_paths_is_a_path_rule_relative_to_its_project(tmp_path: Path) -> None:
    p = _project(tmp_path)
    f = p / ".claude" / "rules" / "db.md"
    f.write_text('---\npaths:\n  - "src/db/**"\n---\n\n- Never write raw SQL.\n')
    t = target_of(str(f), "Never write raw SQL.", home=tmp_path / "home")
    assert (t.kind, t.base, t.globs, t.found, t.line) == ("claude-path-rule", str(p),
                                                         ("src/db/**",), True, 6)
    assert t.claude_reads and not t.codex_reads
    assert not target_of(str(f), "Use bun.", home=tmp_path / "home").found


def test_memory_is_cut_at_200_lines_and_25000_bytes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    mem = home / ".claude" / "projects" / "-w-shop" / "memory"
    mem.mkdir(parents=True)
    f = mem / "MEMORY.md"
    f.write_text("".join(f"- note {i}\n" for i in range(1, 250)) + "- Use structlog.\n")
    t = target_of(str(f), "Use structlog.", home=home)
    assert t.kind == "memory" and t.cut is not None and "line 250" in t.cut
    f.write_text("- Use structlog.\n" + "".join(f"- note {i}\n" for i in range(1, 199)))
    assert target_of(str(f), "Use structlog.", home=home).cut is None
    long = "x" * 240
    f.write_text("".join(f"- {long} {i}\n" for i in range(110)) + "- Use structlog.\n")
    assert f.stat().st_size > MEMORY_MAX_BYTES
    cut = target_of(str(f), "Use structlog.", home=home).cut
    assert cut is not None and "25,000 bytes" in cut


def test_agents_md_is_cut_by_codex_byte_limit_counting_the_files_above(tmp_path: Path) -> None:
    home = tmp_path / "home"
    p = _project(tmp_path)
    (p / "AGENTS.md").write_text("x" * 22_000 + "\n")
    sub = p / "svc"
    sub.mkdir()
    (sub / "AGENTS.md").write_text("y" * 12_000 + "\n- Run make lint.\n")
    t = target_of(str(sub / "AGENTS.md"), "Run make lint.", home=home)
    assert t.kind == "agents-md" and t.cut is not None and "32,768" in t.cut
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "config.toml").write_text("project_doc_max_bytes = 65536\n")
    assert target_of(str(sub / "AGENTS.md"), "Run make lint.", home=home).cut is None


def test_claude_code_reads_agents_md_only_without_a_claude_md_or_through_an_import(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    p = _project(tmp_path)
    (p / "AGENTS.md").write_text("- Run make lint.\n")
    assert target_of(str(p / "AGENTS.md"), "Run make lint.", home=home).claude_reads
    (p / "CLAUDE.md").write_text("# shop\n")
    assert not target_of(str(p / "AGENTS.md"), "Run make lint.", home=home).claude_reads
    (p / "CLAUDE.md").write_text("# shop\n@AGENTS.md\n")
    assert target_of(str(p / "AGENTS.md"), "Run make lint.", home=home).claude_reads


def _seen(sid: str, provider: str = "claude", cwd: str | None = None, touched: tuple[str, ...] = (),
          records: Records | None = None) -> Seen:
    return Seen(sid, provider, cwd, touched, records or Records())


def test_loading_is_inferred_from_agent_folder_and_files_read(tmp_path: Path) -> None:
    home = tmp_path / "home"
    p = _project(tmp_path)
    rule = p / ".claude" / "rules" / "db.md"
    rule.write_text('---\npaths: ["src/db/**"]\n---\n- Never write raw SQL.\n')
    (p / "CLAUDE.md").write_text("- Use bun.\n")
    db = target_of(str(rule), "Never write raw SQL.", home=home)
    md = target_of(str(p / "CLAUDE.md"), "Use bun.", home=home)
    cwd = str(p)
    assert load_call(db, _seen("a", cwd=cwd, touched=(f"{p}/src/db/q.py",))).loaded
    missed = load_call(db, _seen("b", cwd=cwd, touched=(f"{p}/src/api/h.py",)))
    assert (missed.loaded, missed.how, missed.why) == (False, "inferred", "paths")
    assert load_call(md, _seen("c", cwd=cwd)).loaded
    assert load_call(md, _seen("d", provider="codex", cwd=cwd)).why == "agent"
    assert load_call(md, _seen("e", cwd=str(tmp_path))).why == "nested"
    assert load_call(md, _seen("f", provider="gemini", cwd=cwd)).how == "assumed"


def test_the_persons_own_path_rule_loads_only_for_matching_files_of_the_session(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    p = _project(tmp_path)
    rule = home / ".claude" / "rules" / "sql.md"
    rule.parent.mkdir(parents=True)
    rule.write_text('---\npaths: ["**/*.sql"]\n---\n- Keep SQL keywords upper case.\n')
    t = target_of(str(rule), "Keep SQL keywords upper case.", home=home)
    assert (t.kind, t.base) == ("claude-path-rule", None)
    assert load_call(t, _seen("a", cwd=str(p), touched=(f"{p}/db/q.sql",))).loaded
    missed = load_call(t, _seen("b", cwd=str(p), touched=(f"{p}/src/app.py",)))
    assert (missed.loaded, missed.why) == (False, "paths")
    # A file of another folder than the session's is not one the rule matched from.
    assert not load_call(t, _seen("c", cwd=str(p), touched=(f"{tmp_path}/else/q.sql",))).loaded


def test_a_record_decides_where_it_reports_the_files_kind(tmp_path: Path) -> None:
    home = tmp_path / "home"
    p = _project(tmp_path)
    (p / "CLAUDE.md").write_text("- Use bun.\n")
    md = target_of(str(p / "CLAUDE.md"), "Use bun.", home=home)
    hooked = Records(hook=(Load(str(p / "CLAUDE.md"), "session_start", "hook"),))
    assert load_call(md, _seen("a", cwd=str(p), records=hooked)).how == "recorded"
    other = Records(hook=(Load(str(tmp_path / "home/.claude/CLAUDE.md"), "session_start",
                               "hook"),))
    call = load_call(md, _seen("b", cwd=str(p), records=other))
    assert (call.loaded, call.how, call.why) == (False, "recorded", "unrecorded")
    # The hook never reports AGENTS.md: its silence is no evidence, inference decides.
    (p / "AGENTS.md").write_text("- Run make lint.\n")
    agents = target_of(str(p / "AGENTS.md"), "Run make lint.", home=home)
    assert load_call(agents, _seen("c", provider="codex", cwd=str(p), records=other)).how \
        == "inferred"
    # A transcript's text as loaded, without the rule: the file came cut before it.
    cut = Records(transcript=(Load(str(p / "CLAUDE.md"), "session_start", "transcript",
                                   text="# shop\n"),))
    assert load_call(md, _seen("d", cwd=str(p), records=cut)).why == "cut"


def test_a_hook_that_missed_the_session_start_is_no_evidence_for_what_loads_there(
        tmp_path: Path) -> None:
    # As the real Claude Code left it on a loaded machine: the path rule read later is
    # recorded, the start (CLAUDE.md) not at all.
    home = tmp_path / "home"
    p = _project(tmp_path)
    (p / "CLAUDE.md").write_text("- Use bun.\n")
    (p / "src").mkdir()
    (p / "src" / "CLAUDE.md").write_text("- Keep handlers small.\n")
    (p / ".claude" / "rules" / "style.md").write_text("- Two spaces.\n")
    api = p / ".claude" / "rules" / "api.md"
    api.write_text('---\npaths: ["src/api/**"]\n---\n- Return errors as values.\n')
    db = p / ".claude" / "rules" / "db.md"
    db.write_text('---\npaths: ["src/db/**"]\n---\n- Never write raw SQL.\n')
    late = Records(hook=(Load(str(api), "path_glob_match", "hook",
                              trigger=f"{p}/src/api/h.py"),))
    seen = _seen("a", cwd=str(p), touched=(f"{p}/src/api/h.py",), records=late)
    target = lambda f, rule: target_of(str(f), rule, home=home)  # noqa: E731
    # Loaded at the start: inferred, as with no record at all.
    md = load_call(target(p / "CLAUDE.md", "Use bun."), seen)
    assert (md.loaded, md.how) == (True, "inferred")
    rule = load_call(target(p / ".claude" / "rules" / "style.md", "Two spaces."), seen)
    assert (rule.loaded, rule.how) == (True, "inferred")
    # Loaded later, which the hook did see: its records still decide.
    assert load_call(target(api, "Return errors as values."), seen).how == "recorded"
    sql = load_call(target(db, "Never write raw SQL."), seen)
    assert (sql.loaded, sql.how, sql.why) == (False, "recorded", "paths")
    nested = load_call(target(p / "src" / "CLAUDE.md", "Keep handlers small."), seen)
    assert (nested.loaded, nested.how) == (False, "recorded")
    # A hook that saw the start keeps its word on a CLAUDE.md left out of it.
    started = Records(hook=(*late.hook, Load(str(home / ".claude/CLAUDE.md"), "session_start",
                                             "hook")))
    kept = load_call(target(p / "CLAUDE.md", "Use bun."),
                     _seen("b", cwd=str(p), records=started))
    assert (kept.loaded, kept.how, kept.why) == (False, "recorded", "unrecorded")


def _sql_rule(tmp_path: Path) -> tuple[Path, Path, RuleTarget]:
    """A project with `.claude/rules/db.md` scoped to src/db/, and that rule's target."""
    p = _project(tmp_path)
    rule = p / ".claude" / "rules" / "db.md"
    rule.write_text('---\npaths: ["src/db/**"]\n---\n- Never write raw SQL.\n')
    return p, rule, target_of(str(rule), "Never write raw SQL.", home=tmp_path / "home")


def test_not_loaded_says_why_and_the_fix(tmp_path: Path) -> None:
    p, _, t = _sql_rule(tmp_path)
    found = not_loaded(t, ["paths", "paths"], [f"{p}/src/store/sql.py", f"{p}/src/store/q.py"],
                       ["claude", "claude"])
    assert found is not None and found.why == "paths" and found.sessions == 2
    assert "`src/db/**`" in found.reason and "`src/store/`" in found.reason
    assert 'add "src/store/**"' in found.fix and "widen `paths:`" in found.fix
    assert not_loaded(t, [], [], []) is None


def _said(sid: str, at: str, label: str = "no-raw-sql", text: str = "no raw SQL!") -> Said:
    return Said(sid, at, label, "directive", text, "/w/shop")


def test_outcomes_count_only_sessions_that_loaded_the_rule(tmp_path: Path) -> None:
    p, rule, target = _sql_rule(tmp_path)
    applied = "2026-03-10T00:00:00+00:00"
    starts = {f"b{i}": f"2026-03-0{i + 1}T00:00:00+00:00" for i in range(4)}
    starts |= {f"a{i}": f"2026-03-1{i + 1}T00:00:00+00:00" for i in range(6)}
    db, api = (f"{p}/src/db/q.py",), (f"{p}/src/api/h.py",)
    seen = {sid: _seen(sid, cwd=str(p), touched=db if sid in ("b0", "b1", "a0", "a1") else api)
            for sid in starts}
    said = [_said("b0", starts["b0"]), _said("b1", starts["b1"]), _said("a0", starts["a0"]),
            _said("a4", starts["a4"])]
    rules = [InPlace("directive:no-raw-sql", "Never write raw SQL.", str(rule), applied,
                     project=str(p))]
    [o] = rule_outcomes(rules, said, starts, seen=seen, targets={rules[0].key: target},
                        session_projects=dict.fromkeys(starts, str(p)))
    assert (o.sessions_before, o.said_before) == (2, 2)  # before: where it would have loaded
    assert (o.sessions_since, o.said_since, o.verdict) == (2, 1, "ignored")
    assert (o.sessions_unloaded, o.said_unloaded) == (4, 1)
    assert [q.session_id for q in o.quotes_unloaded] == ["a4"]
    assert o.not_loaded is not None and o.not_loaded["why"] == "paths"
    assert dict(o.loaded_how) == {"inferred": 2}
    # Never loaded: no session since read a file under src/db/.
    seen = {sid: _seen(sid, cwd=str(p), touched=api if sid.startswith("a") else db)
            for sid in starts}
    [never] = rule_outcomes(rules, said, starts, seen=seen, targets={rules[0].key: target})
    assert never.verdict == "never-loaded" and never.sessions_since == 0
    assert never.sessions_unloaded == 6 and never.not_loaded is not None
    assert "widen `paths:`" in never.not_loaded["fix"]
    data = never.to_json()
    assert data["verdict"] == "never-loaded" and data["rates"]["since"]["sessions"] == 0
    # Without what sessions show, every session counts (the old reading).
    [plain] = rule_outcomes(rules, said, starts)
    assert (plain.sessions_since, plain.said_since) == (6, 2)


def test_hook_records_round_trip_and_bad_input_is_refused(tmp_path: Path) -> None:
    event = {"session_id": "s-1", "transcript_path": "/t.jsonl", "cwd": "/w/shop",
             "hook_event_name": "InstructionsLoaded", "file_path": "/w/shop/CLAUDE.md",
             "memory_type": "Project", "load_reason": "session_start"}
    assert append_hook_record(json.dumps(event).encode(), tmp_path) == "s-1"
    rule = {**event, "file_path": "/w/shop/.claude/rules/api.md",
            "load_reason": "path_glob_match", "globs": ["src/api"],
            "trigger_file_path": "/w/shop/src/api/h.py"}
    append_hook_record(json.dumps(rule).encode(), tmp_path)
    f = tmp_path / "instructions" / "s-1.jsonl"
    assert f.stat().st_mode & 0o777 == 0o600
    with f.open("a") as fh:
        fh.write('{"file": "/torn')  # a torn last line is skipped, the rest stands
    got = hook_records(["s-1", "s-2"], tmp_path)
    assert list(got) == ["s-1"]
    assert [(x.file, x.reason, x.trigger) for x in got["s-1"]] == [
        ("/w/shop/CLAUDE.md", "session_start", None),
        ("/w/shop/.claude/rules/api.md", "path_glob_match", "/w/shop/src/api/h.py")]
    for bad in (b"not json", b"[]", json.dumps({**event, "session_id": "../x"}).encode(),
                json.dumps({**event, "hook_event_name": "SessionEnd"}).encode(),
                json.dumps({k: v for k, v in event.items() if k != "file_path"}).encode()):
        with pytest.raises(BadLoadRecord):
            append_hook_record(bad, tmp_path)


def test_transcripts_record_start_loads_with_their_text_and_later_loads(tmp_path: Path) -> None:
    # The shapes Claude Code 2.1.332 wrote (fields beyond these left out).
    lines = [
        {"type": "user", "message": {"role": "user", "content": "hi"}},
        {"type": "attachment", "attachment": {"type": "instructions", "files": [
            {"path": "/w/shop/CLAUDE.md", "type": "Project", "content": "- Use bun."},
            {"path": "/h/.claude/projects/-w-shop/memory/MEMORY.md", "type": "AutoMem",
             "content": "- a\n\n> WARNING: 50 of 250 lines were cut off"}]}},
        {"type": "attachment", "attachment": {"type": "nested_memory",
                                              "path": "/w/shop/.claude/rules/api.md",
                                              "content": {"path": "/w/shop/.claude/rules/api.md",
                                                          "content": "Errors as values.\n",
                                                          "globs": ["src/api"]}}},
    ]
    f = tmp_path / "s.jsonl"
    f.write_text("".join(json.dumps(x) + "\n" for x in lines) + "{broken\n")
    loads = transcript_records(f, "claude")
    assert loads is not None
    assert [(x.file.rsplit("/", 1)[-1], x.reason) for x in loads] == [
        ("CLAUDE.md", "session_start"), ("MEMORY.md", "session_start"),
        ("api.md", "path_glob_match")]
    assert loads[0].text == "- Use bun."
    codex = tmp_path / "rollout.jsonl"
    codex.write_text(json.dumps({"type": "response_item", "payload": {
        "type": "message", "role": "user", "content": [{"type": "input_text", "text":
            "# AGENTS.md instructions for /w/shop\n\n<INSTRUCTIONS>\n- Run make lint.\n"
            "</INSTRUCTIONS>"}]}}) + "\n")
    [agents] = transcript_records(codex, "codex") or ()
    assert (agents.file, agents.text) == ("/w/shop/AGENTS.md", "- Run make lint.")
    plain = tmp_path / "plain.jsonl"
    plain.write_text(json.dumps(lines[0]) + "\n")
    assert transcript_records(plain, "claude") is None  # no record: not evidence of absence
    got = records_of(["s", "plain"], {"s": (f, "claude"), "plain": (plain, "claude")}, tmp_path)
    assert list(got) == ["s"] and got["s"].hook is None


def test_rates_carry_wilson_intervals_and_say_when_samples_are_small() -> None:
    low, high = wilson(0, 5)
    assert low == 0.0 and 0.43 < high < 0.44
    assert rate_words(Rate(1, 3)) == "said in 1 of 3 sessions (33%, 95% interval 6-79%)"
    assert change(Rate(0, 3), Rate(2, 3)) == "few-sessions"
    assert change(Rate(1, 20), Rate(10, 20)) == "fewer"
    assert change(Rate(5, 20), Rate(6, 20)) == "unclear"
    assert change(Rate(0, 0), Rate(2, 10)) == "no-data"
    lo, hi = difference(Rate(1, 20), Rate(10, 20))
    assert -0.70 < lo < hi < -0.15
