"""The wire format of /api/v1: envelopes, error codes, headers (the bytes themselves: builder.canonical)."""

from __future__ import annotations

import enum
from typing import Annotated, Any, Generic, Literal, NotRequired, TypedDict, TypeVar, get_args

from builder.research.errors import NotInView, ResearchError, UnknownEthos
from builder.research.views import Mode
from builder.typed import Keywords

ApiVersion = Literal["v1"]
API_VERSION: ApiVersion = "v1"
ContractVersion = Literal["0.1.0"]
CONTRACT_VERSION: ContractVersion = get_args(ContractVersion)[0]
API_PREFIX = "/api/v1"
JSON_TYPE = "application/json"
# Caches may store GET answers but must revalidate each time (the ETag makes that a cheap 304);
# no-cache rather than a max-age because a promotion can change any answer at any moment.
GET_CACHE_CONTROL = "public, no-cache"
POST_CACHE_CONTROL = "no-store"
# A GET answer may be sent compressed by a static host (the export's .gz/.br variants): caches must key on it.
GET_VARY = "Accept-Encoding"
# Every answer, from `ras serve` and from the static export alike: the API version, no MIME sniffing, and
# CORS for any origin (the data is public and read-only; no credentials are ever accepted, so `*` is safe).
COMMON_HEADERS = {
    "X-Service-API-Version": API_VERSION,
    "X-Content-Type-Options": "nosniff",
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Expose-Headers": "ETag, X-Service-API-Version",
}
# Request lines and header fields up to 64 KiB reach the app, so an oversized query (thousands of `managers`)
# is answered by our validation with the envelope; longer ones are refused by the HTTP parser.
MAX_LINE_BYTES = 64 * 1024


# A request's canonical parameters (builder.api.params): what the handlers read, each present only when the request
# gives it (a default never is). `from` is a keyword: the functional form.
Params = TypedDict(
    "Params",
    {
        "packId": str,
        "managers": list[str],
        "mode": Mode,
        "ticker": str,
        "version": str,
        "from": str,
        "to": str,
        "ethosIds": list[str],
        "tickers": list[str],
    },
    total=False,
)


class ErrorCode(enum.StrEnum):
    """Every `error.code` the service answers with; stable, documented in the OpenAPI document."""

    INVALID_PARAMETER = "invalid_parameter"
    MALFORMED_REQUEST = "malformed_request"
    UNKNOWN_PARAMETER = "unknown_parameter"
    MISSING_PARAMETER = "missing_parameter"
    UNKNOWN_MANAGER = "unknown_manager"
    INVALID_MODE = "invalid_mode"
    VIEW_NOT_SUPPORTED = "view_not_supported"
    INVALID_VERSION_ORDER = "invalid_version_order"
    INVALID_TICKER = "invalid_ticker"
    MALFORMED_JSON = "malformed_json"
    INVALID_BODY = "invalid_body"
    NESTING_TOO_DEEP = "nesting_too_deep"
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
    UNKNOWN_ETHOS = "unknown_ethos"
    PACK_NOT_FOUND = "pack_not_found"
    VERSION_NOT_FOUND = "version_not_found"
    POSITION_NOT_FOUND = "position_not_found"
    ROUTE_NOT_FOUND = "route_not_found"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    PAYLOAD_TOO_LARGE = "payload_too_large"
    FEATURE_NOT_SUPPORTED = "feature_not_supported"
    RELEASE_UNAVAILABLE = "release_unavailable"
    INTERNAL_ERROR = "internal_error"


class ApiError(Exception):
    """An answer other than 200: its status, stable code and a message safe to show (no paths, no traces)."""

    def __init__(self, status: int, code: ErrorCode, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details


# Research's refusals as the API answers them: one vocabulary for REST, MCP and the precomputed answers.
RESEARCH_ERRORS: dict[type[ResearchError], tuple[int, ErrorCode]] = {
    UnknownEthos: (400, ErrorCode.UNKNOWN_ETHOS),
    NotInView: (404, ErrorCode.POSITION_NOT_FOUND),
}


def api_error(error: ResearchError) -> ApiError:
    """The API error of a research refusal."""
    status, code = RESEARCH_ERRORS[type(error)]
    return ApiError(status, code, error.message, error.details)


class ApiMeta(TypedDict):
    apiVersion: ApiVersion
    contractVersion: ContractVersion
    capability: str
    deprecated: Literal[False]


def meta(capability: str) -> ApiMeta:
    return {
        "apiVersion": API_VERSION,
        "contractVersion": CONTRACT_VERSION,
        "capability": capability,
        "deprecated": False,
    }


Data = TypeVar("Data")  # an operation's payload: each enveloped operation's component names its own


class Envelope(TypedDict, Generic[Data]):
    """Every 200 answer of an enveloped operation: its payload and the meta (OpenAPI: <OperationId>Response)."""

    data: Data
    meta: ApiMeta


class ErrorDetail(TypedDict):
    """An error: its stable code, a message for people, details."""

    code: Annotated[
        str,
        Keywords(
            description="Stable machine-readable code (the examples are this status's codes today; see "
            "info.description for the table)."
        ),
    ]
    message: Annotated[str, Keywords(description="For people; safe to show: never paths or stack traces.")]
    details: NotRequired[
        Annotated[
            dict[str, Any],
            Keywords(description="Which parameter, id or body path is at fault, when the code alone does not say."),
        ]
    ]


class ErrorEnvelope(TypedDict):
    """Every answer other than 200 and 304 (contract section 2.1)."""

    error: ErrorDetail
    meta: ApiMeta


def success(capability: str, data: Data) -> Envelope[Data]:
    return {"data": data, "meta": meta(capability)}


def failure(capability: str, error: ApiError) -> ErrorEnvelope:
    detail: ErrorDetail = {"code": str(error.code), "message": error.message}
    if error.details:
        detail["details"] = error.details
    return {"error": detail, "meta": meta(capability)}
