"""learn's own secret shapes: vendor keys, and passwords as commands, SQL and config write them.

The maintained rule set (`learn.redaction.scanner`, detect-secrets' vendor rules) knows
about two dozen vendors and nothing of how a password sits in a shell or SQL line.
Tried on 51 planted secrets, that library alone found 27; what it missed is here:
keys of vendors it has no rule for (prefix-shaped, so a prefix is a safe anchor),
and the places a password is written in the tool lines of real sessions (`CREATE
USER ... WITH PASSWORD '...'`, `crypt('...', gen_salt('bf'))`, `curl -u user:pw`,
`.netrc`, Docker's `auth`, a webhook URL, an Azure SAS `sig=`, a password label in
another language).

Each rule is (kind, pattern): a pattern with a group named `val` replaces that group
only (the name, the command and the quotes stay, so the line still reads); one
without replaces the whole match.
"""

from __future__ import annotations

import re
from typing import Final

from learn.lazy import lazy_pattern

# Prefix-shaped tokens, gitleaks-style: each prefix is the vendor's own, so a match is
# a key whatever surrounds it. Kinds name the vendor, so the model still knows what
# the person was configuring. The third item: words one of which the text must contain
# for the rule to run (a substring test is ~100x cheaper than a regex scan), looked for
# in the lower-cased text, or as written for a word with capitals.
VENDOR_RULES: Final[tuple[tuple[str, re.Pattern[str], tuple[str, ...]], ...]] = tuple(
    (kind, lazy_pattern(pattern), gate)
    for kind, pattern, gate in (
        ("xai-key", r"\bxai-[A-Za-z0-9]{32,}", ('xai-',)),
        ("groq-key", r"\bgsk_[A-Za-z0-9]{32,}", ('gsk_',)),
        ("perplexity-key", r"\bpplx-[A-Za-z0-9]{32,}", ('pplx-',)),
        ("replicate-token", r"\br8_[A-Za-z0-9]{32,}", ('r8_',)),
        ("tavily-key", r"\btvly-(?:dev-|prod-)?[A-Za-z0-9]{20,}", ('tvly-',)),
        ("langsmith-key", r"\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\b", ('lsv2_',)),
        ("shopify-token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b", ('shpat_', 'shpca_', 'shppa_', 'shpss_')),
        ("digitalocean-token", r"\bdo[opr]_v1_[a-f0-9]{64}\b", ('_v1_',)),
        ("linear-key", r"\blin_(?:api|oauth)_[A-Za-z0-9]{40,}", ('lin_',)),
        ("doppler-token", r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}", ('dp.',)),
        ("mailgun-key", r"\bkey-[0-9a-f]{32}\b", ('key-',)),
        ("square-token", r"\b(?:sq0atp|EAAA)[A-Za-z0-9_-]{22,60}", ('sq0atp', 'eaaa')),
        ("postman-key", r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b", ('pmak-',)),
        ("atlassian-token", r"\bATATT3[A-Za-z0-9_=-]{50,}", ('atatt3',)),
        ("notion-token", r"\b(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{40,})\b", ('secret_', 'ntn_')),
        ("supabase-token", r"\bsbp_[a-f0-9]{40}\b", ('sbp_',)),
        ("databricks-token", r"\bdapi[a-f0-9]{32}(?:-\d)?\b", ('dapi',)),
        ("pulumi-token", r"\bpul-[a-f0-9]{40}\b", ('pul-',)),
        ("terraform-token", r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}", ('.atlasv1.',)),
        ("grafana-token", r"\b(?:glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})", ('glc_', 'glsa_')),
        ("vault-token", r"\bhv[sbr]\.[A-Za-z0-9_-]{24,}", ('hvs.', 'hvb.', 'hvr.')),
        ("age-key", r"\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b", ('age-secret-key-1',)),
        ("stripe-webhook-secret", r"\bwhsec_[A-Za-z0-9]{32,}", ('whsec_',)),
        ("slack-token", r"\bxapp-\d-[A-Za-z0-9-]{20,}", ('xapp-',)),
        ("azure-client-secret", r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])", ('q~',)),
        ("figma-token", r"\bfigd_[A-Za-z0-9_-]{40}", ('figd_',)),
        ("rubygems-key", r"\brubygems_[a-f0-9]{48}\b", ('rubygems_',)),
        ("dockerhub-token", r"\bdckr_pat_[A-Za-z0-9_-]{27,}", ('dckr_pat_',)),
        ("sentry-token", r"\b(?:sntrys_[A-Za-z0-9+/=]{40,}|sntryu_[a-f0-9]{64}\b)", ('sntrys_', 'sntryu_')),
        ("alibaba-key", r"\bLTAI[A-Za-z0-9]{12,20}\b", ('ltai',)),
        ("heroku-key", r"\bHRKU-[A-Za-z0-9_-]{60}", ('hrku-',)),
        ("newrelic-key", r"\bNRAK-[A-Z0-9]{27}\b", ('nrak-',)),
        ("google-oauth-secret", r"\bGOCSPX-[A-Za-z0-9_-]{28}", ('gocspx-',)),
        ("google-oauth-token", r"\bya29\.[0-9A-Za-z_-]{20,}", ('ya29.',)),
        ("mapbox-token", r"\bsk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}", ('sk.eyj',)),
        # Gated on the prefix as written: "sk" and "ac" lower-cased are in most texts
        # ("ask", "back"), and this scan of 664 of a 6 MB session's texts was 24 ms.
        ("twilio-key", r"\b(?:SK|AC)[0-9a-f]{32}\b", ('SK', 'AC')),
        ("sendgrid-key", r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b", ('sg.',)),
        ("telegram-token", r"\b\d{8,10}:AA[0-9A-Za-z_-]{33}\b", (':aa',)),
        ("pypi-token", r"\bpypi-AgE[A-Za-z0-9_-]{50,}", ('pypi-age',)),
        # A PuTTY key file names its private lines; everything from the header to the MAC.
        ("private-key", r"(?s)PuTTY-User-Key-File-\d:.*?(?:Private-MAC:[ \t]*\S+|\Z)", ('putty-user-key-file',)),
    )
)

# A quoted or bare value on a command line: whichever of val/val2/val3 matched is replaced.
_VALUE: Final = r"""(?:'(?P<val>[^'\n]+)'|"(?P<val2>[^"\n]+)"|(?P<val3>[^\s'";|&)]+))"""

# (kind, pattern, words one of which the lower-cased text must contain). The gate
# words keep plain text from paying for every pattern (see redact.redact).
CONTEXT_RULES: Final[tuple[tuple[str, re.Pattern[str], tuple[str, ...]], ...]] = tuple(
    (kind, lazy_pattern(pattern), gate)
    for kind, pattern, gate in (
        # SQL: CREATE/ALTER USER|ROLE ... [WITH] [ENCRYPTED] PASSWORD '...', and SET PASSWORD = '...'.
        # (`password = '...'` is the assignment rule's, which knows a sentence from a value.)
        ("password", r"(?i)\bpassword[ \t]+(?:N|E)?'(?P<val>[^'\n]+)'", ("password",)),
        # MySQL/Oracle: IDENTIFIED [WITH plugin] BY [PASSWORD] '...'; a bare word only when the
        # keywords are SQL's capitals or the line creates/alters a user ("identified by the
        # id" is prose in every API doc).
        ("password", r"(?i)\bidentified[ \t]+(?:with[ \t]+\S+[ \t]+)?by[ \t]+(?:password[ \t]+)?"
                     r"(?:'(?P<val>[^'\n]+)'|\"(?P<val2>[^\"\n]+)\")", ("identified",)),
        ("password", r"\bIDENTIFIED[ \t]+(?:WITH[ \t]+\S+[ \t]+)?BY[ \t]+(?:PASSWORD[ \t]+)?"
                     r"(?P<val3>(?![?:$'\"])[^\s;'\"]+)", ("identified",)),
        ("password", r"(?im)^[ \t]*(?:create|alter)[ \t]+user\b[^\n;]*?\bidentified[ \t]+by[ \t]+"
                     r"(?P<val3>(?![?:$'\"])[^\s;'\"]+)", ("identified",)),
        # A password hashed or checked in code or SQL, its first argument a literal:
        # crypt('pw', gen_salt(...)), bcrypt.hash('pw', 10), bcrypt.compare("pw", h),
        # bcrypt.hashpw(b'pw', ...), Go's GenerateFromPassword([]byte("pw"), ...), Ruby's
        # BCrypt::Password.create('pw'), generate_password_hash('pw'), make_password('pw').
        ("password", r"(?i)(?:\bcrypt|\bbcrypt(?:js)?\.(?:hash|hashSync|hashpw|compare|compareSync)"
                     r"|\bhashpw|\bhashSync|\bargon2\.(?:hash|verify)|\bGenerateFromPassword"
                     r"|\bPassword\.create|\bhash_pwd_salt|\bgenerate_password_hash|\bmake_password"
                     r"|\bpassword_hash|\bhash_password|\bset_password)"
                     r"\(\s*(?:\[\]byte\(\s*)?b?(?:'(?P<val>[^'\n]+)'|\"(?P<val2>[^\"\n]+)\")",
         ("crypt", "hash", "password")),
        # curl/wget credentials: -u user:pw, --user user:pw, --user=user:pw.
        ("password", r"(?:curl|wget|http)\b[^\n|;&]*?[ \t](?:-u|--user|--proxy-user)(?:[ \t]+|=)"
                     r"['\"]?[^\s:'\"]*:(?P<val>(?!\[)[^\s'\"]+)", ("curl", "wget", "http")),
        # Command-line password flags of database and admin clients.
        ("password", r"\b(?:redis-cli|mongo(?:sh|dump|restore)?|rabbitmqctl|influx|mysqlsh)\b[^\n|;&]*?[ \t]"
                     r"(?:-a|-p|--pass(?:word)?)[ \t]+(?!-)" + _VALUE,
         ("redis-cli", "mongo", "rabbitmqctl", "influx", "mysqlsh")),
        ("password", r"(?i)--(?:password|passwd|pass|http-password|ftp-password|db-password)(?:[ \t]+|=)"
                     r"(?!-)" + _VALUE,
         ("--pass",)),
        # Clients' own password flags (the third privacy audit): `docker login -p`,
        # `ldapsearch -w` (`-W` prompts), `sqlcmd -P`, keytool's `-storepass`/`-keypass`
        # (`-storepass:env VAR` names a variable), openssl's `-passin pass:PW`, Samba's
        # `-U user%PW`, `gh secret set NAME --body VALUE`.
        ("password", r"\b(?:docker|podman|nerdctl|buildah|skopeo|helm[ \t]+registry)[ \t]+login\b[^\n|;&]*?"
                     r"[ \t]-p[ \t]+(?!-)" + _VALUE,
         ("docker", "podman", "nerdctl", "buildah", "skopeo", "helm")),
        ("password", r"\bldap(?:search|add|modify|delete|passwd|compare|modrdn|whoami|exop)\b[^\n|;&]*?"
                     r"[ \t]-w[ \t]*(?!-)" + _VALUE, ("ldap",)),
        ("password", r"\b(?:sqlcmd|bcp|osql)\b[^\n|;&]*?[ \t]-P[ \t]*(?!-)" + _VALUE,
         ("sqlcmd", "bcp", "osql")),
        ("password", r"(?<![\w-])-(?:src|dest)?(?:store|key)pass[ \t]+(?!-)" + _VALUE,
         ("storepass", "keypass")),
        ("password", r"(?<![\w-])-(?:passin|passout|pass)[ \t]+['\"]?pass:(?P<val>[^\s'\";|&)]+)", ("pass:",)),
        ("password", r"\b(?:smbclient|rpcclient|smbcacls|smbget|smbtree|smbmap|mount\.cifs)\b[^\n|;&]*?"
                     r"[ \t](?:-U|--user(?:name)?)(?:[ \t]+|=)['\"]?[^\s%'\"]*%(?P<val>(?!\[)[^\s'\"]+)",
         ("smb", "rpcclient", "mount.cifs")),
        ("secret", r"\bgh[ \t]+secret[ \t]+set\b[^\n|;&]*?[ \t](?:--body|-b)(?:[ \t]*=?[ \t]*)(?!-)" + _VALUE,
         ("gh secret",)),
        # `vault login <token>` (a legacy `s.` token; `hvs.` ones are a vendor rule).
        ("vault-token", r"\bvault[ \t]+login\b(?:[ \t]+-\S+)*[ \t]+"
                        r"(?P<val>[sbr]\.[A-Za-z0-9]{24,}|(?=[A-Za-z0-9._-]*\d)[A-Za-z0-9._-]{16,})(?=[\s'\"]|\Z)", ("vault",)),
        # A Cookie header's pairs, and curl's `-b`/`--cookie name=value`: a session.
        ("cookie", r"(?i)\b(?:set-)?cookie[\"']?[ \t]*:[ \t]*"
                   r"(?P<val>[^\s=;\"',]+=[^\s;\"']+(?:;[ \t]*[^\s=;\"',]+=[^\s;\"']*)*)", ("cookie",)),
        ("cookie", r"\bcurl\b[^\n|;&]*?[ \t](?:-b|--cookie)[ \t]+['\"]?(?P<val>[^\s=;\"']+=[^\s\"']+)",
         ("curl",)),
        # .netrc: machine host login user password pw (one line or several).
        ("password", r"(?i)\b(?:machine|default)\b[ \t\r\n]+(?:\S+[ \t\r\n]+)?(?:login[ \t\r\n]+\S+[ \t\r\n]+)?"
                     r"password[ \t\r\n]+(?P<val>(?![<\[])\S+)", ("machine", "default")),
        # A key named in prose or a config line, its value a key's shape: "the api key is
        # 8374...", "API token: 9f...". (`api_key = ...` is the assignment rule's.)
        ("api-key", r"(?i)\b(?:api[ \t]+(?:key|token)|access[ \t]+(?:key|token)|secret[ \t]+key"
                    r"|auth[ \t]+token|license[ \t]+key)(?:[ \t]+(?:is|was)[ \t]+|[ \t]*[:=][ \t]*|[ \t]+)"
                    r"[\"'`]?(?P<val>(?=[A-Za-z0-9_./+=-]*\d)[A-Za-z0-9_./+=-]{16,})",
         ("api", "access", "secret", "auth", "license")),
        # Docker's config.json: "auth": "<base64 of user:pw>", "identitytoken": "...".
        ("docker-auth", r"(?i)\"(?:auth|identitytoken|registrytoken)\"\s*:\s*\"(?P<val>[^\"\s]{8,})\"",
         ("auth", "token")),
        # A GCP service account's key file: `"private_key_id": "<40 hex>"` names the key
        # (its `private_key` is a PEM block, the token rules' own). Only the id's shape:
        # `"private_key_id": "YOUR_KEY_ID"` is a template.
        ("private-key-id", r"(?i)private_key_id\\?[\"']?\s*[:=]\s*\\?[\"']?(?P<val>[0-9a-f]{40})(?![0-9a-z])",
         ("private_key_id",)),
        # Webhook URLs: the path is the credential.
        ("webhook-url", r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{20,}",
         ("hooks.slack",)),
        ("webhook-url", r"https://(?:(?:canary|ptb)\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{20,}",
         ("discord",)),
        ("webhook-url", r"https://[A-Za-z0-9.-]*\.webhook\.office\.com/webhookb2/[A-Za-z0-9@/._-]{20,}",
         ("webhook.office",)),
        # Signed URLs: an Azure SAS `sig=`, S3/GCS presigned signatures and session tokens.
        ("signature", r"(?i)[?&;](?:sig|x-amz-signature|x-amz-security-token|x-goog-signature)"
                      r"=(?P<val>[A-Za-z0-9%+/=_-]{16,})", ("sig", "signature", "token")),
        ("signature", r"(?i)\bSharedAccessSignature=(?P<val>[^\s;\"']{16,})", ("sharedaccesssignature",)),
    )
)

# A password label in the languages people write to agents in, then `:`/`：`/`=`.
# The English labels are handled by redact's own field rules.
PASSWORD_LABELS: Final = (
    "密码", "密碼", "口令", "passwort", "kennwort", "contraseña", "contrasena", "clave",
    "пароль", "mot de passe", "mdp", "パスワード", "暗証番号", "비밀번호", "암호", "senha",
    "wachtwoord", "hasło", "haslo", "şifre", "sifre", "parola", "mật khẩu", "mat khau",
    "รหัสผ่าน", "كلمة المرور", "סיסמה", "पासवर्ड", "lösenord", "adgangskode", "passord",
    "salasana", "jelszó", "heslo", "κωδικός",
)
LABELLED_PASSWORD_RE: Final = lazy_pattern(
    r"(?i)(?<![A-Za-z0-9_])(?P<label>" + "|".join(re.escape(w) for w in PASSWORD_LABELS) + r")"
    r"(?P<sep>[ \t]*[:：=][ \t]*|[ \t]*(?:ist|es|est|är|er|on|jest|é|is)[ \t]+|[ \t]*(?:是|は)[ \t]*)"
    r"[\"'“「『]?(?P<val>[^\s\"'”」』，。、；！？,;]+)"
)
