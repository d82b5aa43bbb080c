"""Review: what a built release changes relative to the promoted one, before anyone promotes it.

In: two release directories (the candidate and the one it is measured against, by default the promoted
one). Out: a `Review` (`compare`), its terminal text and the gates it trips (`text`), and one
self-contained HTML page with inline SVG charts (`page`). Read-only: a review never writes a release.
"""
