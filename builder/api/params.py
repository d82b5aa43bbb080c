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


def resolve(operation: Operation, data: ReleaseData, path: dict[str, str], query: Sequence[tuple[str, str]]) -> Params:
    """Validated, canonical parameters of a request, or ApiError (400 / 404 / 422) saying what is wrong."""
    known = {p.name for p in operation.params if p.location == "query"}
    for name, _ in query:
        if name not in known:
            raise _unknown_parameter(name, known)
    params: Params = {}
    if "packId" in path:  # the path's parameters: the pack, the ticker explained
        params["packId"] = path["packId"]
        _check_pack(operation, data, params["packId"])
    if "ticker" in path:
        params["ticker"] = _ticker(path["ticker"])
    for param in operation.params:  # the query's parameters but the view's: the versions a diff compares
        if param.location != "query" or param.name in ("managers", "mode"):
            continue
        value = _single(param, query)
        if value is None:
            continue
        if param.name == "from":
            params["from"] = value
        elif param.name == "to":
            params["to"] = value
        else:
            raise AssertionError(f"{param.name!r} is no canonical parameter: declare it in wire.Params")
    if operation.view:
        params.update(_view(data, params.get("packId", PACK_ID), query))
    return params


def _unknown_parameter(name: str, known: set[str]) -> ApiError:
    """unknown_parameter, naming the right one when `name` is the other operations' name for it."""
    refused = f"unknown query parameter {name!r}"
    right = _other_name(name, known, ErrorCode.UNKNOWN_PARAMETER, refused, "parameter")
    return right or ApiError(400, ErrorCode.UNKNOWN_PARAMETER, refused, {"parameter": name})


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
            f"pack {pack_id!r} does not support {operation.id}",
            {"packId": pack_id, "feature": operation.feature},
        )


def _single(param: Param, query: Sequence[tuple[str, str]]) -> str | None:
    values = [value for name, value in query if name == param.name]
    if not values:
        if param.required:
            raise ApiError(
                400,
                ErrorCode.MISSING_PARAMETER,
                f"query parameter {param.name!r} is required",
                {"parameter": param.name},
            )
        return None
    if len(values) > 1 or not re.fullmatch(param.schema["pattern"], values[0]):  # fullmatch: `$` admits a final \n
        raise ApiError(400, ErrorCode.INVALID_PARAMETER, f"invalid value for {param.name!r}", {"parameter": param.name})
    return values[0]


def _ticker(value: str) -> str:
    ticker = value.strip().upper()
    if not re.match(TICKER_PATTERN, ticker):
        raise ApiError(
            400, ErrorCode.INVALID_TICKER, "a ticker is 1–12 letters, digits, '.' or '-'", {"ticker": value[:32]}
        )
    return ticker


def _view(data: ReleaseData, pack_id: str, query: Sequence[tuple[str, str]]) -> Params:
    raw_managers = [value for name, value in query if name == "managers"]
    modes = [value for name, value in query if name == "mode"]
    if pack_id != PACK_ID:  # a preview has one view, the complete dataset: mode=any (the API default) names it
        if raw_managers or modes not in ([], [DEFAULT_MODE]):
            raise ApiError(
                400, ErrorCode.VIEW_NOT_SUPPORTED, f"pack {pack_id!r} takes no view parameters", {"packId": pack_id}
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
            f"unknown manager id(s): {', '.join(unknown[:10])}",
            {"unknown": unknown[:10], "allowed": every},
        )
    selected = sorted(set(ids))
    return [] if set(selected) == set(every) else selected


def _check_body(operation_id: str, schema: dict[str, Any], body: Any) -> None:
    """ApiError 400 invalid_body for the first schema error of `body`, naming the shape expected or the right field."""
    fields = schema["properties"]
    for name in body if isinstance(body, dict) else ():
        if name not in fields:
            right = _other_name(name, fields, ErrorCode.INVALID_BODY, f"invalid request body at {name}", "path")
            if right is not None:
                raise right
    error = next(
        iter(sorted(body_validator(operation_id).iter_errors(body), key=lambda e: list(e.absolute_path))), None
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
    _check_body(operation.id, operation.body, body)
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
