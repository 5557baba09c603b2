"""One repository, one identity however it was cloned (learn.projects.remote.repository_id)."""

from __future__ import annotations

import pytest

from learn.projects.remote import repository_id

SAME = [
    "git@github.com:team/app.git",
    "https://github.com/team/app",
    "https://github.com/Team/App.git/",
    "ssh://git@github.com/team/app.git",
    "https://ana:ghp_1234567890abcdefghijABCDEFGHIJ123456@github.com/team/app.git",
    "https://x-access-token:tok@GitHub.com:443/team/app.git",
    "ssh://git@github.com:22/team/app",
    "git://github.com/team/app.git",
    "github.com:team/app.git",
    "  https://github.com/team/app.git\n",
]


@pytest.mark.parametrize("url", SAME)
def test_every_way_of_cloning_one_repository_is_one_identity(url: str) -> None:
    assert repository_id(url) == "github.com/team/app"


@pytest.mark.parametrize(("url", "want"), [
    ("git@gitlab.example.com:group/sub/app.git", "gitlab.example.com/group/sub/app"),
    ("https://gitlab.example.com/group/sub/app.git", "gitlab.example.com/group/sub/app"),
    ("https://github.com/team/app.github.io.git", "github.com/team/app.github.io"),
    ("https://github.com/team/other.git", "github.com/team/other"),
])
def test_different_repositories_stay_different(url: str, want: str) -> None:
    assert repository_id(url) == want


@pytest.mark.parametrize("url", [
    "", "/srv/git/app.git", "../app", "file:///srv/git/app.git", "C:\\repos\\app",
    "https://github.com/", "git@github.com:",
])
def test_a_local_path_or_empty_remote_has_no_identity(url: str) -> None:
    assert repository_id(url) is None


def test_no_credential_survives() -> None:
    got = repository_id("https://user:s3cr3t-t0ken@host.example/org/repo.git")
    assert got == "host.example/org/repo" and "s3cr3t" not in got
