"""Fetching the operator's sources from the network: the only code here that talks to EDGAR or OpenFIGI.

In: packs.toml (managers, window, `[source] user_agent`), base URLs, the source tree on disk. Out: the SEC's Form 13F
data sets in `sec13f-datasets/` and complete `sec13f/<cik>/<accession>.txt` files (each checked, fsynced, renamed),
and `securities.csv` rows from OpenFIGI.
Beside `builder.sources` in the stage order: it may read a downloaded file with the sources' parsers to
check it; nothing in sources, research, api, release or export imports it.
"""
