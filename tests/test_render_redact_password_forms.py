"""Passwords in the forms a terminal or a browser leaves them (learn.redaction.password_forms,
and two context rules of learn.redaction.secret_rules): the value on the line after its
label, typed after a `sudo`/`git` prompt, in a here-string to `sudo -S`, in a form body
percent-encoded once more, and a GCP key file's `private_key_id`. Each was passed in
clear before these rules; beside each, the look-alikes that must stay whole."""

from __future__ import annotations

import pytest

from learn.redaction.redact import redact


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
    # 3b. Piped into sudo's stdin: printf's format or its argument, echo to `--stdin`,
    # several words, a typed line end kept (learn.redaction.stdin_passwords).
    (f"printf '{SUDO_PW}\\n' | sudo -S apt install x", "printf '[REDACTED:password]\\n' | sudo -S apt install x"),
    (f"printf '%s\\n' '{SUDO_PW}' | sudo -S id", "printf '%s\\n' '[REDACTED:password]' | sudo -S id"),
    (f"printf -- '{SUDO_PW}\\n' | sudo -kS id", "printf -- '[REDACTED:password]\\n' | sudo -kS id"),
    (f"echo {SUDO_PW} | sudo -S apt install x", "echo [REDACTED:password] | sudo -S apt install x"),
    (f'echo "{SUDO_PW}" | sudo --stdin make install', 'echo "[REDACTED:password]" | sudo --stdin make install'),
    (f'echo -e "{SUDO_PW}\\n" | sudo -u root -S id', 'echo -e "[REDACTED:password]\\n" | sudo -u root -S id'),
    ('echo "correct horse battery" | sudo -S id', 'echo "[REDACTED:password]" | sudo -S id'),
    ("echo correct horse battery | sudo -S id", "echo [REDACTED:password] | sudo -S id"),
    ("printf 'bob:hunter2\\n' | chpasswd", "printf 'bob:[REDACTED:password]\\n' | chpasswd"),
    (f"sudo --stdin <<< '{SUDO_PW}' id", "sudo --stdin <<< '[REDACTED:password]' id"),
    # sudo or chpasswd named by its path.
    ("echo pw12345 | /usr/bin/sudo -S id", "echo [REDACTED:password] | /usr/bin/sudo -S id"),
    (f"echo '{SUDO_PW}' | /usr/bin/sudo -u root -S id", "echo '[REDACTED:password]' | /usr/bin/sudo -u root -S id"),
    ("printf 'bob:hunter2\\n' | /usr/sbin/chpasswd", "printf 'bob:[REDACTED:password]\\n' | /usr/sbin/chpasswd"),
    (f"/usr/bin/sudo -S <<< '{SUDO_PW}' id", "/usr/bin/sudo -S <<< '[REDACTED:password]' id"),
    # 3c. A label that is its line's whole text, a plain word or a few on the next line,
    # in English and in the languages PASSWORD_LABELS lists.
    ("password:\ncorrecthorsebatterystaple", "password:\n[REDACTED:password]"),
    ("Password:\ncorrect horse battery staple\nthanks", "Password:\n[REDACTED:password]\nthanks"),
    ("passwd:\n  correcthorse", "passwd:\n  [REDACTED:password]"),
    ("pw:\n\"correct horse battery staple\"", "pw:\n\"[REDACTED:password]\""),
    ("passphrase:\r\ncorrect horse battery staple\r\n", "passphrase:\r\n[REDACTED:password]\r\n"),
    ("**Password:**\ncorrecthorse", "**Password:**\n[REDACTED:password]"),
    ("token:\n  abcdefghijklmnop", "token:\n  [REDACTED:token]"),
    ("Passwort:\ngeheimnis", "Passwort:\n[REDACTED:password]"),
    ("Mot de passe :\ncheval correct", "Mot de passe :\n[REDACTED:password]"),
    ("mot de passe:\nchevalcorrect", "mot de passe:\n[REDACTED:password]"),
    ("Contraseña:\ncaballo correcto", "Contraseña:\n[REDACTED:password]"),
    ("Senha:\ncavalo correto", "Senha:\n[REDACTED:password]"),
    ("Password:\ncavallo corretto", "Password:\n[REDACTED:password]"),
    ("Wachtwoord:\npaardenstaart", "Wachtwoord:\n[REDACTED:password]"),
    # A plain word that is no status word, capitalised (a note's) or not.
    ("Password:\nhunter2secret", "Password:\n[REDACTED:password]"),
    ("Password:\ncorrecthorsebatterystaple", "Password:\n[REDACTED:password]"),
    ("**Password:**\nSwordfish", "**Password:**\n[REDACTED:password]"),
    ("Password:\nblue horse 42x\n", "Password:\n[REDACTED:password]\n"),
    # A capitalised passphrase of three to five words: sentence or title case.
    ("Password:\nCorrect horse battery staple\n", "Password:\n[REDACTED:password]\n"),
    ("Password:\nCorrect Horse Battery Staple", "Password:\n[REDACTED:password]"),
    ("Password:\nBlue Sky Falling\nthanks", "Password:\n[REDACTED:password]\nthanks"),
    ("**Password:**\nPurple monkey dishwasher", "**Password:**\n[REDACTED:password]"),
    ("passphrase:\n  Orange Elephant Sandwich Quartz", "passphrase:\n  [REDACTED:password]"),
    ("pw:\n\"Tangerine lemon cactus\"", "pw:\n\"[REDACTED:password]\""),
    ("Passwort:\nRoter Elefant tanzt", "Passwort:\n[REDACTED:password]"),
    ("Mot de passe :\nCheval correct agrafe", "Mot de passe :\n[REDACTED:password]"),
    ("token:\nVelvet Thunder Orchard", "token:\n[REDACTED:token]"),
    # A line ending in a colon before the label line does not hide it.
    ("db:\n  password:\n    correcthorse", "db:\n  password:\n    [REDACTED:password]"),
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
        # Pipes that hand sudo no password: another reader, a variable, nothing piped.
        "echo hello | grep x",
        "printf '%s\\n' \"$PW\" | sudo -S apt install x",
        "printf \"$PW\\n\" | sudo -S apt install x",
        "echo $(cat ~/.pw) | sudo -S apt install x",
        'echo "$(pass show sudo)" | sudo --stdin apt install x',
        "sudo -S apt install x",
        "sudo --stdin true",
        "echo y | sudo pacman -S vim",
        "printf 'y\\n' | sudo tee /etc/flag",
        # A label alone on its line, then the sentence, schema, list or output it introduces.
        "Password:\nSee the 1Password vault entry for staging.",
        "password:\n  type: string",
        "Password:\n\n",
        "Password: the one you chose at signup",
        "Password:\nThe one from the vault",
        "Password:\nPlease ask Bob",
        "Password:\nUse the staging one",
        "Password:\nI forgot it",
        "Password:\nWhat is it",
        "Password:\nWhich one do you mean?",
        "Password:\nUsername:",
        "Password:\n# Heading",
        "Password:\n* item",
        "Password:\n1. first",
        "Password:\n$ ls -la",
        "Password:\n>>> print(x)",
        "Password:\noptional",
        "token:\n  description: the API token",
        "token:\n    Authentication token",
        "password:\n    user password",
        "pw:\nabc",
        "Passwort:\nsiehe den Tresor im Wiki.",
        "Password:\ncorrect horse battery staple and six more words here",
        "Password:\n" + "x" * 70,
        "TOKEN:\n  while (@tok) {",
        # A label alone on its line, then a status or a result (one word, in any case, or
        # all capitals), a camelCase name, or capitalised words (output, a heading, a note).
        "Password:\nPermission denied\n",
        "Password:\nAccess granted\n",
        "Password:\nPASSED\n",
        "token:\nFAILED\n",
        "password:\n  enabled\n",
        "token:\n  valueFrom\n",
        "token:\n  Bearer\n",
        "token:\n  Authorized\n",
        "password:\n  Minimum eight characters\n",
        "password:\n  minimum eight characters\n",
        "Password:\n  Fixed reset flow\n",
        "Token:\nexpired\n",
        "Token:\nrevoked\n",
        "Token:\nExpires tomorrow\n",
        "pw:\nchanged\n",
        "Mot de passe :\nOublié\n",
        "Passwort:\nvergessen\n",
        "Password:\nLastPass entry\n",
        "Password:\nShared drive\n",
        "Password:\naccess denied\n",
        "token:\n  secretKeyRef\n",
        # A label alone, then what a program, a login page or a note capitalises: two
        # words, a sentence, a status, a function word, a word of capitals or digits.
        "Password:\nSorry, try again.\n",
        "Password:\nsu: Authentication failure\n",
        "Password:\nAuthentication failure\n",
        "Password:\nOK\n",
        "Password:\nPassword:\n",
        "Password:\n## Setup\n",
        "Password:\nRemember me\nSign in\n",
        "Password:\nTry again\n",
        "Password:\ntry again\n",
        "Password:\nConnection refused\n",
        "Password:\nconnection refused\n",
        "Password:\nStay signed in\n",
        "Password:\nKeep me signed in\n",
        "Password:\nRequest timed out\n",
        "Password:\nLogin incorrect\n",
        "Password:\nHost key verification failed\n",
        "Password:\nToo many failed attempts\n",
        "Password:\nConnection closed by remote host\n",
        "Password:\nMaximum retries exceeded\n",
        "Password:\nCaps Lock Enabled\n",
        "Password:\nACCESS DENIED\n",
        "Password:\nAuthentication token manipulation error\n",
        "Password:\nWelcome to Ubuntu 24.04 LTS\n",
        "Password:\nRetype new password\n",
        "Password:\nPasswords do not match\n",
        "Password:\nStored in Vault\n",
        "Password:\nAsk your admin\n",
        "Password:\nSee team wiki\n",
        "Password:\nSame as production\n",
        "Password:\nSent via Signal\n",
        "Password:\nVerification code sent\n",
        "Password:\nCompany wiki page\n",
        "Password:\nCreate new account\n",
        "Password:\nForgot your password?\n",
        "Password:\nNext Steps\n",
        "Password:\nGetting Started\n",
        "Password:\nBlue Sky Falling.\n",
        "Password:\nInvalid credentials\n",
        "Password:\nKey not found\n",
        "Password:\nMust contain uppercase letters\n",
        "Password:\nGenerated by Terraform\n",
        "Password:\nRotated weekly by cron\n",
        "Password:\nLast login: Mon Jan 12 10:00:01 2026\n",
        "Password:\nAccount locked out\n",
        "Password:\nCheck your email\n",
        "Password:\nClick here to reset\n",
        "Password:\nSSH Key Rotation\n",
        "Password:\nBlue Sky 42\n",
        "Password:\nCorrect horse battery staple and six more\n",
        "token:\nRefresh Token Expired\n",
        # More words than a piped passphrase has, or no reader after the pipe.
        "echo a b c d e f g h i | sudo -S id",
        "echo y | /usr/bin/sudo pacman -S vim",
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


