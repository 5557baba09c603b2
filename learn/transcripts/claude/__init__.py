"""Claude Code's JSONL format: from a line of bytes to a public event.

- `wire`: the Structs a line decodes into (a union tagged on "type").
- `decode`: lines to wire records, tolerating whatever a line holds.
- `events`: wire records to the public events of `learn.transcripts.models`;
  `entry_details`: the typed details of system and attachment entries.
- `literals`: the protocol strings Claude Code writes, matched verbatim.
- `print_result`: the payload `claude -p --output-format json` prints.
"""
