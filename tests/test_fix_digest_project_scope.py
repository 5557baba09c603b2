"""`learn digest --project P` shows the rules in place of P only.

Found on the demo: after `learn demo --apply` and `learn run --offline --all-projects`,
`learn digest --project <demo>/home/code/infra` listed under "Did the rules work?" the
rules applied in shop-api and web-app (the digest re-renders the newest run that read the
project, and an all-projects run measured every project's rules); `learn outcomes`, the
digest's JSON and HTML and `learn report` did the same.
"""

from __future__ import annotations

import json
from pathlib import Path

from _demo_apply import applied_demo, demo_learn, inside_demo

SHOP_RULE, WEB_RULE = "run-ruff-before-commit", "use-bun-not-npm"


def test_a_projects_digest_outcomes_and_report_show_its_own_rules_only(tmp_path: Path) -> None:
    learn = demo_learn(tmp_path, check=True)
    demo = applied_demo(tmp_path, learn)
    inside = inside_demo(demo, tmp_path / "cache")
    code = demo / "home" / "code"
    learn("run", "--offline", "--all-projects", "--yes", cwd=code / "shop-api", **inside)

    # Every project's rules are measured: the all-projects views list both.
    every = learn("digest", "--all-projects", cwd=code / "infra", **inside).stdout
    assert f"**{SHOP_RULE}**" in every and f"**{WEB_RULE}**" in every, every

    infra = ["--project", str(code / "infra")]
    digest = learn("digest", *infra, cwd=tmp_path, **inside).stdout
    assert "Did the rules work?" not in digest and SHOP_RULE not in digest, digest
    for fmt in ("json", "html"):
        shown = learn("digest", *infra, "--format", fmt, cwd=tmp_path, **inside).stdout
        assert SHOP_RULE not in shown and WEB_RULE not in shown, fmt
    assert json.loads(learn("outcomes", *infra, "--json", cwd=tmp_path, **inside).stdout) == []
    page = tmp_path / "report.html"
    learn("report", *infra, "--out", str(page), cwd=tmp_path, **inside)
    assert SHOP_RULE not in page.read_text() and WEB_RULE not in page.read_text()

    # A project with rules of its own shows them, and not the other project's.
    web = learn("outcomes", "--project", str(code / "web-app"), "--json", cwd=tmp_path,
                **inside).stdout
    assert [o["label"] for o in json.loads(web)] and all(
        o["project"] == str(code / "web-app") for o in json.loads(web)), web
    shop = learn("digest", "--project", str(code / "shop-api"), cwd=tmp_path, **inside).stdout
    assert f"**{SHOP_RULE}**" in shop and WEB_RULE not in shop, shop


def test_rules_are_kept_by_project_identity_and_user_rules_everywhere() -> None:
    from learn.records.proposal import Funnel, RunResult, RunUsage
    from learn.report.outcomes import for_project, outcomes_of

    rules = [{"key": "directive:a", "label": "a", "project": "/w/shop"},
             {"key": "directive:b", "label": "b", "project": "/w/shop/api"},
             {"key": "directive:c", "label": "c", "project": "/w/shop-web"},
             {"key": "directive:d", "label": "d", "project": None}]
    checks = [{"key": "directive:x", "project": "/w/shop-web"},
              {"key": "directive:y", "project": "/w/shop"}]

    def run(project: str | None) -> RunResult:
        return RunResult(proposals=(), funnel=Funnel(), usage=RunUsage(),
                         extra={"outcomes": rules, "checks": checks, "project": project})

    mine = for_project(run("/w/shop"))
    assert [o.label for o in outcomes_of(mine)] == ["a", "b", "d"]
    assert [c["key"] for c in mine.extra["checks"]] == ["directive:y"]
    assert [o.label for o in outcomes_of(run("/w/shop"))] == ["a", "b", "d"]
    assert [o.label for o in outcomes_of(for_project(run(None)))] == ["a", "b", "c", "d"]