def test_every_stdin_and_form_rule_that_redacts_a_case_has_its_gate_open() -> None:
    # A gate is a substring test run before the rule: a text the rule would redact
    # but whose gate is shut would keep its password.
    from learn.lazy import compiled
    from learn.redaction.password_forms import PASSWORD_FORM_RULES
    from learn.redaction.stdin_passwords import STDIN_RULES

    for gate, pattern, replace in STDIN_RULES + PASSWORD_FORM_RULES:
        for text, _ in CASES:
            if compiled(pattern).sub(replace, text) != text:
                assert any(word in text.lower() for word in gate), (pattern.pattern, text)


def test_piped_and_here_string_rules_take_linear_time_on_adversarial_text() -> None:
    # Unbounded, `sudo echo echo …` (no `|`) had every `echo` read all the words after
    # it: 34 s at 100 KB. Run in a child, so a regression fails here instead of hanging.
    import subprocess
    import sys
    from pathlib import Path

    script = """
import time
from learn.redaction.redact import redact
n = 1_000_000
shapes = [
    "sudo " + "echo " * (n // 5),
    "sudo " + "printf x " * (n // 9),
    "sudo -S " + "echo a b c " * (n // 11),
    "sudo " + "echo \\n" * (n // 6),
    "sudo -S " + "echo a b c\\n" * (n // 11),
    "sudo -S " * (n // 8) + "\\n<<< x",
    "<<< " + "sudo -S x " * (n // 10),
]
for text in shapes:
    t0 = time.perf_counter()
    redact(text)
    assert time.perf_counter() - t0 < 10, text[:40]
"""
    root = Path(__file__).resolve().parents[1]
    subprocess.run([sys.executable, "-c", script], check=True, timeout=30, cwd=root)
