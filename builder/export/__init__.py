"""Export: the promoted release as a static-host tree.

In: a loaded release (`builder.release.store`). Out: a directory a CDN or nginx serves byte for byte
like `ras serve` — one file per precomputed GET answer (`tree`), its .gz/.br variants (`variants`),
and the host configuration: nginx.conf with its route map, `_headers` and `_redirects` (`config`,
`routes`, `templates/`).
"""
