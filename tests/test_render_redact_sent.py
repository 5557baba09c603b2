"""Item 17 end to end: what a person typed with a secret in it reaches the model redacted.

`learn run` over the fidelity case 17-redaction (its expect.json pairs each typed turn
with the text the endpoint must receive), the real anthropic SDK against the fake
Messages server, and what learn stored on disk afterwards.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from fakes.anthropic_server import FakeAnthropicServer
from fixtures.fidelity import corpus

REPO = Path(__file__).resolve().parents[1]
CASE = "17-redaction"


def test_typed_secrets_reach_the_model_redacted_and_sentences_about_passwords_whole(tmp_path: Path) -> None:
    spec = json.loads((corpus.CASES / CASE / "expect.json").read_text())
    home, _ = corpus.install(CASE, tmp_path)
    with FakeAnthropicServer() as fake:
        env = corpus.env_for(home)
        env.update(fake.env(), PYTHONPATH=str(REPO))
        proc = subprocess.run(
            [sys.executable, "-m", "learn", "run", "--all-projects", "--since", "2026-01-01", "--json",
             "--yes", "--quiet", "--backend", "anthropic"],
            env=env, capture_output=True, text=True, timeout=300, cwd=home, check=False,
        )
        assert proc.returncode == 0, proc.stderr
        sent = "\n".join(r.user_text for r in fake.requests)
    assert sent
    for pair in spec["redacted"]:
        # Each turn arrives as the redacted form, whole: nothing around a secret is eaten.
        assert pair["sent"] in sent, pair["sent"]
    raw = b"".join(r.raw for r in fake.requests).decode("utf-8", "replace")
    for secret in spec["secrets"]:
        assert secret not in raw and json.dumps(secret)[1:-1] not in raw, secret[:6]
    written = b"".join(
        p.read_bytes() for d in (".learn-data", ".learn-cache") for p in (home / d).rglob("*") if p.is_file()
    )
    for secret in spec["secrets"]:
        assert secret.encode() not in written, secret[:6]
