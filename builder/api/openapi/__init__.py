"""The OpenAPI 3.1 document of /api/v1, generated from the operation table.

In: `builder.api.contract.OPERATIONS` and the research modules' constants (modes, ethos ids, check
ids). Out: the document as a dict (`document.openapi_document`), rendered into each release by the
release step and served from it like every other answer. `schemas` generates the component schemas from
the payload types (builder.typed), the preview packs' among them; `glossary` and `contexts` describe them;
`text` holds the prose (error-code table, notes).
"""
