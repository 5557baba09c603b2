"""Switch off what dependencies would send or write about this machine, before they load.

The README promises that nothing leaves the machine except the model requests.
onnxruntime (the local MiniLM embedder) broke that: its official builds since
1.29 start a telemetry uploader on import that writes a device id and a queue of
events (OS, CPU, Python path) under ~/.cache/Microsoft/DeveloperTools/. It reads
ORT_DISABLE_TELEMETRY when the library loads, so the variable must be set before
the first `import onnxruntime` anywhere in the process: learn/__init__.py calls
`switch_off()`, and the processes learn starts inherit it.

Checked for the rest (tests/test_no_telemetry.py walks a fresh HOME around full
runs): tokenizers, scikit-learn, numpy, apsw, httpx and the anthropic SDK write
nothing and call nowhere but the model endpoint. The `claude` binary learn runs
for the claude-cli backend gets CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC (see
learn.models.claude_cli).
"""

from __future__ import annotations

import os

# Forced, not defaulted: an inherited "0" must not switch it back on.
OFF: dict[str, str] = {
    # onnxruntime >= 1.29 POSIX telemetry (1DS): no uploader, no device-id file.
    "ORT_DISABLE_TELEMETRY": "1",
    # huggingface_hub is installed beside tokenizers; should anything import it,
    # it sends no usage pings.
    "HF_HUB_DISABLE_TELEMETRY": "1",
}


def switch_off() -> None:
    os.environ.update(OFF)
