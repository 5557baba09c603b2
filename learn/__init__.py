"""learn: find what you keep telling your coding agent, and propose it as rules.

Importing the package stays cheap on purpose: `learn --help` must answer fast,
so nothing heavy (anthropic, numpy, sklearn, onnxruntime) is imported here.
It does switch off dependencies' telemetry first (learn.no_telemetry), so that
no later import anywhere in the process can start it.
"""

from learn.no_telemetry import switch_off

switch_off()

__version__ = "0.1.0"
