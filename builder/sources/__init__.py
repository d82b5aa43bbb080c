"""Read: the operator's source tree (bytes) → validated, frozen records.

In: packs.toml, securities.csv, the 13F filings under sec13f/ and the preview packs' disclosure and
forum files. Out: `builder.records.Sources` — filings, securities, preview sources with their settings,
provenance of every file, scope warnings — or every fatal `SourceProblem` at once. Readers parse and
check; they never compute research (no thresholds, no scores), never reach a network, and import none of
research, api, release, export or server.
"""
