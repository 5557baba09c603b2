"""A corpus of fake secrets as they sit in real sessions, and decoys that must survive.

Every value is assembled from parts at import time, so no secret-shaped literal sits in
the repository as one string (push protection and scanners would flag the fixtures).
Shared by tests/test_render_redact_corpus.py (redact alone) and
tests/test_secrets_e2e.py (a whole `learn run`: requests and disk).

`SECRETS`: (name, line, secret). `line` is how the secret is written where it occurs;
`secret` is the part that must never leave: nothing of it may reach a model or a disk.
`DECOYS`: (name, line, keep). `keep` must come through redaction unchanged.
"""

from __future__ import annotations

import base64


def _j(*parts: str) -> str:
    return "".join(parts)


# -- values ------------------------------------------------------------------------
PG_PW = _j("Tr0ub4dor", "&3pg")
ORACLE_PW = _j("Orc1e", "Sev3n!")
CRYPT_PW = _j("cryp7", "Me-Now")
BCRYPT_PW = _j("bcr1pt", "Plain42")
MYSQL_PW = _j("My", "Sq1-Quoted")
PGPASS = _j("PgEnv", "9x!Lm")
SSHPASS = _j("Ssh", "P4ss-word")
CURL_PW = _j("curl", "S3cret9")
NETRC_PW = _j("netrc", "Pa55wd7")
DOCKER_AUTH = base64.b64encode(_j("deploy:", "D0ckerHub!pw").encode()).decode()
SLACK_HOOK = _j("https://hooks.slack.com/services/", "T0A1B2C3D", "/B4E5F6G7H/", "aZ9yX8wV7uT6sR5qP4oN3mL2")
DISCORD_HOOK = _j("https://discord.com/api/webhooks/", "112233445566778899/", "Qw3rTy-Ui0pAs_Df9GhJkL8zXcVbNm7Qw3rTy")
SAS_SIG = _j("sv%2BHj3k9Lm2Nq5", "Rt8Wx1Yz4Ab7Cd0EfGh%3D")
AT_PW = _j("p@ss", "W0rd!")
ZH_PW = _j("Zhong", "Wen888")
DE_PW = _j("geheim", "Wort77")
ES_PW = _j("Contra", "Seña55")
RU_PW = _j("Parol", "Russk1y")
FR_PW = _j("MotDe", "Passe44")
JA_PW = _j("Nihon", "Pass66")
KO_PW = _j("Hangul", "Pw9090")
TWILIO = _j("SK", "0123456789abcdef", "0123456789abcdef")
SENDGRID = _j("SG.", "AbCdEfGhIjKlMnOpQrStUv", ".", "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfG")
SHOPIFY = _j("shpat_", "0a1b2c3d4e5f6a7b", "8c9d0e1f2a3b4c5d")
DO_TOKEN = _j("dop_v1_", "0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d", "0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d")
GROQ = _j("gsk_", "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0UvWxYz12")
LINEAR = _j("lin_api_", "Ab1Cd2Ef3Gh4Ij5Kl6Mn7", "Op8Qr9St0UvWxYz123456")
ANTHROPIC = _j("sk-ant-api03-", "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp", "Oo9Nn8Mm7Ll6Kk5")
OPENAI = _j("sk-proj-", "Q1w2E3r4T5y6U7i8O9p0", "AaSsDdFfGgHhJjKk")
GITHUB = _j("ghp_", "a1B2c3D4e5F6g7H8i9J0", "k1L2m3N4o5P6q7R8")
GITLAB = _j("glpat-", "xYz123AbC456dEf789gH")
SLACK_BOT = _j("xoxb-", "123456789012-1234567890123-", "AbCdEfGhIjKlMnOpQrSt")
NPM = _j("npm_", "a1b2c3d4e5f6g7h8i9j0", "A1B2C3D4E5F6G7H8")
HF = _j("hf_", "AbCdEfGhIjKlMnOpQr", "StUvWxYzAbCdEfGh")
AWS_ID = _j("AKIA", "Q3EXAMPLEKEYID7Z")
AWS_SECRET = _j("wJalrXUtnFEMI/K7MDENG/", "bPxRfiCYzEXAMPLEKEY")
GOOGLE = _j("AIza", "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q")
STRIPE = _j("sk_live_", "4eC39HqLyjWDarjtT1zdp7dc")
JWT = _j("eyJhbGciOiJIUzI1NiJ9", ".eyJzdWIiOiJhbGljZSJ9", ".c2lnbmF0dXJlX3Bhcn", "Rfb2ZfYV9qd3Q")
PEM_BODY = _j("MIIEowIBAAKCAQEA7x9Q", "q2w3e4r5t6y7u8i9o0p")
PEM = _j("-----BEGIN RSA ", "PRIVATE KEY-----\n", PEM_BODY, "\nAbCdEf0123\n-----END RSA ", "PRIVATE KEY-----")
AZURE_KEY = _j("Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78St90Uv12Wx34Yz56", "Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr==")
MONGO_PW = _j("M0ngo", "Atlas-Pw")
REDIS_PW = _j("R3dis", "Cache-Pw")
GENERIC_SECRET = _j("q8Zr2Lx7Vm4Np1", "Kt6Wy3Hs9Bd")
GENERIC_API_KEY = _j("f3A9kL2", "mQ7xR4tZ8vN1")
BEARER = _j("tok_", "9f8E7d6C5b4A3z2Y1x")
ASKED_PW = _j("Answer", "Pw-2468")
ASKED_PASSPHRASE = _j("Bare", "Reply!777")
PASSWORD_FIELD = _j("Field", "Pass_135")
BCRYPT_CMP_PW = _j("Cmp", "Hash-Pw51")
GO_BCRYPT_PW = _j("GoLang", "Bcr9pt")
RUBY_BCRYPT_PW = _j("Ruby", "Crypt-73")
NODE_BCRYPT_PW = _j("NodeE", "Hash!8z")
HTPASSWD_PW = _j("Ht4cc", "ess-Pw")
HTPASSWD_NB_PW = _j("Nginx", "Basic!29")
DOLLAR_PW = _j("$up3r", "S3cret!")
DOLLAR_ENV_PW = _j("$ecret", "Pa55w0rd")
AWS_PAIR_ID = _j("AKIA", "Z7EXAMPLEPAIR9QX")
AWS_PAIR_SECRET = _j("Xk8pLm2/Qr7TzWv9+Ny4", "Bc6Hd1Jf3Gs5Ka0EoPiU")
NUMERIC_API_KEY = _j("83749201", "847562019384")
NEXT_LINE_PW = _j("Next", "Line-Pw37")
SUDO_PROMPT_PW = _j("Sudo", "Prompt!64")
HERE_STRING_PW = _j("Here", "String-91")
PRINTF_SUDO_PW = _j("Printf", "Sudo-58")
STDIN_SUDO_PW = _j("Stdin", "Sudo-63")
ENCODED_PW = _j("Enc0ded", "Form-Pw5")
GCP_KEY_ID = _j("3c9f1a7e5b2d8c4f6a0e", "9b7d1f3a5c8e2b4d6f0a")

