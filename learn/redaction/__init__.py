"""Redaction: every secret learn can recognise in a text, replaced by a marker.

`redact(text)` (learn.redaction.redact) is a function of one text: learn's own rules
(vendor keys, labelled passwords, a URL's credentials, assignments, a password piped
to sudo) beside a maintained rule set (`scanner`), run to a fixed point. It sits low
in the layers, under the model edge: the model backends redact what an endpoint says
and what a model answers before anything else in learn reads it (learn.models.base),
and rendering a session, storing it and writing about a failure all call it.
"""
