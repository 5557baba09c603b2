"""Which fields hold a secret, by their names: a config key, a tool's input, a variable.

A leaf module (no learn imports), so the session view can use it where it makes a
tool call's one-line summary (`transcripts.view.calls`): a password typed into a
login form by a browser tool (`{"element": "Password input", "text": "..."}`) or
passed to a database tool (`{"password": "..."}`) sat in clear in `learn show`'s
summary line on a real session, because nothing in `text=...` says what it is;
only the field's name or its label does. The redaction rules (`redaction.secret_values`)
read the same names, and the same test of what is a variable reference rather than
a value (`$DB_PASSWORD` is a reference, `$up3rS3cret!` is a password).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from learn.lazy import lazy_pattern

# Names that announce a secret. Matched against the whole name, case-insensitively,
# so `GITHUB_TOKEN`, `apiKey`, `db_password` and `client-secret` all count, and the
# names the third privacy audit found holding keys without ending in one of those
# words: Rails' `SECRET_KEY_BASE`, `SERVICE_AUTH`, `HMAC_SHA256`, `PASSWORD_SALT`
# (a whole word of the name, `_auth` after `_` only: `AUTHOR`, `OAUTH_PROVIDER`,
# `salt_rounds` are not).
# (`redaction.assignments._NAME_WORDS` lists a word every such name holds.)
SECRET_NAME_RE: Final = lazy_pattern(
    r"(?i)(?:key|token|secret|password|passwd|passphrase|pwd|credentials?)$"
    r"|(?:^|_)(?:pass|pw|salt|hmac|key_base)$|_auth$|(?:^|_)hmac_[a-z0-9]+$"
)
# `DB_PASS`, `smtp_pw` count too.
PASSWORD_NAME_RE: Final = lazy_pattern(
    r"(?i)(?:password|passwd|passphrase|pwd)$|(?:^|_)(?:pass|pw)$"
)

# A reference to a variable, not a value: `${DB_PASSWORD}`, `$(cat pw)`, `$1`,
# `$env:TOKEN`, and a name shaped like a variable (`$DB_PASSWORD`, `$db_pass`,
# `$dbPassword`). A `$` followed by what no one names a variable (`$up3rS3cret!`,
# `$ecretPa55w0rd`: mixed case run through with digits) is a password that starts
# with a dollar sign, and was kept in clear as a "reference".
_VARIABLE_RE: Final = lazy_pattern(
    r"^\$(?:\{[^}\n]*\}|\([^)\n]*\)|[0-9@*#?!$-]|env:[A-Za-z_]\w*"
    r"|[A-Z_][A-Z0-9_]*|[a-z_][a-z0-9_]*|[a-z]+(?:[A-Z][a-z]+)+)$"
)


def is_variable_ref(value: str) -> bool:
    """`value` (quotes aside) is a shell/PHP/PowerShell variable or expansion."""
    v = value.strip("\"'`")
    return v.startswith("$") and (_VARIABLE_RE.match(v) is not None or v.startswith(("${", "$(")))


# The fields a form-filling tool names the target with, and those it types into it.
_LABEL_KEYS: Final = ("element", "selector", "label", "name", "field", "placeholder", "ref",
                      "target", "locator", "description", "prompt")
_TYPED_KEYS: Final = ("text", "value", "input", "keys", "content")
_SECRET_LABEL_RE: Final = lazy_pattern(
    r"(?i)pass(?:word|wd|phrase|code)|secret|api[\s_-]*key|token|\bpin\b|\botp\b|2fa|one[\s-]*time"
    r"|credential|cvv|card[\s_-]*number|密码|パスワード|비밀번호|пароль|passwort|contraseña|senha")


def secret_inputs(tool_input: Mapping[str, Any]) -> dict[str, str]:
    """{key: marker kind} of a tool call's input fields whose string value is a secret:
    a key named for one, or what is typed into a field labelled as one."""
    found = {k: field_kind(k) for k, v in tool_input.items()
             if isinstance(v, str) and v and SECRET_NAME_RE.search(k) and not is_variable_ref(v)}
    labels = [tool_input[k] for k in _LABEL_KEYS if isinstance(tool_input.get(k), str)]
    if any(_SECRET_LABEL_RE.search(label) for label in labels):
        kind = "password" if any(_PASSWORD_LABEL_RE.search(label) for label in labels) else "secret"
        found.update((k, kind) for k in _TYPED_KEYS if isinstance(tool_input.get(k), str))
    return found


_PASSWORD_LABEL_RE: Final = lazy_pattern(r"(?i)pass(?:word|wd|phrase|code)|密码|パスワード|비밀번호|пароль|passwort|contraseña|senha")


def field_kind(name: str) -> str:
    """The marker kind for a secret held in the field `name`."""
    return "password" if PASSWORD_NAME_RE.search(name) else "secret"