SECRETS: list[tuple[str, str, str]] = [
    ("sql-with-password", f"CREATE USER app WITH PASSWORD '{PG_PW}';", PG_PW),
    ("sql-identified-by", f"ALTER USER scott IDENTIFIED BY \"{ORACLE_PW}\";", ORACLE_PW),
    ("sql-crypt", f"UPDATE users SET pw = crypt('{CRYPT_PW}', gen_salt('bf'));", CRYPT_PW),
    ("js-bcrypt", f"const hash = await bcrypt.hash('{BCRYPT_PW}', 10);", BCRYPT_PW),
    ("mysql-p-quoted", f"mysql -u root -p'{MYSQL_PW}' shop < dump.sql", MYSQL_PW),
    ("pgpassword", f"PGPASSWORD={PGPASS} psql -h db -U app", PGPASS),
    ("sshpass", f"sshpass -p {SSHPASS} ssh deploy@box", SSHPASS),
    ("curl-u", f"curl -u admin:{CURL_PW} https://api.internal/v1/health", CURL_PW),
    ("netrc", f"machine api.internal login deploy password {NETRC_PW}", NETRC_PW),
    ("docker-auth", f'{{"auths": {{"ghcr.io": {{"auth": "{DOCKER_AUTH}"}}}}}}', DOCKER_AUTH),
    ("slack-webhook", f"post to {SLACK_HOOK} when the build breaks", SLACK_HOOK.rsplit("/", 1)[1]),
    ("discord-webhook", f"webhook: {DISCORD_HOOK}", DISCORD_HOOK.rsplit("/", 1)[1]),
    ("azure-sas", f"https://acct.blob.core.windows.net/c/f.zip?sv=2024-01-01&sp=r&sig={SAS_SIG}", SAS_SIG),
    ("url-password-at", f"git clone https://bob:{AT_PW}@git.internal/org/repo.git", AT_PW),
    ("zh-password", f"数据库密码：{ZH_PW}", ZH_PW),
    ("de-password", f"Passwort: {DE_PW}", DE_PW),
    ("es-password", f"contraseña: {ES_PW}", ES_PW),
    ("ru-password", f"пароль: {RU_PW}", RU_PW),
    ("fr-password", f"mot de passe : {FR_PW}", FR_PW),
    ("ja-password", f"パスワード：{JA_PW}", JA_PW),
    ("ko-password", f"비밀번호: {KO_PW}", KO_PW),
    ("twilio", f"TWILIO_KEY_SID={TWILIO}", TWILIO),
    ("sendgrid", f"sendgrid key {SENDGRID}", SENDGRID),
    ("shopify", f"token {SHOPIFY} for the store", SHOPIFY),
    ("digitalocean", f"doctl auth init -t {DO_TOKEN}", DO_TOKEN),
    ("groq", f"export GROQ={GROQ}", GROQ),
    ("linear", f"linear key {LINEAR}", LINEAR),
    ("anthropic", f"use {ANTHROPIC} for now", ANTHROPIC),
    ("openai", f"OPENAI_API_KEY={OPENAI}", OPENAI),
    ("github", f"git remote set-url origin https://{GITHUB}@github.com/o/r", GITHUB),
    ("gitlab", f"token {GITLAB}", GITLAB),
    ("slack-bot", f"bot token {SLACK_BOT}", SLACK_BOT),
    ("npm", f"//registry.npmjs.org/:_authToken={NPM}", NPM),
    ("huggingface", f"huggingface-cli login --token {HF}", HF),
    ("aws-id", f"aws_access_key_id = {AWS_ID}", AWS_ID),
    ("aws-secret", f"aws_secret_access_key = {AWS_SECRET}", AWS_SECRET),
    ("google", f"maps key {GOOGLE}", GOOGLE),
    ("stripe", f"STRIPE={STRIPE}", STRIPE),
    ("jwt", f"cookie session={JWT}", JWT),
    ("private-key", PEM, PEM_BODY),
    ("azure-conn", f"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={AZURE_KEY};EndpointSuffix=core.windows.net", AZURE_KEY),
    ("mongo-url", f"MONGO_URL=mongodb+srv://app:{MONGO_PW}@cluster0.mongodb.net/db", MONGO_PW),
    ("redis-url", f"redis://:{REDIS_PW}@cache:6379/0", REDIS_PW),
    ("generic-secret", f"SECRET={GENERIC_SECRET}", GENERIC_SECRET),
    ("generic-api-key", f"api_key = \"{GENERIC_API_KEY}\"", GENERIC_API_KEY),
    ("bearer", f"curl -H 'Authorization: Bearer {BEARER}' https://api.internal", BEARER),
    ("password-field", f"DB_PASSWORD={PASSWORD_FIELD}", PASSWORD_FIELD),
    # The forms learn missed on real sessions (issue 31).
    ("bcrypt-compare", f'const ok = await bcrypt.compare("{BCRYPT_CMP_PW}", user.hash);', BCRYPT_CMP_PW),
    ("go-bcrypt", f'hash, _ := bcrypt.GenerateFromPassword([]byte("{GO_BCRYPT_PW}"), bcrypt.DefaultCost)',
     GO_BCRYPT_PW),
    ("ruby-bcrypt", f"user.password_digest = BCrypt::Password.create('{RUBY_BCRYPT_PW}')", RUBY_BCRYPT_PW),
    ("node-e-bcrypt", f"node -e \"console.log(require('bcrypt').hashSync('{NODE_BCRYPT_PW}', 10))\"",
     NODE_BCRYPT_PW),
    ("htpasswd-b", f"sudo htpasswd -b -c /etc/nginx/.htpasswd admin {HTPASSWD_PW}", HTPASSWD_PW),
    ("htpasswd-nb", f"htpasswd -nbB deploy '{HTPASSWD_NB_PW}' >> auth/users", HTPASSWD_NB_PW),
    ("dollar-password-flag", f"mysql -u app --password='{DOLLAR_PW}' shop < seed.sql", DOLLAR_PW),
    ("dollar-password-env", f"DB_PASSWORD={DOLLAR_ENV_PW} ./scripts/deploy.sh", DOLLAR_ENV_PW),
    ("aws-bare-pair", f"staging user: {AWS_PAIR_ID} / {AWS_PAIR_SECRET}", AWS_PAIR_SECRET),
    ("numeric-api-key", f"the weather api key is {NUMERIC_API_KEY}", NUMERIC_API_KEY),
    # Piped into sudo's stdin by printf, or by echo to its long flag (learn.redaction.stdin_passwords).
    ("sudo-printf-pipe", f"printf '{PRINTF_SUDO_PW}\\n' | sudo -S systemctl restart nginx", PRINTF_SUDO_PW),
    ("sudo-stdin-echo", f'echo "{STDIN_SUDO_PW}" | sudo --stdin apt-get install -y nginx', STDIN_SUDO_PW),
    # A terminal's and a browser's forms (learn.redaction.password_forms).
    # The value alone on its line, as a terminal or a note leaves it: the line ends.
    ("password-next-line", f"Password:\n  {NEXT_LINE_PW}\n", NEXT_LINE_PW),
    ("sudo-prompt", f"[sudo] password for deploy: {SUDO_PROMPT_PW}", SUDO_PROMPT_PW),
    ("sudo-here-string", f"sudo -S <<< '{HERE_STRING_PW}' systemctl restart nginx", HERE_STRING_PW),
    ("url-encoded-password", f"https://sso.internal/cb?next=%2Flogin%3Fuser%3Dbob%26password%3D{ENCODED_PW}%26r%3D1",
     ENCODED_PW),
    ("gcp-private-key-id", f'  "private_key_id": "{GCP_KEY_ID}",', GCP_KEY_ID),
]

