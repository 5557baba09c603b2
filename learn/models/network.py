"""What stands between learn and the model endpoint: a proxy, a captive portal, a gateway.

Audited against a fake server on 127.0.0.1 (tests/test_network_audit.py), each of
these was blamed on the wrong thing:

- HTTPS_PROXY naming a proxy that was down: "nothing answers at
  https://api.anthropic.com (connection refused); fix: check ANTHROPIC_BASE_URL",
  an endpoint that was never reached, and a fix that could not help;
- a proxy asking for credentials (407): on an https endpoint "nothing answers at
  https://api.anthropic.com (407 X)", on an http one a preflight that passed and
  then one "HTTP 407" per session;
- a 200 whose body was a Wi-Fi login page: "the model answered without calling
  the tool", asked three times per chunk.

So the proxy the HTTP clients take from the environment is named here, as they
choose it (`<scheme>_proxy`, then `all_proxy`, either case, unless `no_proxy`
covers the host), and always without its credentials; and a body that is not
the API's is described for what it is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True, slots=True)
class Proxy:
    variable: str  # the environment variable it came from, as spelled there
    url: str  # without credentials

    def said(self) -> str:
        return f"the proxy {self.url} ({self.variable})"


def proxy_for(url: str, env: Mapping[str, str]) -> Proxy | None:
    """The proxy a request to `url` goes through, from the environment, or None."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    host = (parts.hostname or "").lower()
    if _bypassed(host, env):
        return None
    for name in (f"{parts.scheme}_proxy", "all_proxy"):
        for variable in (name, name.upper()):
            value = (env.get(variable) or "").strip()
            if value:
                return Proxy(variable, without_credentials(value))
    return None


def _bypassed(host: str, env: Mapping[str, str]) -> bool:
    raw = env.get("no_proxy") or env.get("NO_PROXY") or ""
    for entry in (e.strip().lower() for e in raw.split(",")):
        if entry == "*":
            return True
        entry = entry.lstrip(".")
        if entry and (host == entry or host.endswith("." + entry)):
            return True
    return False


def without_credentials(url: str) -> str:
    """`url` with any user and password taken out (a proxy URL often carries both)."""
    try:
        parts = urlsplit(url)
        if "@" not in parts.netloc:
            return url
        host = parts.netloc.rpartition("@")[2]
        return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))
    except ValueError:
        return "(a proxy URL that does not parse)"


def shown_url(url: str) -> str:
    """`url` as a message names it: without a user, a password, a query or a fragment,
    any of which can carry a key (a gateway's `https://key@host`, `?api_key=`)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "(an address that does not parse)"
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def proxy_auth_fix(proxy: Proxy | None) -> str:
    """The fix for a 407: credentials in the proxy's URL."""
    variable = proxy.variable if proxy is not None else "HTTPS_PROXY"
    return (f"put the proxy's user and password in its URL "
            f"({variable}=http://user:password@host:port), or ask for a proxy address that "
            "needs none")


def proxy_fix(proxy: Proxy, host: str) -> str:
    """The fix for a proxy that cannot be used at all."""
    return (f"check {proxy.variable}, or unset it (or add {host} to NO_PROXY) if {host} "
            "is reached without a proxy")


def proxy_auth_failure(proxy: Proxy | None, host: str) -> str:
    """One line for a 407: the proxy wants credentials it was not given."""
    who = proxy.said() if proxy is not None else f"a proxy between here and {host}"
    return f"{who} asks for credentials (HTTP 407 Proxy Authentication Required)"


# Where a page comes from when the endpoint answers with one: said after `body_kind`
# for a 200, where a person would otherwise look for the fault in the model.
NOT_THE_API = "a captive portal, a proxy's login or block page, or a base URL that is a web site"


def is_html(text: str, content_type: str = "") -> bool:
    head = text.lstrip()[:15].lower()
    return "html" in content_type.lower() or head.startswith(("<!doctype", "<html"))


def body_kind(text: str, content_type: str = "") -> str:
    """What a reply body that is not the API's is, in a few words: an HTML page (with its
    title), an empty body, or the start of whatever it is."""
    # Each piece is redacted whole before it is cut (`error_line`): a proxy's page can
    # name a key or a URL with its password, and a cut one no longer has its shape.
    from learn.models.base import error_line

    if is_html(text, content_type):
        found = _TITLE.search(text)
        title = error_line(" ".join(found.group(1).split()), 80) if found else ""
        return f'an HTML page "{title}"' if title else "an HTML page"
    first = error_line(text, 80)
    if not first:
        return "an empty body"
    return f"not the API's JSON ({first!r})"
