"""Research: records → plain JSON-ready payloads, pure (no I/O, no clock, no randomness).

In: `builder.records` (filings, securities, preview sources) and settings. Out: the 13f-copycat
artifacts and their versions (`artifact`, `holdings`, `versions`), views and diffs (`views`, `diff`),
the research methods over a view (`methods/`: ethos, policy, explanation, audit) and the preview packs
(`previews/`). Research raises its own `ResearchError`s; the API layer maps them to envelopes.
"""