# A value given in answer to the agent asking for it: only the question says what it is.
ASKED_QUESTION = (
    "Before I deploy I need three things:\n"
    "1. Should I run the migrations now?\n"
    "2. What is the database password for staging?\n"
    "3. How long should the session token stay valid?"
)
ASKED_ANSWER = f"1. Skip for now\n2. {ASKED_PW}\n3. 12 hour"
ASKED_SINGLE_QUESTION = "What passphrase protects the deploy key?"
ASKED_SINGLE_ANSWER = ASKED_PASSPHRASE

# A question typed after the agent asked for a key: a sentence, not the key.
ASKED_KEY_QUESTION = "What is your API key for the weather service?"
ASKED_KEY_REPLY_ZH = "这个密钥在哪里可以找到？我在设置页面里没有看到"
# A key given in answer, digits only.
ASKED_NUMERIC_KEY = _j("5550192837", "4619283746")
# Passwords typed into a tool's fields: the call's summary line names them.
FORM_PW = _j("Form", "Fill-Pw64")
LOGIN_PW = _j("Login", "Tool$991")
TOOL_INPUTS: list[tuple[str, dict[str, str], str]] = [
    ("browser_type", {"element": "Password input", "ref": "e14", "text": FORM_PW}, FORM_PW),
    ("mcp__db__connect", {"host": "db.internal", "user": "app", "password": LOGIN_PW}, LOGIN_PW),
]

