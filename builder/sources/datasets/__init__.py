"""The SEC's Form 13F data sets (sec13f-datasets/*.zip) → `Witnesses`: every filer's long-equity holding of the
pack's CUSIPs at each quarter end.

In: the data-set zips as the SEC publishes them, read in place (never extracted). Out: `Witnesses`, one
`SourceProblem` naming a zip that is hostile or malformed, and progress lines. `members` opens an archive and
streams its tables within limits, `infotable` aggregates INFOTABLE with pyarrow, `cache` keeps what one zip
yields by its sha256, `books` applies amendments and units, `filers` reads the filings, `reader` ties them together (`read` holds its result type) (`read_witnesses`).
"""
