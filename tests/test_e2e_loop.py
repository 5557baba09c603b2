"""The everyday loop end to end, on a temp HOME, the real anthropic SDK talking to the fake
Messages server: run, run again (nothing lost), apply (the same proposals), decline, run
again (the declined one not offered), in two projects that each see their own; a request
said in two projects is refused from home with the choices, then becomes a command file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from fakes.anthropic_server import FakeAnthropicServer

from evals.corpora import demo
from evals.oracle import GoldOracle

REPO = Path(__file__).resolve().parents[1]
SINCE = ["--since", "2026-01-01"]


def test_the_loop_keeps_proposals_until_the_person_decides(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    gold = demo.build(root)
    oracle = GoldOracle(gold)
    fake = FakeAnthropicServer(responder=lambda req: oracle.answer(req.tool_name or "", req.user_text))
    home = root / "home"
    shop, web = home / "code" / "shop-api", home / "code" / "web-app"

    with fake:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
        env.update(HOME=str(home), LEARN_DATA_DIR=str(root / "data"),
                   LEARN_CACHE_DIR=str(root / "cache"), LEARN_CONFIG_DIR=str(root / "config"),
                   ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=fake.base_url,
                   PYTHONPATH=str(REPO))

        def learn(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
            return subprocess.run([sys.executable, "-m", "learn", *args], env=env, cwd=cwd,
                                  capture_output=True, text=True, timeout=300)

        def run(cwd: Path) -> dict[str, object]:
            proc = learn("run", *SINCE, "--yes", "--quiet", "--json", cwd=cwd)
            assert proc.returncode == 0, proc.stderr
            data: dict[str, object] = json.loads(proc.stdout)
            return data

        def keys(items: object) -> set[str]:
            assert isinstance(items, list)
            # Pending entries carry their key; proposals their kind and label.
            return {p["key"] if "key" in p else f"{p['kind']}:{p['label']}" for p in items}

        def digest(cwd: Path, *extra: str) -> dict[str, object]:
            proc = learn("digest", "--json", *extra, cwd=cwd)
            assert proc.returncode == 0, proc.stderr
            data: dict[str, object] = json.loads(proc.stdout)
            return data

        # -- shop-api: run, run again ---------------------------------------------------------
        first = run(shop)
        proposed = keys(first["proposals"])
        assert len(proposed) >= 3, proposed
        for p in first["proposals"]:  # type: ignore[attr-defined]
            assert p["project"] == str(shop)  # the digest says which project a rule is for
        second = run(shop)
        assert second["proposals"] == []
        assert keys(second["pending"]) == proposed  # nothing lost, and said so
        md = learn("run", *SINCE, "--yes", "--quiet", cwd=shop).stdout
        assert f"{len(proposed)} proposals from earlier runs are still pending" in md
        assert "Nothing new since last time" not in md
        for key in proposed:
            assert f"`{key}`" in md

        # -- web-app sees its own, not shop-api's -------------------------------------------------
        web_first = run(web)
        web_keys = keys(web_first["proposals"])
        assert web_keys and not web_keys & proposed
        assert keys(digest(web)["proposals"]) == web_keys
        assert keys(digest(shop)["proposals"]) == proposed  # not "the last run" globally

        # -- apply in shop-api, after two more runs: the same proposals are applicable ----------
        applied = learn("apply", "--yes", cwd=shop)
        assert applied.returncode == 0, applied.stderr
        claude_md = (shop / "CLAUDE.md").read_text()
        for key in proposed:
            assert f"learn {key}" in claude_md, key
        assert not (home / "CLAUDE.md").exists()
        assert digest(shop)["proposals"] == []
        states = {p["label"] for p in digest(shop, "--all")["proposals"]}  # type: ignore[index]
        assert {k.split(":", 1)[1] for k in proposed} <= states
        again = learn("apply", "--yes", cwd=shop)
        assert again.returncode == 0 and "nothing to apply" in again.stdout

        # What apply wrote is on record, with file and time, for later outcome checks.
        from learn.store.feedback import FeedbackStore
        from learn.store.proposals import ProposalBook

        with FeedbackStore.open(root / "data" / "learn.db") as store:
            book = ProposalBook(store)
            written = book.applied(project=str(shop))
            assert {a.key for a in written} == proposed
            assert all(a.applied_at and a.rule_text for a in written)
            # Each rule in CLAUDE.md, and (shop-api has Codex sessions too) in the AGENTS.md
            # Codex reads: one rule, every agent the project uses.
            claude_file, agents_file = (str((shop / n).resolve()) for n in ("CLAUDE.md",
                                                                            "AGENTS.md"))
            assert {a.key for a in written if a.target_file == claude_file} == proposed
            assert {a.target_file for a in written} <= {claude_file, agents_file}
            assert {r.state for r in book.rows(str(shop))} == {"applied"}

        # -- decline in web-app; the next run does not offer it --------------------------------
        declined = sorted(web_keys)[0]
        proc = learn("decline", declined, cwd=web)
        assert proc.returncode == 0, proc.stderr
        assert "not proposed again" in proc.stdout
        web_again = run(web)
        assert declined not in keys(web_again["proposals"])
        assert declined not in keys(web_again["pending"])
        assert keys(web_again["pending"]) == web_keys - {declined}
        listed = digest(web, "--all")
        assert declined in keys(listed["proposals"])
        assert declined not in keys(digest(web)["proposals"])
        # `run --all` shows everything, says it was declined, and leaves it declined.
        shown_all = learn("run", *SINCE, "--yes", "--quiet", "--all", cwd=web).stdout
        assert f"`{declined}`" in shown_all and "you declined this before" in shown_all
        assert declined not in keys(digest(web)["proposals"])

        # -- a request said in two projects: refused from home with the choices ---------------
        everywhere = learn("run", *SINCE, "--yes", "--quiet", "--json", "--all-projects",
                           cwd=home)
        assert everywhere.returncode == 0, everywhere.stderr
        request = next(p for p in json.loads(everywhere.stdout)["proposals"]
                       if p["kind"] == "request")
        assert request["project"] is None and set(request["projects"]) == {str(shop), str(web)}
        key = f"request:{request['label']}"
        refused = learn("apply", "--only", key, "--yes", cwd=home)
        assert refused.returncode == 1
        assert "several projects" in refused.stderr
        assert str(shop) in refused.stderr and str(web) in refused.stderr
        assert not (home / "CLAUDE.md").exists()  # never a CLAUDE.md in home
        # Named, it becomes a command file in that project, not a CLAUDE.md line.
        ok = learn("apply", "--only", key, "--project", str(shop), "--yes", cwd=home)
        assert ok.returncode == 0, ok.stderr
        command = shop / ".claude" / "commands" / f"{request['label']}.md"
        text = command.read_text()
        assert text.startswith("---\ndescription:") and "$ARGUMENTS" in text
        assert key not in (shop / "CLAUDE.md").read_text()