ALL_SECRETS: list[str] = ([s for _, _, s in SECRETS] + [ASKED_PW, ASKED_PASSPHRASE, ASKED_NUMERIC_KEY]
                          + [s for _, _, s in TOOL_INPUTS])

SHA = _j("9fceb02d0ae598e9", "5dc970b74767f19372d61af8")
SHORT_SHA = "9fceb02"
UUID = "3f2b8c1e-7d4a-4e9b-a1c2-5d6e7f8a9b0c"
SHA256 = _j("e3b0c44298fc1c149afbf4c8996fb924", "27ae41e4649b934ca495991b7852b855")
INTEGRITY = _j("sha512-", "z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg", "/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg==")

DECOYS: list[tuple[str, str, str]] = [
    ("commit-sha", f"git checkout {SHA}", SHA),
    ("short-sha", f"reverted {SHORT_SHA} on main", SHORT_SHA),
    ("uuid", f"session_id = {UUID}", UUID),
    ("checksum", f"sha256: {SHA256}  dist.tar.gz", SHA256),
    ("integrity", f'"integrity": "{INTEGRITY}"', INTEGRITY),
    ("placeholder-your", "API_KEY=YOUR_API_KEY", "YOUR_API_KEY"),
    ("placeholder-angle", "export GITHUB_TOKEN=<token>", "<token>"),
    ("placeholder-x", "STRIPE_SECRET=xxxxxxxxxxxxxxxx", "xxxxxxxxxxxxxxxx"),
    ("var-ref", "PGPASSWORD=$DB_PASSWORD psql -h db", "$DB_PASSWORD"),
    ("var-ref-braces", "mysql -u root -p${DB_PASSWORD} shop", "${DB_PASSWORD}"),
    ("environ", 'api_key = os.environ["API_KEY"]', 'os.environ["API_KEY"]'),
    ("process-env", "const apiKey = process.env.OPENAI_API_KEY;", "process.env.OPENAI_API_KEY"),
    ("curl-var", "curl -u admin:$ADMIN_PASSWORD https://api.internal", "$ADMIN_PASSWORD"),
    ("sql-param", "ALTER USER app WITH PASSWORD :new_password;", ":new_password"),
    ("prose-token", "never log the auth token, mask it in every log line", "never log the auth token, mask it in every log line"),
    ("prose-password", "rotate the database password every 90 days", "rotate the database password every 90 days"),
    ("prose-de", "Passwort: muss mindestens 12 Zeichen lang sein", "Passwort: muss mindestens 12 Zeichen lang sein"),
    ("prose-sql", "use WITH PASSWORD in the migration, never a literal", "use WITH PASSWORD in the migration, never a literal"),
    ("camel-var", "mysql -u app --password=$dbPassword shop", "$dbPassword"),
    ("php-var", "if (password_verify($password, $row['hash'])) {", "password_verify($password"),
    ("htpasswd-prompt", "htpasswd -c /etc/nginx/.htpasswd admin", "htpasswd -c /etc/nginx/.htpasswd admin"),
    ("long-number", "order 41000000007733019222 was paid twice", "41000000007733019222"),
    ("aws-id-alone-prose", "rotate the AKIA key of the ci user every quarter", "rotate the AKIA key of the ci user every quarter"),
    ("password-label-then-prose", "Password:\nwe should rotate it next week", "we should rotate it next week"),
    ("sudo-prompt-alone", "[sudo] password for deploy:", "[sudo] password for deploy:"),
    ("sudo-here-string-var", 'sudo -S <<< "$SUDO_PW" systemctl restart nginx', '"$SUDO_PW"'),
    ("sudo-printf-var", "printf '%s\\n' \"$SUDO_PW\" | sudo -S systemctl restart nginx", '"$SUDO_PW"'),
    ("echo-pipe-grep", "echo hello | grep -q hello", "echo hello | grep -q hello"),
    ("url-encoded-var", "https://sso.internal/cb?next=%2Flogin%26password%3D%24PW", "password%3D%24PW"),
    ("private-key-id-placeholder", '"private_key_id": "YOUR_KEY_ID",', "YOUR_KEY_ID"),
    # A label alone on its line, then the status, output, heading or code it introduces.
    ("label-alone-then-permission-denied", "Password:\nPermission denied", "Permission denied"),
    ("label-alone-then-access-granted", "Password:\nAccess granted", "Access granted"),
    ("label-alone-then-passed", "Password:\nPASSED", "PASSED"),
    ("label-alone-then-token-failed", "token:\nFAILED", "FAILED"),
    ("label-alone-then-enabled", "password:\n  enabled", "enabled"),
    ("label-alone-then-yaml-valuefrom", "token:\n  valueFrom", "valueFrom"),
    ("label-alone-then-bearer", "token:\n  Bearer", "Bearer"),
    ("label-alone-then-authorized", "token:\n  Authorized", "Authorized"),
    ("label-alone-then-minimum-chars", "password:\n  Minimum eight characters", "Minimum eight characters"),
    ("label-alone-then-fixed-reset", "Password:\n  Fixed reset flow", "Fixed reset flow"),
    ("label-alone-then-token-expired", "Token:\nexpired", "expired"),
    ("label-alone-then-token-revoked", "Token:\nrevoked", "revoked"),
    ("label-alone-then-expires-tomorrow", "Token:\nExpires tomorrow", "Expires tomorrow"),
    ("label-alone-then-pw-changed", "pw:\nchanged", "changed"),
    ("label-alone-then-oublie", "Mot de passe :\nOublié", "Oublié"),
    ("label-alone-then-lastpass-entry", "Password:\nLastPass entry", "LastPass entry"),
    ("label-alone-then-shared-drive", "Password:\nShared drive", "Shared drive"),
]
