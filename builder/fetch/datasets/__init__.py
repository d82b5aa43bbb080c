"""The SEC's Form 13F data sets for `ras fetch`: every filer's 13F tables, one zip a filing window.

In: the SEC's data-set page (the list of sets, read, never built from a pattern), the window's quarter ends, a base
URL. Out: the zips covering the window under the SEC's own names in sec13f-datasets/ of the source tree, each whole
(resumable, checked, fsynced, renamed), and `.fetched.csv` beside them recording each one's size, sha256 and URL.
`page` reads the page, `download` runs the sets of a fetch, `transfer` brings one, `check` decides whether it is a
whole set, `progress` says how it moves.
"""
