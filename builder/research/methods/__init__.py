"""Research methods over one view of a 13f-copycat version: ethos scores, policy checks, explanations, audit.

In: a view (from `research.views`), its artifact and the artifacts before it. Out: JSON-ready payloads,
the same for a precomputed GET and a live POST, or a `ResearchError` (unknown ethos, ticker not in view).
"""
