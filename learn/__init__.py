"""learn: find what you keep telling your coding agent, and propose it as rules.

Importing the package stays cheap on purpose: `learn --help` must answer fast,
so nothing heavy (anthropic, numpy, sklearn, onnxruntime) is imported here.
"""

__version__ = "0.1.0"
