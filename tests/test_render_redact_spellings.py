"""Credential spellings a privacy audit found passing redaction (the third audit): a
password in shell-escaped JSON, piped to `sudo -S`, after a client's own password flag,
a token as a URL's user, names not ending in key/token/secret, a quoted passphrase, a
Ruby hash rocket, a full-width colon, a key continued onto the next line. Each is
pinned with the whole expected line, and beside it the prose and commands that look
alike and must stay whole."""

from __future__ import annotations

import pytest

from learn.redaction.redact import redact


def _j(*parts: str) -> str:
    # Assembled at run time so no literal secret-shaped string sits in the repo.
    return "".join(parts)


PW = _j("Hunter2", "Secret9")
KEY = _j("a8F3kL9z", "Q2mX7vB1nR4t")
AWS = _j("Kq7/Lm9Np2Rs4Tu6Vw8X", "y0Za1Bc3De5Fg7Hi9Jk1L")
URL_TOKEN = _j("Zq8vN2mK4p", "L7xR9tWb3c")
HEX = _j("9f8e7d6c5b4a3928", "1706f5e4d3c2b1a0")
OPENAI_HEAD = _j("sk-proj-", "Q1w2E3r4T5y6")
OPENAI_LONG = _j("sk-proj-", "Q1w2E3r4T5y6U7i8O9p0AaSs")
TAIL = _j("Zx9Cv8Bn7Mm6", "Ll5Kk4Jj3Hh2Gg")

