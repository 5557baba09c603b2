"""detect-secrets' regex detectors as `scanner.live_detectors` reads them: generated, do not edit.

Regenerate after upgrading detect-secrets:
    .venv/bin/python -c 'from learn.redaction.scanner import snapshot_source as s; print(s(), end="")' > learn/redaction/scanner_snapshot.py
Used only while the installed release is VERSION (scanner._detectors).
"""

from typing import Final

VERSION: Final = '1.5.0'
# (kind, ((pattern, flags), ...))
DETECTORS: Final[tuple[tuple[str, tuple[tuple[str, int], ...]], ...]] = (
    ('aws-access-key', (
        ('(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)[0-9A-Z]{16}', 32),
        ('aws.{0,20}?(?:key|pwd|pw|password|pass|token).{0,20}?[\\\'\\"]([0-9a-zA-Z/+]{40})[\\\'\\"]', 34),
    )),
    ('artifactory-credentials', (
        ('(?:\\s|=|:|"|^)AKC[a-zA-Z0-9]{10,}(?:\\s|"|$)', 32),
        ('(?:\\s|=|:|"|^)AP[\\dABCDEF][a-zA-Z0-9]{8,}(?:\\s|"|$)', 32),
    )),
    ('azure-storage-account-access-key', (
        ('AccountKey=[a-zA-Z0-9+\\/=]{88}', 32),
    )),
    ('basic-auth-credentials', (
        ("://[^:/\\?\\#\\[\\]@!\\$\\&'\\(\\)\\*\\+,;=\\s]+:([^:/\\?\\#\\[\\]@!\\$\\&'\\(\\)\\*\\+,;=\\s]+)@", 32),
    )),
    ('cloudant-credentials', (
        ('(?:(?<=\\W)|(?<=^))(?:\\[|)(?:"|\\\'|)(?:cloudant|cl|clou)(?:_|-|)(?:api|)(?:key|pwd|pw|password|pass|token)(?:"|\\\'|)(?:\\]|)(?: *)(?:=|:|:=|=>| +|::)(?: *)(?:"|\\\'|)([0-9a-f]{64})(?:"|\\\'|)', 34),
        ('(?:(?<=\\W)|(?<=^))(?:\\[|)(?:"|\\\'|)(?:cloudant|cl|clou)(?:_|-|)(?:api|)(?:key|pwd|pw|password|pass|token)(?:"|\\\'|)(?:\\]|)(?: *)(?:=|:|:=|=>| +|::)(?: *)(?:"|\\\'|)([a-z]{24})(?:"|\\\'|)', 34),
        ('(?:https?\\:\\/\\/)[\\w\\-]+\\:([0-9a-f]{64})\\@[\\w\\-]+\\.cloudant\\.com', 34),
        ('(?:https?\\:\\/\\/)[\\w\\-]+\\:([a-z]{24})\\@[\\w\\-]+\\.cloudant\\.com', 34),
    )),
    ('discord-bot-token', (
        ('[MNO][a-zA-Z\\d_-]{23,25}\\.[a-zA-Z\\d_-]{6}\\.[a-zA-Z\\d_-]{27}', 32),
    )),
    ('github-token', (
        ('(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9_]{36}', 32),
    )),
    ('gitlab-token', (
        ('(glpat|gldt|glft|glsoat|glrt)-[A-Za-z0-9_\\-]{20,50}(?!\\w)', 32),
        ('GR1348941[A-Za-z0-9_\\-]{20,50}(?!\\w)', 32),
        ('glcbt-([0-9a-fA-F]{2}_)?[A-Za-z0-9_\\-]{20,50}(?!\\w)', 32),
        ('glimt-[A-Za-z0-9_\\-]{25}(?!\\w)', 32),
        ('glptt-[A-Za-z0-9_\\-]{40}(?!\\w)', 32),
        ('glagent-[A-Za-z0-9_\\-]{50,1024}(?!\\w)', 32),
        ('gloas-[A-Za-z0-9_\\-]{64}(?!\\w)', 32),
    )),
    ('ibm-cos-hmac-credentials', (
        ('(?:(?<=\\W)|(?<=^))(?:\\[|)(?:"|\\\'|)(?:(?:ibm)?[-_]?cos[-_]?(?:hmac)?|)(?:_|-|)(?:secret[-_]?(?:access)?[-_]?key)(?:"|\\\'|)(?:\\]|)(?: *)(?:=|:|:=|=>| +|::)(?: *)(?:"|\\\'|)([a-f0-9]{48}(?![a-f0-9]))(?:"|\\\'|)', 34),
    )),
    ('ibm-cloud-iam-key', (
        ('(?:(?<=\\W)|(?<=^))(?:\\[|)(?:"|\\\'|)(?:ibm(?:_|-|)cloud(?:_|-|)iam|cloud(?:_|-|)iam|ibm(?:_|-|)cloud|ibm(?:_|-|)iam|ibm|iam|cloud|)(?:_|-|)(?:api|)(?:_|-|)(?:key|pwd|password|pass|token)(?:"|\\\'|)(?:\\]|)(?: *)(?:=|:|:=|=>| +|::)(?: *)(?:"|\\\'|)([a-zA-Z0-9_\\-]{44}(?![a-zA-Z0-9_\\-]))(?:"|\\\'|)', 34),
    )),
    ('json-web-token', (
        ('eyJ[A-Za-z0-9-_=]+\\.[A-Za-z0-9-_=]+\\.?[A-Za-z0-9-_.+/=]*?', 32),
    )),
    ('mailchimp-access-key', (
        ('[0-9a-z]{32}-us[0-9]{1,2}', 32),
    )),
    ('npm-tokens', (
        ('\\/\\/.+\\/:_authToken=\\s*((npm_.+)|([A-Fa-f0-9-]{36})).*', 32),
    )),
    ('openai-token', (
        ('sk-[A-Za-z0-9-_]*[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}', 32),
    )),
    ('private-key', (
        ('BEGIN DSA PRIVATE KEY', 32),
        ('BEGIN EC PRIVATE KEY', 32),
        ('BEGIN OPENSSH PRIVATE KEY', 32),
        ('BEGIN PGP PRIVATE KEY BLOCK', 32),
        ('BEGIN PRIVATE KEY', 32),
        ('BEGIN RSA PRIVATE KEY', 32),
        ('BEGIN SSH2 ENCRYPTED PRIVATE KEY', 32),
        ('PuTTY-User-Key-File-2', 32),
    )),
    ('pypi-token', (
        ('pypi-AgEIcHlwaS5vcmc[A-Za-z0-9-_]{70,}', 32),
        ('pypi-AgENdGVzdC5weXBpLm9yZw[A-Za-z0-9-_]{70,}', 32),
    )),
    ('sendgrid-api-key', (
        ('SG\\.[a-zA-Z0-9_-]{22}\\.[a-zA-Z0-9_-]{43}', 32),
    )),
    ('slack-token', (
        ('xox(?:a|b|p|o|s|r)-(?:\\d+-)+[a-z0-9]+', 34),
        ('https://hooks\\.slack\\.com/services/T[a-zA-Z0-9_]+/B[a-zA-Z0-9_]+/[a-zA-Z0-9_]+', 98),
    )),
    ('softlayer-credentials', (
        ('(?:(?<=\\W)|(?<=^))(?:\\[|)(?:"|\\\'|)(?:softlayer|sl)(?:_|-|)(?:api|)(?:_|-|)(?:key|pwd|password|pass|token)(?:"|\\\'|)(?:\\]|)(?: *)(?:=|:|:=|=>| +|::)(?: *)(?:"|\\\'|)([a-z0-9]{64})(?:"|\\\'|)', 34),
        ('(?:http|https)://api.softlayer.com/soap/(?:v3|v3.1)/([a-z0-9]{64})', 34),
    )),
    ('square-oauth-secret', (
        ('sq0csp-[0-9A-Za-z\\\\\\-_]{43}', 32),
    )),
    ('stripe-access-key', (
        ('(?:r|s)k_live_[0-9a-zA-Z]{24}', 32),
    )),
    ('telegram-bot-token', (
        ('\\d{8,10}:[0-9A-Za-z_-]{35}', 32),
    )),
    ('twilio-api-key', (
        ('AC[a-z0-9]{32}', 32),
        ('SK[a-z0-9]{32}', 32),
    )),
)
