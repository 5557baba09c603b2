"""One repository, one identity: a git remote URL reduced to `host/owner/repo`.

The same repository cloned over ssh, over https, with or without `.git`, with a
capitalised owner or a trailing slash, or with a token in the URL was five
repositories to the team store, so every teammate's team run saw only their
own sessions. repository_id() is what the team store groups by: credentials,
scheme, port, `.git` and trailing slashes dropped, host and path lowercased
(GitHub, GitLab and Bitbucket treat owner and repository names
case-insensitively). A local-path remote has no identity: it would put a path
of this machine into a shared table.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from learn.lazy import lazy_pattern

# scp-like syntax: [user@]host:path, where the path does not start with "/"
# after "//" (that would be a URL) and host is not a Windows drive letter.
_SCP = lazy_pattern(r"^(?:[^@/\s]+@)?(?P<host>[^:/\s]{2,}):(?P<path>(?!//)[^\s]+)$")


def _clean_path(path: str) -> str:
    path = path.strip().strip("/")
    while path.endswith(".git") or path.endswith("/"):
        path = path.removesuffix(".git").rstrip("/")
    return "/".join(p for p in path.split("/") if p)


def repository_id(url: str) -> str | None:
    """`host/owner/repo` for a remote URL, or None for a local path or nothing."""
    url = url.strip()
    if not url:
        return None
    if "://" in url:
        parts = urlsplit(url)
        if parts.scheme.lower() == "file" or not parts.hostname:
            return None
        host = parts.hostname  # without user, password and port; lowercased by urlsplit
        path = _clean_path(parts.path)
    else:
        m = _SCP.match(url)
        if m is None:
            return None  # a local path (/srv/git/app.git, ../app, C:\repos\app)
        host = m.group("host").lower()
        path = _clean_path(m.group("path"))
    if not path:
        return None
    return f"{host.lower()}/{path.lower()}"