CASES = [
    # 1. JSON as a shell writes it inside double quotes: every quote escaped.
    (f'curl -d "{{\\"username\\":\\"bob\\",\\"password\\":\\"{PW}\\"}}" https://x',
     'curl -d "{\\"username\\":\\"bob\\",\\"password\\":\\"[REDACTED:password]\\"}" https://x'),
    (f'curl -d "{{\\"api_key\\": \\"{KEY}\\"}}" https://x',
     'curl -d "{\\"api_key\\": \\"[REDACTED:secret]\\"}" https://x'),
    (f'echo "{{\\"token\\": \\"{KEY}\\"}}" > cfg.json',
     'echo "{\\"token\\": \\"[REDACTED:secret]\\"}" > cfg.json'),
    # 2. A password piped to a command that reads it from stdin.
    ('echo "Sud0Pass-4471" | sudo -S systemctl restart nginx',
     'echo "[REDACTED:password]" | sudo -S systemctl restart nginx'),
    (f"echo {PW} | sudo -k -S apt update", "echo [REDACTED:password] | sudo -k -S apt update"),
    (f"echo {PW} | docker login -u bob --password-stdin",
     "echo [REDACTED:password] | docker login -u bob --password-stdin"),
    (f"echo {KEY} | gh secret set API_KEY", "echo [REDACTED:password] | gh secret set API_KEY"),
    # 3. Clients' own password flags.
    ("docker login -u deploy -p D0ckLogin-8812 registry.example.com",
     "docker login -u deploy -p [REDACTED:password] registry.example.com"),
    ("docker login --password D0ckLogin-8812 ghcr.io", "docker login --password [REDACTED:password] ghcr.io"),
    ("podman login -u bob -p 'Two Words9' quay.io", "podman login -u bob -p '[REDACTED:password]' quay.io"),
    ("ldapsearch -x -D cn=admin,dc=ex -w LdapPw-5521 -H ldap://h",
     "ldapsearch -x -D cn=admin,dc=ex -w [REDACTED:password] -H ldap://h"),
    ("sqlcmd -S srv -U sa -P SqlCmd-7731", "sqlcmd -S srv -U sa -P [REDACTED:password]"),
    ("keytool -genkeypair -keystore k.jks -storepass KeyStore-2290 -keypass KeyPass-1188",
     "keytool -genkeypair -keystore k.jks -storepass [REDACTED:password] -keypass [REDACTED:password]"),
    ("openssl pkcs12 -export -in c.pem -passout pass:Exp0rtPw -out c.p12",
     "openssl pkcs12 -export -in c.pem -passout pass:[REDACTED:password] -out c.p12"),
    ("smbclient //host/share -U bob%S3cretPw77", "smbclient //host/share -U bob%[REDACTED:password]"),
    # 4. The AWS secret as a command's argument, not an assignment.
    (f"aws configure set aws_secret_access_key {AWS}",
     "aws configure set aws_secret_access_key [REDACTED:aws-secret-key]"),
    # 5. A token as a URL's user part.
    (f"git clone https://{URL_TOKEN}@git.example.com/team/app.git",
     "git clone https://[REDACTED:token]@git.example.com/team/app.git"),
    (f"git remote set-url origin https://{HEX}@github.com/o/r.git",
     "git remote set-url origin https://[REDACTED:token]@github.com/o/r.git"),
    # 6. Names that hold a secret without ending in key/token/secret.
    (f"SECRET_KEY_BASE={HEX}", "SECRET_KEY_BASE=[REDACTED:secret]"),
    (f"SERVICE_AUTH={KEY}", "SERVICE_AUTH=[REDACTED:secret]"),
    (f"HMAC_SHA256={HEX}", "HMAC_SHA256=[REDACTED:secret]"),
    (f"PASSWORD_SALT={KEY}", "PASSWORD_SALT=[REDACTED:secret]"),
    # 7. A quoted password with spaces goes whole.
    ('password="Blue Horse 42x"', 'password="[REDACTED:password]"'),
    ("db_password: 'Blue Horse 42x' # prod", "db_password: '[REDACTED:password]' # prod"),
    ('{"password": "Blue Horse 42x"}', '{"password": "[REDACTED:password]"}'),
    # 8. Ruby and PHP hash rockets.
    ('User.create!(email: "a@b.c", "password" => "RubyRocket-3312")',
     'User.create!(email: "a@b.c", "password" => "[REDACTED:password]")'),
    (f":password => \"{PW}\"", ':password => "[REDACTED:password]"'),
    (f"'api_key' => '{KEY}',", "'api_key' => '[REDACTED:secret]',"),
    # 9. Non-ASCII separators.
    ("数据库 password：Fw-Colon-9931", "数据库 password：[REDACTED:password]"),
    ("password:\u00a0Nbsp-Pass-6610", "password:\u00a0[REDACTED:password]"),
    ("root password：correct horse battery staple", "root password：[REDACTED:password]"),
    # 10. A key continued onto the next line by a trailing backslash.
    (f"export OPENAI_API_KEY={OPENAI_HEAD}\\\n{TAIL}", "export OPENAI_API_KEY=[REDACTED:secret]"),
    (f"export OPENAI_API_KEY={OPENAI_LONG}\\\n{TAIL}", "export OPENAI_API_KEY=[REDACTED:openai-key]"),
    # ... but an indented next line is the next argument, and stays.
    (f"docker run -e OPENAI_API_KEY={OPENAI_LONG} \\\n  --rm app", "docker run -e OPENAI_API_KEY=[REDACTED:openai-key] \\\n  --rm app"),
    (f"export OPENAI_API_KEY={OPENAI_LONG}\\\n  --next", "export OPENAI_API_KEY=[REDACTED:openai-key]\\\n  --next"),
    # ... and as a call's one-line summary flattens it: backslash, blank.
    (f"export OPENAI_API_KEY={OPENAI_HEAD}\\ {TAIL} && run", "export OPENAI_API_KEY=[REDACTED:secret] && run"),
    (f"export OPENAI_API_KEY={OPENAI_LONG}\\ {TAIL}", "export OPENAI_API_KEY=[REDACTED:openai-key]"),
    # 11. A cookie header, a vault login, a GitHub secret set from the command line.
    (f"curl -H 'Cookie: session={KEY}9x8y7z' https://x", "curl -H 'Cookie: [REDACTED:cookie]' https://x"),
    ("vault login s.AbCdEfGhIjKlMnOpQrStUvWx", "vault login [REDACTED:vault-token]"),
    (f"gh secret set API_KEY --body {KEY}", "gh secret set API_KEY --body [REDACTED:secret]"),
    (f'gh secret set API_KEY -b"{KEY}" -R o/r', 'gh secret set API_KEY -b"[REDACTED:secret]" -R o/r'),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_each_spelling_of_a_credential_is_redacted(text: str, expected: str) -> None:
    assert redact(text) == expected
    assert redact(expected) == expected  # idempotent: the marker matches no rule


@pytest.mark.parametrize(
    "text",
    [
        # Prose about the same things.
        "the password field is required",
        "Password: must be at least 12 characters",
        'password="Password used to generate key"',
        'password: "must be at least 12 characters long"',
        "set the Cookie: header on every response",
        "the vault login step needs a token",
        "pipe the password into sudo -S, do not type it",
        # Ordinary commands.
        "docker login -u bob",
        "docker login -u bob -p $DOCKER_PASSWORD registry.example.com",
        "docker ps -p 8080",
        "sudo -S apt install x",
        "echo done | sudo tee /etc/motd",
        "echo $PW | sudo -S apt install x",
        "ldapsearch -x -W -D cn=admin",
        "keytool -list -storepass:env STOREPASS -keystore k.jks",
        "sqlcmd -S srv -U sa -P $SA_PASSWORD",
        "smbclient //host/share -U bob",
        "vault login -method=userpass username=bob",
        "gh secret set API_KEY < key.txt",
        "aws configure set region eu-west-1",
        "aws configure set aws_secret_access_key",
        "cat ~/.aws/credentials | grep aws_secret_access_key and more words after it",
        # URLs whose user part is a user.
        "git clone https://github.com/org/repo",
        "git clone https://git@github.com/org/repo.git",
        "ssh://user@host:22/srv/repo.git",
        "https://deploy-bot@git.example.com/team/app.git",
        "https://firstname.lastname@example.com/x",
        # Code: a type, a Ruby `=>` with a non-secret key, an arrow function.
        "password: str",
        "def login(password: str) -> None:",
        '"name" => "RubyRocket-3312"',
        ":email => \"a@b.c\"",
        "password => validate(password)",
        "tokens.map(token => token.trim())",
        # Names that only look like the new ones.
        "AUTHOR=Jane Doe",
        "salt_rounds=12",
        "OAUTH_PROVIDER=github",
        # A continued line that is no secret.
        "export PATH=/usr/bin\\\n:/bin",
        "make CFLAGS=-O2 \\\n  install",
    "export API_KEY=$KEY\\\nrest",
    "curl -H 'Authorization: Bearer $T' \\\n  https://x",
    ],
)
def test_prose_and_ordinary_commands_are_left_whole(text: str) -> None:
    assert redact(text) == text
