"""Passwords in the forms a terminal or a browser leaves them (learn.render.password_forms,
and two context rules of learn.render.secret_rules): the value on the line after its
label, typed after a `sudo`/`git` prompt, in a here-string to `sudo -S`, in a form body
percent-encoded once more, and a GCP key file's `private_key_id`. Each was passed in
clear before these rules; beside each, the look-alikes that must stay whole."""

from __future__ import annotations

import pytest

from learn.render.redact import redact


def _j(*parts: str) -> str:
    # Assembled at run time so no literal secret-shaped string sits in the repo.
    return "".join(parts)


PW = _j("Hunter2", "Secret9")
SUDO_PW = _j("Sword", "fish42!")
HEX40 = _j("0a1b2c3d4e5f6a7b8c9d", "0e1f2a3b4c5d6e7f8a9b")

CASES = [
    # 1. A label alone on its line, the value alone on the next.
    (f"password:\n{PW}", "password:\n[REDACTED:password]"),
    ("Password:\n  s3cr3t-Value!", "Password:\n  [REDACTED:password]"),
    (f"Password:\r\n{PW}\r\nthanks", "Password:\r\n[REDACTED:password]\r\nthanks"),
    (f"- DB password:\n  `{PW}`\n- user: app", "- DB password:\n  `[REDACTED:password]`\n- user: app"),
    (f"**Password:**\n{PW}", "**Password:**\n[REDACTED:password]"),
    (f"staging:\n  db_password:\n    {PW}", "staging:\n  db_password:\n    [REDACTED:password]"),
    # 2. A prompt with what was typed after it, on its line or the next.
    (f"[sudo] password for bob: {SUDO_PW}", "[sudo] password for bob: [REDACTED:password]"),
    (f"[sudo] password for bob:\n{SUDO_PW}\nSorry, try again.",
     "[sudo] password for bob:\n[REDACTED:password]\nSorry, try again."),
    (f"Password for 'https://bob@github.com': {SUDO_PW}",
     "Password for 'https://bob@github.com': [REDACTED:password]"),
    # 3. A here-string to sudo -S: quoted either way, bare, after sudo's other flags.
    (f"sudo -S <<< '{SUDO_PW}' apt install x", "sudo -S <<< '[REDACTED:password]' apt install x"),
    ("sudo -S <<< Swordfish42 make install", "sudo -S <<< [REDACTED:password] make install"),
    (f'sudo -S <<<"{SUDO_PW}" make install', 'sudo -S <<<"[REDACTED:password]" make install'),
    (f"sudo -u root -S <<< '{SUDO_PW}' id", "sudo -u root -S <<< '[REDACTED:password]' id"),
    (f"sudo -S apt install x <<< '{SUDO_PW}'", "sudo -S apt install x <<< '[REDACTED:password]'"),
    # 4. A password in a form encoded once more: `%3D` for `=`, `%26` for `&`.
    ("https://h/login?user=bob&password%3DSwordfish42", "https://h/login?user=bob&password%3D[REDACTED:password]"),
    ("https://h/cb?next=%2Flogin%3Fuser%3Dbob%26password%3DSwordfish42%26remember%3D1",
     "https://h/cb?next=%2Flogin%3Fuser%3Dbob%26password%3D[REDACTED:password]%26remember%3D1"),
    ("body=user%3Dbob%26pass%3DSword%21fish42", "body=user%3Dbob%26pass%3D[REDACTED:password]"),
    ("body=user%3Dbob%26pwd%3DSwordfish42", "body=user%3Dbob%26pwd%3D[REDACTED:password]"),
    ("q=login%3fdb_password%3dSwordfish42", "q=login%3fdb_password%3d[REDACTED:password]"),
    # 5. A GCP service account's key id, in its JSON, shell-escaped, or as a variable.
    (f'  "private_key_id": "{HEX40}",', '  "private_key_id": "[REDACTED:private-key-id]",'),
    (f'echo "{{\\"private_key_id\\": \\"{HEX40}\\"}}"', 'echo "{\\"private_key_id\\": \\"[REDACTED:private-key-id]\\"}"'),
    (f"GCP_PRIVATE_KEY_ID={HEX40}", "GCP_PRIVATE_KEY_ID=[REDACTED:private-key-id]"),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_each_prompt_and_encoded_form_of_a_password_is_redacted(text: str, expected: str) -> None:
    assert redact(text) == expected
    assert redact(expected) == expected  # idempotent: the marker matches no rule


@pytest.mark.parametrize(
    "text",
    [
        # A label followed by the prose, code or config it introduces.
        "Password:\nwe should rotate it next week",
        "Password:\nrequired",
        "Password:\n`auth.py`",
        "Password:\nos.environ",
        "Password:\n$DB_PASSWORD",
        "Password:\n<your password>",
        "Password:\n********",
        "Password:\nhttps://vault.example.com/ui",
        "password:\n  secretKeyRef:\n    name: db",
        "password:\n  - hunter",
        "if not password:\n    raise ValueError('missing')",
        "if password:\n    return True",
        "const password =\n  makeHash();",
        "password:\n\nHunter2Secret9",  # a blank line between: no longer the label's
        # A prompt with nothing typed after it, or a sentence after it.
        "[sudo] password for bob:",
        "[sudo] password for bob: \nSorry, try again.",
        "the password for prod: ask ops",
        "Password for staging: see the vault",
        # Here-strings that are no password to sudo.
        'sudo -S <<< "$PW" apt install x',
        "sudo -S <<< $(cat ~/.pw) apt install x",
        "sudo pacman -S vim <<< y",
        "cat <<< 'hello' | sudo tee /etc/motd",
        # Encoded forms whose value is a variable, too short, or whose name is no password.
        "https://h/cb?next=%2Flogin%26password%3D%24PW",
        "https://h/cb?next=%2Flogin%26password%3D%7BPASSWORD%7D",
        "q=pw%3Dhunter",
        "q=bypass%3DSwordfish42",
        "q=compass%3DSwordfish42",
        # Key ids of other shapes and names.
        '"private_key_id": "YOUR_KEY_ID",',
        '"private_key_id": "<private-key-id>",',
        f'"key_id": "{HEX40}"',
        f'"private_key_id": "{HEX40}ab"',  # 42 hex: no GCP key id
    ],
)
def test_prompts_here_strings_and_encoded_look_alikes_are_left_whole(text: str) -> None:
    assert redact(text) == text
