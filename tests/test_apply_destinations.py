"""Where `apply` writes: the project the quotes come from, never home or an unrelated folder,
commands as command files, a read-only file refused with the reason; and the proposal book
(pending, declined until the evidence doubles, superseded, what was applied)."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from learn.records.proposal import Proposal, Quote, Verdict
from learn.report import runs
from learn.report.apply import ApplyError, RuleEdit, edit_for, plan_all, plan_file, write_plan
from learn.report.targets import TargetChoice, TargetError, choose


def proposal(kind: str = "directive", label: str = "use-bun", *, scope: str = "project",
             projects: tuple[Path, ...] = (), sessions: int = 2,
             canonical: str | None = None) -> Proposal:
    quotes = tuple(Quote(f"s{i}", "use bun", f"2026-11-0{i + 1}T00:00:00Z",
                         project=str(p)) for i, p in enumerate(projects))
    verdict = Verdict(True, "Use bun, never npm.", "tooling", scope, 0.9,  # type: ignore[arg-type]
                      canonical_key=canonical)
    return Proposal(kind=kind, label=label, text="use bun please", sessions=sessions,  # type: ignore[arg-type]
                    count=sessions, last_seen="2026-11-02T00:00:00Z", quotes=quotes,
                    verdict=verdict)


def repo(path: Path) -> Path:
    (path / ".git").mkdir(parents=True)
    return path


def test_a_project_rule_goes_to_the_project_its_quotes_come_from(tmp_path: Path) -> None:
    web, api = repo(tmp_path / "web"), repo(tmp_path / "api")
    elsewhere = tmp_path / "unrelated"
    elsewhere.mkdir()
    p = proposal(projects=(web / "src", web))  # a subfolder is the same project
    # From an unrelated folder: still the project it was said in.
    assert choose(p, TargetChoice(elsewhere, follow_quotes=True)).path == web / "CLAUDE.md"
    assert not (elsewhere / "CLAUDE.md").exists()
    # Said in two projects: from one of them, that one; from above both, a choice.
    both = proposal(projects=(web, api, api))
    assert choose(both, TargetChoice(api / "src", follow_quotes=True)).project == api
    with pytest.raises(TargetError) as err:
        choose(both, TargetChoice(tmp_path, follow_quotes=True))
    assert set(err.value.choices) == {web, api} and "several projects" in str(err.value)
    assert str(err.value).index(str(api)) < str(err.value).index(str(web))  # most sessions first
    # --scope user for all of them: the user's file.
    user = choose(both, TargetChoice(tmp_path, scope="user", follow_quotes=True))
    assert user.path == Path(os.environ["HOME"]) / ".claude" / "CLAUDE.md" and user.project is None


def test_never_a_claude_md_in_home_or_without_a_known_project(tmp_path: Path) -> None:
    home = Path(os.environ["HOME"])
    said_in_home = proposal(projects=(home,))
    with pytest.raises(TargetError, match="home folder"):
        choose(said_in_home, TargetChoice(home, follow_quotes=True))
    with pytest.raises(TargetError, match="home folder"):  # even when named
        choose(proposal(projects=(tmp_path,)), TargetChoice(home))
    with pytest.raises(TargetError, match="no quote says which project"):
        choose(proposal(projects=()), TargetChoice(home, follow_quotes=True))
    gone = proposal(projects=(tmp_path / "deleted",))
    with pytest.raises(TargetError, match="no longer exists"):
        choose(gone, TargetChoice(home, follow_quotes=True))


BODY = ("Open a release pull request for $ARGUMENTS: bump the version, write the changelog "
        "entry, and push the branch.")


def test_requests_become_command_files_and_keep_the_persons_own(tmp_path: Path) -> None:
    web = repo(tmp_path / "web")
    req = dataclasses.replace(proposal("request", "release-pr", projects=(web,), sessions=3),
                              command_body=BODY)
    edit = edit_for(req, TargetChoice(web, follow_quotes=True))
    assert edit.form == "command"
    assert edit.target == web / ".claude" / "commands" / "release-pr.md"
    [plan] = plan_all([edit])
    write_plan(plan)
    text = edit.target.read_text()
    # The body is the instruction written for the agent, not a quote of the person.
    assert text.startswith(f'---\ndescription: "Use bun, never npm."\n---\n{BODY}\n')
    assert "use bun please" not in text and "<!-- learn request:release-pr" in text
    assert not (web / "CLAUDE.md").exists()
    # Applied again: already there. The person's own command of that name: refused.
    [again] = plan_all([edit])
    assert not again.changed and again.refused is None
    edit.target.write_text("my own release command\n")
    [theirs] = plan_all([edit])
    assert theirs.refused and "different command" in theirs.refused
    assert edit.target.read_text() == "my own release command\n"
    # User scope: the user's commands folder; Codex (no session says an older one): a skill.
    user = edit_for(dataclasses.replace(proposal("request", "release-pr", scope="user",
                                                 projects=(web,)), command_body=BODY),
                    TargetChoice(web, follow_quotes=True))
    assert user.target == Path(os.environ["HOME"]) / ".claude" / "commands" / "release-pr.md"
    codex = edit_for(req, TargetChoice(web, kind="agents", follow_quotes=True))
    assert codex.target == (Path(os.environ["HOME"]) / ".agents" / "skills" / "release-pr"
                            / "SKILL.md")


def test_a_rejected_request_or_one_without_a_written_body_is_no_command(tmp_path: Path) -> None:
    web = repo(tmp_path / "web")
    req = proposal("request", "tidy-up", projects=(web,), sessions=3)
    rejected = dataclasses.replace(req, command_body=BODY, verdict=Verdict(
        False, "Tidy up the parser once.", "other", "project", 0.85,
        rationale="只做一次的事 (one-off work)"))
    with pytest.raises(TargetError, match=r"the judge rejected it.*one-off work"):
        edit_for(rejected, TargetChoice(web, follow_quotes=True))
    with pytest.raises(TargetError, match="no instruction was written"):
        edit_for(req, TargetChoice(web, follow_quotes=True))
    assert not (web / ".claude").exists()


def test_a_read_only_claude_md_is_refused_with_the_reason(tmp_path: Path) -> None:
    root = repo(tmp_path / "web")
    path = root / "CLAUDE.md"
    path.write_text("# mine\n")
    path.chmod(0o444)
    with pytest.raises(ApplyError, match=r"read-only \(mode 0444\).*chmod u\+w"):
        plan_file(path, [RuleEdit("directive:a", "A.", path)], [root])
    [plan] = plan_all([RuleEdit("directive:a", "A.", path)], [root])
    assert plan.refused and "read-only" in plan.refused
    # Made read-only after the diff was shown: still refused at write time.
    path.chmod(0o644)
    plan = plan_file(path, [RuleEdit("directive:a", "A.", path)], [root])
    path.chmod(0o444)
    with pytest.raises(ApplyError, match="read-only"):
        write_plan(plan)
    assert path.read_text() == "# mine\n"


def test_apply_command_refuses_a_read_only_file_and_says_why(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from learn.commands.apply import command
    from learn.records.proposal import Funnel, RunResult, RunUsage

    web = repo(tmp_path / "web")
    (web / "CLAUDE.md").write_text("# web\n")
    (web / "CLAUDE.md").chmod(0o444)
    result = RunResult(proposals=(proposal(projects=(web,)),), funnel=Funnel(), usage=RunUsage())
    monkeypatch.setattr(runs, "_proposals", lambda since, project, every_state: result)
    recorded: list[str] = []
    monkeypatch.setattr(runs, "_recorder", lambda k, *a, **kw: recorded.append(k))
    res = CliRunner().invoke(command, ["--yes"], catch_exceptions=False)
    assert res.exit_code == 1
    assert "refused:" in res.output and "read-only" in res.output
    assert (web / "CLAUDE.md").read_text() == "# web\n" and recorded == []


def test_apply_asks_which_project_on_a_terminal(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from learn.commands.apply import command
    from learn.records.proposal import Funnel, RunResult, RunUsage

    web, api = repo(tmp_path / "web"), repo(tmp_path / "api")
    both = proposal(projects=(web, api, api))
    result = RunResult(proposals=(both,), funnel=Funnel(), usage=RunUsage())
    monkeypatch.setattr(runs, "_proposals", lambda since, project, every_state: result)
    recorded: list[tuple[str, str | None]] = []
    monkeypatch.setattr(runs, "_recorder",
                        lambda k, d, t, f, **kw: recorded.append((k, kw.get("project"))))
    monkeypatch.setattr("learn.commands.apply_writes.interactive", lambda: True)
    monkeypatch.chdir(tmp_path)
    # Choices listed most sessions first: 1 is api. Skipping writes nothing.
    res = CliRunner().invoke(command, [], input="0\n")
    assert "1. " + str(api) in res.output and "2. " + str(web) in res.output
    assert "skipped directive:use-bun" in res.output and recorded == []
    assert res.exit_code == 0  # the person's choice, not a failure
    res = CliRunner().invoke(command, [], input="2\ny\n")
    assert res.exit_code == 0, res.output
    assert "Use bun, never npm." in (web / "CLAUDE.md").read_text()
    assert not (api / "CLAUDE.md").exists() and not (tmp_path / "CLAUDE.md").exists()
    assert recorded == [("directive:use-bun", str(web))]


def test_the_book_keeps_pending_declines_until_the_evidence_doubles(
        tmp_path: Path, store_target: Path | str) -> None:
    from learn.store.feedback import FeedbackStore
    from learn.store.proposals import ProposalBook, reoffer_at

    web, api = repo(tmp_path / "web"), repo(tmp_path / "api")
    with FeedbackStore.open(store_target) as store:
        book = ProposalBook(store)
        bun = proposal(projects=(web,), sessions=3, canonical="bun")
        book.record([bun, proposal("directive", "no-mocks", projects=(api,))], run_id=1,
                    fallback_project=None)
        assert [r.key for r in book.pending(str(web))] == ["directive:use-bun"]
        assert [r.key for r in book.pending(str(api))] == ["directive:no-mocks"]
        assert {r.key for r in book.pending(None)} == {"directive:use-bun", "directive:no-mocks"}
        # The same proposal in a later run is the same row.
        book.record([bun], run_id=2, fallback_project=None)
        [row] = book.rows(str(web))
        assert row.state == "pending" and row.proposal == bun

        book.decide("directive:use-bun", "declined", str(web))
        assert book.pending(str(web)) == []
        assert book.reoffer_threshold("directive:use-bun", str(web)) == reoffer_at(3) == 6
        assert book.reoffer_threshold("directive:use-bun", str(api)) is None
        book.record([proposal(projects=(web,), sessions=5, canonical="bun")], run_id=3,
                    fallback_project=None)
        assert book.rows(str(web))[0].state == "declined"  # 5 < 6: not offered
        book.record([proposal(projects=(web,), sessions=6, canonical="bun")], run_id=4,
                    fallback_project=None)
        assert book.rows(str(web))[0].state == "pending"  # doubled: offered again

        # Renamed by a later run (same canonical rule): the old row is superseded.
        book.record([proposal(label="bun-only", projects=(web,), sessions=6, canonical="bun")],
                    run_id=5, fallback_project=None)
        states = {r.key: (r.state, r.superseded_by) for r in book.rows(str(web))}
        assert states == {"directive:use-bun": ("superseded", "directive:bun-only"),
                          "directive:bun-only": ("pending", None)}

        book.record_applied(project=str(web), proposal=bun, decision="accepted", form="rule",
                            rule_text="Use bun, never npm.", target_file=str(web / "CLAUDE.md"),
                            backup_file=None)
        [done] = book.applied(key="directive:use-bun")
        assert done.project == str(web) and done.sessions == 3 and done.applied_at
        assert book.applied(project=str(api)) == []


def test_upgrading_keeps_the_last_runs_proposals_pending(
        tmp_path: Path, store_target: Path | str) -> None:
    """A store from before the proposal book: the newest run's proposals become rows (a
    decision already taken gives the state), so `learn apply` right after the upgrade still
    finds them."""
    import dataclasses
    import json

    from learn.records.proposal import Funnel, RunResult, RunUsage
    from learn.store.core import open_connection
    from learn.store.feedback import FeedbackStore
    from learn.store.proposals import ProposalBook
    from learn.store.schema import STEP_NAMES, StoreSchema, migrate

    web = repo(tmp_path / "web")
    kept, dropped = proposal(projects=(web,)), proposal(label="no-mocks", projects=(web,))
    result = RunResult(proposals=(kept, dropped), funnel=Funnel(), usage=RunUsage())
    conn, _, _ = open_connection(store_target)
    migrate(conn, StoreSchema(), upto=STEP_NAMES.index("0011_proposal_states"))
    conn.execute("BEGIN")
    conn.execute("INSERT INTO runs (started_at, finished_at, args_json, result_full_json) "
                 "VALUES ('t0', '2026-11-30T00:00:00+00:00', '{}', $1)",
                 (json.dumps(dataclasses.asdict(result)),))
    conn.execute("INSERT INTO decisions (key, decision, at) VALUES ($1, 'dismissed', 't1')",
                 (dropped.key,))
    conn.execute("COMMIT")
    conn.close()
    with FeedbackStore.open(store_target) as store:
        rows = {r.key: r.state for r in ProposalBook(store).rows(str(web))}
    assert rows == {kept.key: "pending", dropped.key: "declined"}
