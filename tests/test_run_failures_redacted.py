"""A run's failures go through secret redaction before they are printed or stored.

A failure quotes the model client's error, and an error can quote what the request
carried: a proxy echoing the key in a 400's message went to the terminal and into
the run's record whole."""

from __future__ import annotations

import json
from pathlib import Path

from fakes.http_server import RecordedRequest, Reply
from test_e2e_robust import FaultyServer
from test_e2e_run import _env, _learn

from evals.corpora import demo

KEY = "sk-ant-api03-" + "Qw3rTy7Ui9Op1As2Df4Gh6Jk8Lz0Xc5Vb7Nm9Qa2Ws4Ed6Rf8Tg0Yh2Uj4Ik6Ol8Pz0Aq1" + "-bcdEFgAA"


class EchoingProxy(FaultyServer):
    """Fails every mining call with a 400 that quotes the key back."""

    def default_reply(self, request: RecordedRequest) -> Reply:
        if request.tool_name == "record_candidates":
            return self.error_reply(400, message=f"invalid x-api-key header: {KEY}")
        return super().default_reply(request)


def test_a_failure_quoting_the_key_is_printed_and_stored_redacted(tmp_path: Path) -> None:
    root = tmp_path / "home"
    gold = demo.build(root)
    with EchoingProxy(gold) as fake:
        done = _learn(["run", "--all-projects", "--since", "2026-01-01", "--json", "--yes"],
                      _env(root, fake))
    assert done.returncode == 1, done.stderr  # mining failed: the run says so
    result = json.loads(done.stdout)
    assert result["failures"] and any("invalid x-api-key header" in f for f in result["failures"])
    assert KEY not in done.stdout and KEY not in done.stderr
    for stored in (root / "data").rglob("*"):
        if stored.is_file():
            assert KEY.encode() not in stored.read_bytes(), stored
