"""learn's Claude Code hooks. SessionEnd: mine a session in the background when it
ends, so that `/learn` finds every session mined and only reduces. InstructionsLoaded:
record which instruction file a session loaded, and why (loads.py).

event.py reads Claude Code's hook input, queue.py is the on-disk queue of ended
sessions, worker.py drains it in a detached process (worker_output.py redacts what that
process prints), settings.py installs the hooks into Claude Code's settings.json.
"""

from typing import Final

# Set in the environment of what learn's own hook worker starts (a `claude -p`
# call, should its hooks not be disabled): every hook of those sessions returns
# at once, so learn never mines or records its own sessions and never recurses.
WORKER_ENV: Final = "LEARN_HOOK_WORKER"
