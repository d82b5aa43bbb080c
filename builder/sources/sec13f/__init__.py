"""SEC Form 13F-HR and 13F-HR/A filings → `Filing` records.

In: a manager's files as EDGAR serves them (primary document + information table, complete submission
text files, .nc feed files), nested freely. Out: one `Filing` per filing with rows as filed, the unit rule
applied and summary-page checks as scope warnings; files that are not 13F documents are refused or skipped
by rule, never half-parsed. `document` parses XML, `submission` splits text files, `pairing` matches loose
documents, `rules` decides units and amendments, `filings` walks a manager's folder; `writer` writes the
same formats back (fixtures, synthetic benchmarks).
"""
