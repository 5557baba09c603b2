"""The records the layers hand to each other: pure data, importing only the utilities.

- `candidate`: what mining and the detectors produce (`MinedCandidate`, its kind,
  one session's verified candidates).
- `proposal`: what the reduce stage produces and the store keeps (`Proposal`,
  `Quote`, `Verdict`, `Funnel`, `RunUsage`, `RunResult`).

They sit below the store so that it can record them without importing the stages
that make them.
"""
