"""Canonical parameters of a request: validated against the operation table, defaults omitted.

GET query strings and POST bodies both come out as one dict per request, so equal requests have equal
canonical keys (and bytes); anything else is an ApiError with a stable code (400 / 404 / 422).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator

from builder.api.contract import BY_ID, MAX_MANAGER_VALUES, TICKER_PATTERN, Operation, Param
from builder.api.data import ReleaseData
from builder.api.wire import API_PREFIX, ApiError, ErrorCode, Params, api_error
from builder.research.errors import UnknownEthos
from builder.research.methods.ethos import canonical_ethos_ids
from builder.research.versions import PACK_ID
from builder.research.views import DEFAULT_MODE, MODES, Mode

# The view's manager ids are `managers` in a GET's query and `managerIds` in a POST's body (contract 2.4): the
# other operation's name is answered with the right one, not a bare refusal.
OTHER_NAMES = {"managerIds": "managers", "managers": "managerIds"}
# A request body's schemas nest two levels (an object of arrays of strings); deeper is not a request, and a
# bound keeps the schema validator's recursion far from Python's limit (1,000 levels answered 500 before).
MAX_DEPTH = 16
MODE_NAMES: dict[str, Mode] = {mode: mode for mode in MODES}  # a query's mode as the mode it names


# Names agents reach for that no operation takes, by what they mean: what an agent looked for under them.
VERSION_WORDS = frozenset(
    [
        "version",
        "versionid",
        "fromversion",
        "toversion",
        "quarter",
        "period",
        "date",
        "asof",
        "since",
        "until",
        "fromquarter",
        "toquarter",
    ]
)
TICKER_WORDS = frozenset(["ticker", "tickers", "symbol", "symbols", "cusip", "position"])
# The parameters that serve those meanings, by operation, and where else to look (the same words for REST and MCP).
SERVES = {
    (
        "compareVersions",
        "version",
    ): "a version id goes in 'from' (the earlier) and 'to' (the later); list_pack_versions lists them",
    ("explainPosition", "version"): "a version id goes in 'version' (omitted: the latest); list_pack_versions lists "
    "them, and compare_versions (from, to) shows what changed between two",
    ("version",): "this answers the latest version only: explain_position (ticker, version) explains a position at an "
    "earlier version and compare_versions (from, to) what changed between two; list_pack_versions lists the versions",
    ("ticker",): "explain_position (ticker, and version for an earlier one) explains one position",
}


def resolve(operation: Operation, data: ReleaseData, path: dict[str, str], query: Sequence[tuple[str, str]]) -> Params:
    """Validated, canonical parameters of a request, or ApiError (400 / 404 / 422) saying what is wrong."""
    known = {p.name for p in operation.params if p.location == "query"}
    for name, _ in query:
        if name not in known:
            raise unknown_parameter(operation, name)
    params: Params = {}
    if "packId" in path:  # the path's parameters: the pack, the ticker explained
        params["packId"] = path["packId"]
        _check_pack(operation, data, params["packId"])
    if "ticker" in path:
        params["ticker"] = _ticker(path["ticker"])
    for param in operation.params:  # the query's parameters but the view's: the versions a diff compares
        if param.location != "query" or param.name in ("managers", "mode"):
            continue
        value = _single(operation, param, query)
        if value is None:
            continue
        if param.name == "from":
            params["from"] = value
        elif param.name == "to":
            params["to"] = value
        elif param.name == "version":
            params["version"] = value
        else:
            raise AssertionError(f"{param.name!r} is no canonical parameter: declare it in wire.Params")
    if operation.view:
        params.update(_view(data, params.get("packId", PACK_ID), query))
    if data.versions and params.get("version") == data.versions[-1]:  # the latest, named: the request without it
        del params["version"]
    return params


def unknown_parameter(
    operation: Operation, name: str, code: ErrorCode = ErrorCode.UNKNOWN_PARAMETER, key: str = "parameter"
) -> ApiError:
    """An unknown parameter (`code`: unknown_parameter in a query, invalid_body in a POST's body) in the words REST
    (a query parameter, a body field) and MCP (an argument) share: the parameters the operation takes, the right one
    where `name` is another operation's name for it, and where what the name looks for is served (a version, a
    ticker)."""
    valid = list(operation.body["properties"]) if operation.body else [p.name for p in operation.params]
    takes = f"{operation.tool or operation.id} takes {', '.join(valid)}"
    refused = f"unknown parameter {name!r}: {takes}"
    right = _other_name(name, valid, code, refused, key)
    if right is not None:
        assert right.details is not None
        right.details["valid"] = valid
        return right
    word = name.lower().replace("_", "").replace("-", "")
    meaning = "version" if word in VERSION_WORDS else "ticker" if word in TICKER_WORDS else None
    served = SERVES.get((operation.id, meaning or ""), SERVES.get((meaning or "",))) if meaning else None
    if meaning == "ticker" and "ticker" in valid:
        served = None
    details: dict[str, Any] = {key: name, "valid": valid}
    if served:
        details["looksFor"] = meaning
    return ApiError(400, code, f"{refused}; {served}" if served else refused, details)


def missing_parameter(operation: Operation, name: str) -> ApiError:
    """missing_parameter in the words REST and MCP share, naming where its values are listed."""
    where = VALUES_LISTED.get(name, "")
    return ApiError(
        400,
        ErrorCode.MISSING_PARAMETER,
        f"parameter {name!r} is required: {operation.tool or operation.id} takes {', '.join(p.name for p in operation.params)}"
        + (f"; {where}" if where else ""),
        {"parameter": name},
    )


# Where an agent finds the values a parameter takes (the next step after a missing or invalid one).
VALUES_LISTED = {
    "from": "list_pack_versions lists the version ids, newest first",
    "to": "list_pack_versions lists the version ids, newest first",
    "version": "list_pack_versions lists the version ids, newest first",
    "packId": "list_packs lists the packs",
    "ticker": "get_latest_pack lists the view's largest holdings and trades",
    "managers": "get_latest_pack lists the manager ids",
}


def _other_name(name: str, known: Collection[str], code: ErrorCode, refused: str, key: str) -> ApiError | None:
    """The 400 for the manager ids under the other operations' name (managerIds in a query, managers in a body),
    naming the right one; None for any other name."""
    right = OTHER_NAMES.get(name)
    if right not in known:
        return None
    where = "a POST body" if name == "managerIds" else "a GET's query"
    return ApiError(
        400,
        code,
        f"{refused}: here the manager ids are {right!r} (an array of manager ids); {name!r} is their name in {where}",
        {key: name, "expected": right},
    )


def _check_pack(operation: Operation, data: ReleaseData, pack_id: str) -> None:
    pack = data.pack(pack_id)
    if pack is None or pack["status"] != "available":
        available = [p["id"] for p in data.index["packs"] if p["status"] == "available"]
        what = f"pack {pack_id!r} is planned, not served yet" if pack is not None else f"no pack {pack_id!r}"
        raise ApiError(
            404,
            ErrorCode.PACK_NOT_FOUND,
            f"{what}; list_packs (GET {API_PREFIX}/packs) lists the packs; available now: {', '.join(available)}",
            {"packId": pack_id, "available": available},
        )
    if operation.feature and operation.feature not in pack["features"]:
        raise ApiError(
            422,
            ErrorCode.FEATURE_NOT_SUPPORTED,
            f"pack {pack_id!r} does not support {operation.tool or operation.id}: only {PACK_ID} does (get_latest_pack "
            f"answers {pack_id})",
            {"packId": pack_id, "feature": operation.feature},
        )


def _single(operation: Operation, param: Param, query: Sequence[tuple[str, str]]) -> str | None:
    values = [value for name, value in query if name == param.name]
    if not values:
        if param.required:
            raise missing_parameter(operation, param.name)
        return None
    if len(values) > 1 or not re.fullmatch(param.schema["pattern"], values[0]):  # fullmatch: `$` admits a final \n
        where = VALUES_LISTED.get(param.name)
        raise ApiError(
            400,
            ErrorCode.INVALID_PARAMETER,
            f"invalid value for {param.name!r}: one value"
            + (f"; {where}" if where else f" matching {param.schema['pattern']}"),
            {"parameter": param.name},
        )
    return values[0]


def _ticker(value: str) -> str:
    ticker = value.strip().upper()
    if not re.match(TICKER_PATTERN, ticker):
        raise ApiError(
            400,
            ErrorCode.INVALID_TICKER,
            f"a ticker is 1–12 letters, digits, '.' or '-' (an unmapped security's CUSIP too); {VALUES_LISTED['ticker']}",
            {"ticker": value[:32]},
        )
    return ticker


def _view(data: ReleaseData, pack_id: str, query: Sequence[tuple[str, str]]) -> Params:
    raw_managers = [value for name, value in query if name == "managers"]
    modes = [value for name, value in query if name == "mode"]
    if pack_id != PACK_ID:  # a preview has one view, the complete dataset: mode=any (the API default) names it
        if raw_managers or modes not in ([], [DEFAULT_MODE]):
            raise ApiError(
                400,
                ErrorCode.VIEW_NOT_SUPPORTED,
                f"pack {pack_id!r} takes no view parameters: leave out managers and mode (only {PACK_ID} has views)",
                {"packId": pack_id},
            )
        return {}
    params: Params = {}
    managers = canonical_managers(data, raw_managers)
    if managers:
        params["managers"] = managers
    if len(modes) > 1 or (modes and modes[0] not in MODES):
        raise ApiError(400, ErrorCode.INVALID_MODE, f"mode must be one of {', '.join(MODES)}", {"allowed": list(MODES)})
    mode = MODE_NAMES[modes[0]] if modes else DEFAULT_MODE
    if mode != DEFAULT_MODE:
        params["mode"] = mode
    return params


def canonical_managers(data: ReleaseData, values: Sequence[str]) -> list[str]:
    """Trimmed, de-duplicated, sorted manager ids; [] for all managers. Unknown or empty ids are a 400."""
    ids = [part.strip() for value in values for part in value.split(",")]
    if len(ids) > MAX_MANAGER_VALUES:
        raise ApiError(
            400, ErrorCode.INVALID_PARAMETER, f"at most {MAX_MANAGER_VALUES} manager ids", {"parameter": "managers"}
        )
    if any(not manager for manager in ids):
        raise ApiError(400, ErrorCode.INVALID_PARAMETER, "empty manager id in 'managers'", {"parameter": "managers"})
    every = [m["id"] for m in data.index["copycat"]["managers"]]
    unknown = sorted(set(ids) - set(every))
    if unknown:
        raise ApiError(
            400,
            ErrorCode.UNKNOWN_MANAGER,
            f"unknown manager id(s): {', '.join(unknown[:10])}; the manager ids are {', '.join(every[:20])}"
            + (f" and {len(every) - 20} more (get_latest_pack lists them)" if len(every) > 20 else ""),
            {"unknown": unknown[:10], "allowed": every},
        )
    selected = sorted(set(ids))
    return [] if set(selected) == set(every) else selected


def _check_body(operation: Operation, body: Any) -> None:
    """ApiError 400 invalid_body for the first schema error of `body`, naming the shape expected, or for a field the
    body has no place for, the fields it takes (unknown_parameter's words)."""
    assert operation.body is not None, operation.id
    fields = operation.body["properties"]
    for name in body if isinstance(body, dict) else ():
        if name not in fields:
            raise unknown_parameter(operation, name, ErrorCode.INVALID_BODY, "path")
    error = next(
        iter(sorted(body_validator(operation.id).iter_errors(body), key=lambda e: list(e.absolute_path))), None
    )
    if error is None:
        return
    where = "/".join(str(part) for part in error.absolute_path) or "(body)"
    details: dict[str, Any] = {"path": where}
    message = error.message[:200]
    if error.validator == "type":
        details["expected"] = shape(error.schema)
        message = f"expected {details['expected']}, not {type_name(error.instance)}"
    raise ApiError(400, ErrorCode.INVALID_BODY, f"invalid request body at {where}: {message}", details)


def shape(schema: Any) -> str:
    """A JSON Schema's type in words, for an error message: 'an array of strings'."""
    kind = schema.get("type") if isinstance(schema, dict) else None
    if kind == "array":
        return f"an array of {schema.get('items', {}).get('type', 'value')}s"
    return {"object": "an object", "string": "a string", "integer": "an integer"}.get(str(kind), f"type {kind}")


def type_name(value: Any) -> str:
    """The JSON type of a decoded value, in words."""
    for kind, name in ((bool, "a boolean"), (str, "a string"), (int, "a number"), (float, "a number")):
        if isinstance(value, kind):
            return name
    return "an object" if isinstance(value, dict) else "an array" if isinstance(value, list) else "null"


@cache
def body_validator(operation_id: str) -> Draft202012Validator:
    """The request-body validator of a POST operation, compiled once."""
    body = BY_ID[operation_id].body
    assert body is not None, operation_id  # a POST operation's
    return Draft202012Validator(body)


def check_depth(value: Any, limit: int = MAX_DEPTH) -> None:
    """ApiError 400 nesting_too_deep when `value` nests arrays or objects more than `limit` levels deep."""
    level, todo = 0, [value]
    while todo:
        todo = [
            item
            for node in todo
            if isinstance(node, (dict, list))
            for item in (node.values() if isinstance(node, dict) else node)
        ]
        level += 1
        if level >= limit and any(isinstance(node, (dict, list)) for node in todo):
            raise ApiError(
                400,
                ErrorCode.NESTING_TOO_DEEP,
                f"arrays and objects nested deeper than {limit} levels",
                {"limit": limit},
            )


def resolve_body(operation: Operation, data: ReleaseData, body: Any) -> Params:
    """Validated, canonical parameters of a POST body, or ApiError (400 / 422)."""
    assert operation.body is not None, operation.id
    check_depth(body)
    _check_body(operation, body)
    pack_id = body.get("packId", PACK_ID)
    if pack_id != PACK_ID:
        raise ApiError(
            422,
            ErrorCode.FEATURE_NOT_SUPPORTED,
            f"pack {pack_id!r} does not support {operation.id}",
            {"packId": pack_id, "feature": operation.feature},
        )
    params: Params = {}
    managers = canonical_managers(data, body.get("managerIds", [])) if body.get("managerIds") else []
    if managers:
        params["managers"] = managers
    if body.get("mode", DEFAULT_MODE) != DEFAULT_MODE:
        params["mode"] = body["mode"]
    if "ethosIds" in operation.body["properties"]:
        try:
            params["ethosIds"] = canonical_ethos_ids(body.get("ethosIds", []))
        except UnknownEthos as refusal:
            raise api_error(refusal) from refusal
        params["tickers"] = sorted({ticker.upper() for ticker in body.get("tickers", [])})
    return params
