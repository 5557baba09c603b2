"""`pip install .` into a fresh virtualenv, then `learn demo`, `learn eval` and
`learn eval --live` from another directory: the demo corpus, its gold and the
recorded answers ship inside the package.

It installs learn and its dependencies (from pip's cache or the registry), about
a minute and a half on the CI machine, so it runs where LEARN_INSTALL_TEST=1
(.ci/run sets it) and is skipped elsewhere."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fakes.anthropic_server import FakeAnthropicServer

from evals.corpora import demo
from evals.oracle import GoldOracle

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(
    os.environ.get("LEARN_INSTALL_TEST") != "1",
    reason="installs learn into a fresh venv (a minute or more); set LEARN_INSTALL_TEST=1",
)


def source_copy(dest: Path) -> Path:
    """The checkout's tracked files, so the build leaves nothing in the checkout."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True)
    for name in filter(None, listed.stdout.decode().split("\0")):
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        if (REPO / name).is_symlink():  # learn/_prompts -> ../prompts
            os.symlink(os.readlink(REPO / name), dest / name)
        elif (REPO / name).is_file():
            shutil.copy2(REPO / name, dest / name)
    return dest


def test_demo_and_eval_work_from_a_fresh_install(tmp_path: Path) -> None:
    src = source_copy(tmp_path / "src")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "."], cwd=src,
                         capture_output=True, text=True, timeout=900)
    assert pip.returncode == 0, pip.stderr[-3000:]
    learn = str(venv / "bin" / "learn")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ANTHROPIC_", "LEARN_", "PYTHON", "VIRTUAL_ENV"))}
    env.update(HOME=str(tmp_path / "home"), LEARN_DATA_DIR=str(tmp_path / "data"),
               LEARN_CACHE_DIR=str(tmp_path / "cache"), LEARN_CONFIG_DIR=str(tmp_path / "config"))

    def run(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        return subprocess.run(list(args), cwd=elsewhere, env=env, capture_output=True,
                              text=True, timeout=timeout)

    where = run(str(venv / "bin" / "python"), "-c", "import learn, evals; print(learn.__file__)")
    # The installed learn, not this checkout; evals is not a top-level package of the install.
    assert where.returncode != 0 and "No module named 'evals'" in where.stderr
    where = run(str(venv / "bin" / "python"), "-c", "import learn; print(learn.__file__)")
    assert Path(where.stdout.strip()).is_relative_to(venv), where.stdout

    shown = run(learn, "demo")
    assert shown.returncode == 0, shown.stderr[-3000:]
    assert shown.stdout.startswith("[learn-digest]")
    gold = demo.build(tmp_path / "gold")
    for name, group in gold.groups.items():
        assert (f"`{name}`" in shown.stdout) == group.proposed, name

    gate = run(learn, "eval", "--gate")
    assert gate.returncode == 0, gate.stdout[-3000:] + gate.stderr[-3000:]
    assert "gate: no metric below the baseline" in gate.stdout

    # A person scores their own model choice against the demo gold (the fake server
    # stands in for the endpoint); its answers are recorded in learn's cache
    # directory, never over the fixtures in the package.
    oracle = GoldOracle(gold)
    with FakeAnthropicServer(responder=lambda r: oracle.answer(r.tool_name or "", r.user_text)) as fake:
        env.update(ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=fake.base_url)
        live = run(learn, "eval", "demo", "--live", "--backend", "anthropic",
                   "--model", "claude-haiku-4-5")
        models = {r.json.get("model") for r in fake.requests}
    assert live.returncode == 0, live.stdout[-3000:] + live.stderr[-3000:]
    assert models == {"claude-haiku-4-5"}
    assert any((tmp_path / "cache" / "eval-live").rglob("*.json"))
    packaged = next((venv / "lib").glob("python3*/site-packages/learn/_bundle/cache"))
    assert sorted(p.name for p in packaged.rglob("*.json")) == sorted(
        p.name for p in (REPO / "cache").rglob("*.json"))
