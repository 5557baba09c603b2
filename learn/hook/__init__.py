"""The SessionEnd hook: mine a session in the background when it ends, so that
`/learn` finds every session mined and only reduces.

event.py reads Claude Code's hook input, queue.py is the on-disk queue of ended
sessions, worker.py drains it in a detached process, settings.py installs the
hook into Claude Code's settings.json.
"""
