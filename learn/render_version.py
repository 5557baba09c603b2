"""The render and redaction versions, importable without what they version.

An index entry or a cached mining answer is used only under the versions it
was made with. Checking a warm `learn sessions`'s entries imported the whole
render package for two integers (the secret rules, compiled: 45 ms of the
0.3 s a warm listing has, issue 21), so they live here, apart from it.
"""

from __future__ import annotations

from typing import Final

# Part of the render version: what the model saw changes when the rules do, so
# cached mining answers are not reused across rule sets (learn.redaction.redact).
# 2: maintained rule set, SQL/shell/config forms, labels in two dozen languages;
# 3: `$`-leading passwords, htpasswd -b, hash calls of every language, an AWS secret
#    beside its id, numeric and prose-named API keys;
# 4: an AWS secret after its id when a commit's hash comes before the id (it was
#    kept: stored index rows that hold one are read again).
# 5: the third privacy audit's spellings: shell-escaped JSON, `sudo -S` and other
#    stdin passwords, clients' password flags, a token as a URL's user, SECRET_KEY_BASE
#    and other names, quoted passphrases, `=>`, non-ASCII separators, continued keys,
#    cookies (stored index rows that hold one are read again).
# 6: a password on the line after its label, typed after a sudo/git prompt, in a
#    here-string to `sudo -S`, in a form body encoded twice (`%26password%3D…`), and a
#    GCP key file's `private_key_id`.
# 7: a password piped into sudo's stdin by printf or to `sudo --stdin`, several words
#    echoed into it, and a plain word or passphrase on the line after a label that is
#    its line's whole text (`Password:`, `Passwort:`, `Mot de passe :`, `token:`).
# 8: a password piped to `sudo -S` after sudo's options that take a value as the next
#    word (`--user bob`, `--prompt 'x y'`), a capitalised passphrase of three to five
#    words under a label alone (`Correct horse battery staple`), and `Try again`,
#    `connection refused` and other output under it no longer taken for a passphrase.
# 9: a value a rule caught anywhere in a session is out of every text of that session
#    (learn.render.session_values): the bare token a tool error echoes after the
#    `Bearer` that named it, a password typed again (stored index rows that hold one
#    are read again); a reply to a question that names a password, a key or a token
#    with no verb of asking (`Password for the reporting user?`) read as an answer.
REDACT_VERSION: Final = 9

# Bump when rendering changes in a way that changes what the model sees,
# so old cached candidates (mined from a different rendering) are re-mined.
# 2: tool paths relative to the project; 3: slash-command label; then + the redaction
# rules' own version (what the model sees changes with them, and so must the caches).
# 4: the readers' round of 2026-12 (view versions 14-15): Codex 0.171's prompts (none was
#    sent before), a Codex shell output past its header, its aborted calls, Claude Code
#    2.1.332's untagged /code-review record as a command's. Not bumped with them, the
#    upgrade kept every cached answer of a finished rollout, mined from text with no
#    prompt in it (upgrade audit, 2026-12); sessions whose text did not change reuse
#    theirs under what was sent (learn.mining.cache.rendered_key), no call.
RENDER_VERSION: Final = 4 + REDACT_VERSION - 1
