"""The words of the OpenAPI document: error codes, status texts and the decisions the contract left open."""

from __future__ import annotations

from builder.api.wire import GET_CACHE_CONTROL, POST_CACHE_CONTROL, ErrorCode

# Every error.code: the status it comes with and what it means (docs/api.md, "Errors and codes", shows the same table).
ERROR_CODES: dict[ErrorCode, tuple[int, str]] = {
    ErrorCode.INVALID_PARAMETER: (
        400,
        "A query parameter has an invalid value (pattern, repeated, empty manager id), or a tool argument that is an "
        "array given as one value (details.expected says the shape).",
    ),
    ErrorCode.MALFORMED_REQUEST: (400, "Not a readable HTTP request: a request line or header field over 64 KiB."),
    ErrorCode.UNKNOWN_PARAMETER: (
        400,
        "A query parameter (an MCP tool's argument) the operation does not take: details.valid lists those it takes, "
        "details.expected names the right one for the other operations' name of it (managerIds here is managers), "
        "and the message the tool that serves what it looked for (a version: explainPosition's version, "
        "compareVersions' from and to).",
    ),
    ErrorCode.MISSING_PARAMETER: (
        400,
        "A required parameter is missing (compareVersions: from, to); the message says where its values are listed.",
    ),
    ErrorCode.UNKNOWN_MANAGER: (400, "A manager id the pack does not have; details list the allowed ids."),
    ErrorCode.INVALID_MODE: (400, "mode is not one of any, overlap, exclusive, disagreement."),
    ErrorCode.VIEW_NOT_SUPPORTED: (400, "View parameters sent to a preview pack, which has no views."),
    ErrorCode.INVALID_VERSION_ORDER: (400, "'from' is not an earlier version than 'to'."),
    ErrorCode.INVALID_TICKER: (400, "The ticker is not 1–12 letters, digits, '.' or '-'."),
    ErrorCode.MALFORMED_JSON: (400, "The POST body is not valid JSON."),
    ErrorCode.INVALID_BODY: (
        400,
        "The POST body breaks its schema: details.path says where, details.expected the shape or field expected "
        "(managers here is managerIds).",
    ),
    ErrorCode.NESTING_TOO_DEEP: (400, "The POST body nests arrays and objects deeper than details.limit levels."),
    ErrorCode.UNSUPPORTED_MEDIA_TYPE: (400, "The POST body is not sent as application/json."),
    ErrorCode.UNKNOWN_ETHOS: (400, "An ethosIds entry that listEthos does not list."),
    ErrorCode.PACK_NOT_FOUND: (
        404,
        "No available pack with this id (planned packs included); details.available lists those there are.",
    ),
    ErrorCode.VERSION_NOT_FOUND: (
        404,
        "A version id that listPackVersions does not list; details.available lists them, newest first.",
    ),
    ErrorCode.POSITION_NOT_FOUND: (
        404,
        "The selected view held the ticker neither in the version explained nor the one before; details.heldIn lists "
        "the quarters whose view did hold it (empty: none of this release's versions) and details.heldInVersions their "
        "version ids, to pass as version.",
    ),
    ErrorCode.ROUTE_NOT_FOUND: (404, "No route at this path."),
    ErrorCode.METHOD_NOT_ALLOWED: (405, "The route exists but not for this method; Allow lists the methods."),
    ErrorCode.PAYLOAD_TOO_LARGE: (413, "The POST body exceeds the size limit."),
    ErrorCode.FEATURE_NOT_SUPPORTED: (422, "The pack does not support the operation (only 13f-copycat does)."),
    ErrorCode.INTERNAL_ERROR: (500, "An unexpected failure; the message never shows paths or traces."),
    ErrorCode.RELEASE_UNAVAILABLE: (503, "No consumable release: none promoted, or a file fails its manifest hash."),
}
# Codes only a request body can cause, and codes only a query string or path can cause.
BODY_CODES = frozenset(
    {
        ErrorCode.MALFORMED_JSON,
        ErrorCode.INVALID_BODY,
        ErrorCode.UNSUPPORTED_MEDIA_TYPE,
        ErrorCode.UNKNOWN_ETHOS,
        ErrorCode.NESTING_TOO_DEEP,
    }
)
URL_CODES = frozenset(
    {
        ErrorCode.INVALID_PARAMETER,
        ErrorCode.UNKNOWN_PARAMETER,
        ErrorCode.MISSING_PARAMETER,
        ErrorCode.INVALID_MODE,
        ErrorCode.VIEW_NOT_SUPPORTED,
        ErrorCode.INVALID_VERSION_ORDER,
        ErrorCode.INVALID_TICKER,
        ErrorCode.PACK_NOT_FOUND,
        ErrorCode.VERSION_NOT_FOUND,
        ErrorCode.ROUTE_NOT_FOUND,
    }
)
STATUS_TEXT = {
    200: "OK.",
    304: "Not Modified: If-None-Match lists the current ETag (lists, W/ weak comparison and * accepted). No body.",
    400: "Invalid request.",
    404: "Not found.",
    413: "The request body exceeds the size limit.",
    422: "The pack does not support this operation (only 13f-copycat does).",
    503: "No consumable release (none promoted, or a file fails its manifest hash): every route answers 503 then.",
}
GET_NOTE = (
    f"Conditional GET: a 200 carries a strong ETag and Cache-Control: {GET_CACHE_CONTROL} (caches store it "
    "and revalidate every time); If-None-Match with that ETag answers 304 with no body."
)
POST_NOTE = (
    f"Computed live: Content-Type application/json and a body are required, unknown fields and any query "
    "parameter are 400, the size "
    f"is bounded (413). Not cacheable: Cache-Control: {POST_CACHE_CONTROL}, no ETag."
)
UNAVAILABLE_NOTE = "Like every route, answers 503 release_unavailable while no release is consumable."
