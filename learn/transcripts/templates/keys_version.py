"""The version of the keys the session index stores beside each session's turns.

A module of its own: every listing checks it against each stored entry
(`learn.index.indexed.entry_version`), and importing `entries` for it cost a warm
`learn sessions` ~6 ms of its 0.3 s.
"""

from typing import Final

# Bump when a key is worked out or stored differently (`entries`, `keys`): stored
# keys of another version are not used (the index reads their files again).
KEYS_VERSION: Final = 3  # 3: a turn filled into a command or prompt body is known
