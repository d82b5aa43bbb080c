"""The API: the one operation table and everything generated from it.

In: `ReleaseData` (`data`: what a release knows) and a request's parameters. Out: payloads and their
envelopes. `contract` is the table of the eleven operations (routes, tools, statuses, parameters,
precomputed requests); `params` canonicalises a request; `handlers` and `methods` compute each
operation's `data`; `shapes` declares their wire shapes as TypedDicts, from which `typed` generates
JSON Schemas; `render` wraps it in the envelope of `wire` and maps research errors to codes;
`openapi/` generates the OpenAPI 3.1 document. It reads no files: release and server hand it the data.
"""
