"""Fetching the operator's sources from the network: the only code here that talks to EDGAR or OpenFIGI.

In: packs.toml (managers, window, `[source] user_agent`), base URLs, the source tree on disk. Out: complete
`sec13f/<cik>/<accession>.txt` files (checked, fsynced, renamed) and `securities.csv` rows from OpenFIGI.
Beside `builder.sources` in the stage order: it may read a downloaded file with the sources' parsers to
check it; nothing in sources, research, api, release or export imports it.
"""
