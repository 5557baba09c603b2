"""Where `learn demo` / `learn eval` find the harness: the checkout, else the package's bundle."""

from __future__ import annotations

from pathlib import Path

import click
import pytest

import learn._repo as repo
from learn.commands.eval import live_cache_args


def _harness(root: Path) -> Path:
    (root / "evals" / "corpora").mkdir(parents=True)
    (root / "cache").mkdir()
    return root


def test_an_installed_learn_finds_the_bundle_in_its_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "site-packages" / "learn"
    _harness(package / "_bundle")
    monkeypatch.setattr(repo, "PACKAGE", package)
    monkeypatch.setattr("sys.path", list(__import__("sys").path))
    root = repo.repo_root()
    assert root == package / "_bundle" and repo.is_bundled(root)
    assert str(root) in __import__("sys").path


def test_a_checkout_wins_over_a_bundle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    checkout = _harness(tmp_path / "checkout")
    _harness(checkout / "learn" / "_bundle")
    monkeypatch.setattr(repo, "PACKAGE", checkout / "learn")
    monkeypatch.setattr("sys.path", list(__import__("sys").path))
    assert repo.repo_root() == checkout and not repo.is_bundled(checkout)


def test_no_harness_anywhere_says_how_to_get_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(repo, "PACKAGE", tmp_path / "learn")
    with pytest.raises(click.ClickException, match="pip install"):
        repo.repo_root()


def test_this_checkout_is_found() -> None:
    assert repo.repo_root() == Path(__file__).resolve().parents[1]


def test_a_live_eval_from_the_package_records_into_learns_cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEARN_CACHE_DIR", str(tmp_path / "c"))
    argv = live_cache_args(["--live", "--model", "m"])
    assert argv[-2:] == ["--cache-dir", str(tmp_path / "c" / "eval-live")]
    assert live_cache_args(["--gate"]) == ["--gate"]
    assert live_cache_args(["--live", "--cache-dir", "x"]) == ["--live", "--cache-dir", "x"]
    assert live_cache_args(["--live", "--cache-dir=x"]) == ["--live", "--cache-dir=x"]
