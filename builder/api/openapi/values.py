"""The values a release accepts, as enums: pack ids, manager ids, version ids and ethos ids of one release.

The document is rendered into each release, so its parameters can list exactly the ids that release
answers for: a generated client or an agent reads the valid values instead of provoking a 400 to learn them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from builder.api.contract import Operation, Param
from builder.api.data import ReleaseData
from builder.api.methods import census_of
from builder.research.methods.ethos import ETHOS_IDS
from builder.research.versions import PACK_ID
from builder.research.views import DEFAULT_MODE

Schema = dict[str, Any]


@dataclass(frozen=True, slots=True)
class ReleaseValues:
    """The ids of one release that requests may name."""

    packs: tuple[str, ...]  # available packs, catalog order
    features: dict[str, tuple[str, ...]]  # pack id → the features it supports
    managers: tuple[str, ...]
    versions: tuple[str, ...]  # 13f-copycat versions, oldest first
    ticker: str | None  # the largest holding of the latest complete view: an example explainPosition answers

    def packs_for(self, operation: Operation) -> list[str]:
        """The packs an operation answers 200 for: every available pack, or those with its feature."""
        return [pack for pack in self.packs if operation.feature is None or operation.feature in self.features[pack]]


def release_values(data: ReleaseData) -> ReleaseValues:
    available = [pack for pack in data.index["packs"] if pack["status"] == "available"]
    return ReleaseValues(
        packs=tuple(pack["id"] for pack in available),
        features={pack["id"]: tuple(pack["features"]) for pack in available},
        managers=tuple(manager["id"] for manager in data.index["copycat"]["managers"]),
        versions=tuple(data.versions),
        ticker=_largest_holding(data),
    )


def _largest_holding(data: ReleaseData) -> str | None:
    """The default view's ticker of the largest value, from the latest version's census (a view's rows are each
    position again: at 2,000 managers hundreds of megabytes, where the census is what a publish already keeps)."""
    found = census_of(data, data.versions[-1], [])
    tickers = found.tickers(DEFAULT_MODE)
    return min(tickers, key=lambda ticker: (-found.values[ticker], ticker)) if tickers else None


def _with_enum(schema: Schema, values: list[str] | tuple[str, ...]) -> Schema:
    """`schema` (a string schema) narrowed to `values`; the pattern stays, so the schema still says the shape."""
    return {**schema, "enum": list(values)}


def parameter_schema(param: Param, operation: Operation, values: ReleaseValues | None) -> Schema:
    """A parameter's schema in the document of one release: ids enumerated where the release knows them."""
    schema = dict(param.schema)
    if values is None:
        return schema
    if param.name == "packId":
        return _with_enum(schema, values.packs_for(operation))
    if param.name in ("from", "to", "version"):
        return _with_enum(schema, values.versions)
    if param.name == "managers":
        return {**schema, "items": _with_enum(schema["items"], values.managers)}
    return schema


def body_schema(body: Schema, values: ReleaseValues | None) -> Schema:
    """A request body's schema with manager, pack and ethos ids enumerated for one release."""
    properties = dict(body["properties"])
    properties["packId"] = _with_enum(properties["packId"], [PACK_ID])
    if "ethosIds" in properties:
        ethos = properties["ethosIds"]
        properties["ethosIds"] = {**ethos, "items": _with_enum(ethos["items"], ETHOS_IDS)}
    if values is not None:
        managers = properties["managerIds"]
        properties["managerIds"] = {**managers, "items": _with_enum(managers["items"], values.managers)}
    return {**body, "properties": properties}


def parameter_example(param: Param, operation: Operation, values: ReleaseValues | None) -> Any:
    """An example that this release answers 200 for, or None when the release gives none."""
    if values is None:
        return None
    examples: dict[str, Any] = {
        "packId": PACK_ID,
        "managers": list(values.managers[:2]),
        "from": values.versions[-2] if len(values.versions) > 1 else None,
        "to": values.versions[-1],
        "version": values.versions[-2] if len(values.versions) > 1 else None,
        "ticker": values.ticker,
    }
    return examples.get(param.name)
