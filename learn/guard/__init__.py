"""learn's check: one fixed program, run by the agent before each shell command, that
stops (or, record-only, notes) the commands a person told the agent never to run,
in any spelling a shell accepts.

shell.py takes a command line apart as a shell would; rules.py is the data file of
rules and what a rule matches; flags.py how a word of a command is compared with a
rule's flag (a long option's prefix, short and long spellings of one option); hook.py
is the program (`python -m learn.guard`). lines.py is what the shell does to a script before splitting words (continuations,
comments, heredocs); runners.py the programs that run a command from their arguments.
Standard library only, and of the rest of learn only learn.hook_input (how every
hook reads its stdin) and, for a session outside the project's folder (a sibling
worktree), learn.projects.checkout: the check starts on every shell call and must
cost what a Python start costs.
"""
