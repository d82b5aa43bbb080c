"""The PackArtifact: its type, declared once, and the JSON Schema generated from it; validate against it.

The TypedDicts below are the artifact's shape for the checker, the source of its JSON Schema (builder.typed
.json_schema: the constraints are their Annotated keywords, a definition's description its docstring) and the
targets other payloads' schemas refer to (an explanation's change is an artifact position plus who holds it).
builder/schemas/pack-artifact.schema.json is the same schema written out for readers outside the code
(`python -m scripts.artifact_schema`; tests/test_artifact_schema.py holds it to the types).
"""

from __future__ import annotations

import functools
import json
from typing import Annotated, Any, Literal, TypedDict

import jsonschema_rs
import orjson
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from builder.records import ActionKind, Amendment, FormType, Origin, PutCall, ShareType, ValueUnit
from builder.typed import BARE, ONE_OF, TYPE_LIST, Fraction, Keywords, Schema, json_schema

SCHEMA_FILE = "pack-artifact.schema.json"
DISCRIMINATOR = "kind"  # the property that selects a change record's branch of its oneOf
DEFS = "#/$defs/"

# The schema's named definitions a field refers to ($defs/date, count, cusip, text): distinct objects, so that a
# payload naming one refers to the artifact's component, and one writing typed.Count inlines its own.
ArtifactDate = Annotated[str, Keywords(format="date", pattern="^[0-9]{4}-[0-9]{2}-[0-9]{2}$")]
ArtifactCount = Annotated[int, Keywords(minimum=0)]
Cusip = Annotated[str, Keywords(pattern="^[0-9A-Z]{9}$")]
Text = Annotated[str, Keywords()]
Nonempty = Annotated[str, Keywords(minLength=1)]
Cik = Annotated[str, Keywords(pattern="^[0-9]{10}$")]
# The enumerations of a change, each declared here once (tests/test_enumerations.py lists them): the kinds, the
# causes and the candidate rules. A Literal made of others keeps their values in its own order.
Bought = Literal["new", "added"]  # a trade that bought shares
Sold = Literal["reduced", "exited"]  # a trade that sold shares
TradeKind = Literal["new", "added", "reduced", "unchanged", "exited"]  # a decided change: Bought, Sold or unchanged
Traded = Literal[Bought, Sold]  # a trade: the only changes counted as bought or sold
MeasuredKind = Literal[TradeKind, "converted", "undecided"]  # a change against a previous book (what a diff lists)
ChangeKind = Literal[MeasuredKind, "unknown"]  # "unknown": no previous book to measure against
TradeCause = Literal["trade", "corporate-action", "trade-and-corporate-action", "none"]  # a decided change's
Cause = Literal[TradeCause, "undecided", "unknown"]
TickerAsOf = Literal["quarter-end", "current", "unmapped"]
BookRule = Literal["confidential-omission", "received-not-reported", "received-outside-book"]  # about one book itself
CandidateRule = Literal["split", "same-issuer", "same-value", "distribution", "cash-merger", BookRule, "no-evidence"]
Ratio = Annotated[str | None, TYPE_LIST, Keywords(pattern="^[0-9.]+:[0-9.]+$")]  # new:old, as filed
Cash = Annotated[str | None, TYPE_LIST, Keywords(pattern="^[0-9]+(\\.[0-9]+)?$")]  # dollars per share, a decimal
NullableCount = Annotated[int | None, TYPE_LIST, Keywords(minimum=0)]
NullableId = Annotated[str | None, TYPE_LIST, Keywords(minLength=1)]
Decimal = Annotated[str, Keywords(pattern="^[0-9]+\\.[0-9]+$")]


class ArtifactWarning(TypedDict):
    """A scope warning and what it is about (null where it has none), so that it reaches exactly the views that
    contain it: a warning without a manager is the pack's own."""

    code: Nonempty
    message: Nonempty
    source: str
    pack: Literal["13f-copycat"]
    manager: NullableId
    quarter: ArtifactDate | None
    accession: NullableId
    cusip: Cusip | None


class SourceRow(TypedDict):
    """A filing's accession number and the 1-based row of its information table."""

    accession: Nonempty
    row: Annotated[int, Keywords(minimum=1)]


Sources = Annotated[list[SourceRow], Keywords(minItems=1)]


class ArtifactFiling(TypedDict):
    accession: Nonempty
    url: Annotated[
        str | None,
        TYPE_LIST,
        Keywords(
            description="The filing's index page on SEC EDGAR, where its documents can be checked; null when the "
            "accession number is not known or the manager is fictional.",
            pattern="^https://www\\.sec\\.gov/Archives/edgar/data/[0-9]+/[0-9]{18}/[0-9-]{20}-index\\.htm$",
        ),
    ]
    formType: Annotated[FormType, BARE]
    amendment: Annotated[Amendment, BARE]
    amendmentNo: ArtifactCount
    filed: ArtifactDate
    filedFrom: Annotated[
        str,
        Keywords(
            description="Where the filing date comes from: 'submission header', the '<path>:<line>' of the "
            "filing_dates.csv ras fetch keeps from EDGAR's listing, 'Form 13F data set (FILING_DATE)' for a filing "
            "read from the SEC's Form 13F data sets, or 'signatureDate (estimated)'.",
            minLength=1,
        ),
    ]
    source: Nonempty
    unit: Annotated[ValueUnit, BARE]
    unitRule: Nonempty
    rows: ArtifactCount
    tableEntryTotal: NullableCount
    tableValueTotal: NullableCount


class _Effective(TypedDict):
    effective: ArtifactDate


class _Dated(_Effective):
    effectiveAfter: ArtifactDate | None


class _Leg(TypedDict):
    """What a corporate-action record says, cited or in effect (after its date: a field order the schema keeps)."""

    kind: Annotated[ActionKind, BARE]
    cusip: Cusip | None
    newCusip: Cusip | None
    ratio: Ratio
    cashPerShare: Cash
    source: Nonempty
    record: Nonempty
    receivedShares: NullableCount


class ActionFields(_Effective, _Leg):
    """The fields a corporate-action record and every citation of it share (changes.actions.action_fields)."""


class CitedAction(ActionFields):
    """A corporate-action record (corporate_actions.csv) cited like a filing, with what it did to these shares."""

    text: Nonempty


class ActionEvidence(TypedDict):
    """What decided a derived record: the filers that held the security at the earlier quarter end, those whose books
    fit the event, the spread of their ratios, and where their books come from."""

    holders: ArtifactCount
    agreeing: ArtifactCount
    ratios: Annotated[list[Decimal], Keywords(minItems=2, maxItems=2)] | None
    origin: Annotated[Origin, BARE]
    sources: list[str]


class ActionRecord(_Dated, _Leg):
    """One corporate-action leg: a hand record of corporate_actions.csv, or one derived from the evidence of the
    security's holders at the quarter ends that bound it."""

    derived: bool
    evidence: ActionEvidence | None


class Candidate(TypedDict):
    """One explanation an undecided change allows, with a corporate_actions.csv line to paste once the public record
    confirms it."""

    rule: Annotated[CandidateRule, BARE]
    text: Nonempty
    record: Annotated[str | None, TYPE_LIST]


class TradeChange(TypedDict):
    """A decided change: the shares filed against the previous book carried through the corporate actions between
    the quarter ends. shareDelta is the shares traded (0 when only corporate actions moved them)."""

    kind: Annotated[TradeKind, BARE]
    previousShares: ArtifactCount
    carriedShares: ArtifactCount
    shareDelta: int
    cause: Annotated[TradeCause, BARE]
    corporateActions: list[CitedAction]
    candidates: list[Candidate]


class ConvertedChange(TypedDict):
    """A position that ended through a corporate action (merger, exchange, cash merger), not a sale."""

    kind: Literal["converted"]
    previousShares: ArtifactCount
    carriedShares: Literal[0]
    shareDelta: Literal[0]
    cause: Literal["corporate-action"]
    corporateActions: Annotated[list[CitedAction], Keywords(minItems=1)]
    candidates: list[Candidate]


class UndecidedChange(TypedDict):
    """A change the data cannot decide (it looks like an unrecorded corporate action, or borders a confidentially
    omitted filing): never counted as bought or sold; its candidates say what it may be."""

    kind: Literal["undecided"]
    previousShares: NullableCount
    carriedShares: NullableCount
    shareDelta: None
    cause: Literal["undecided"]
    corporateActions: list[CitedAction]
    candidates: Annotated[list[Candidate], Keywords(minItems=1)]


class UnknownChange(TypedDict):
    """No filing for the previous quarter: the change is not known (never 'new')."""

    kind: Literal["unknown"]
    previousShares: None
    carriedShares: None
    shareDelta: None
    cause: Literal["unknown"]
    corporateActions: Annotated[list[CitedAction], Keywords(maxItems=0)]
    candidates: Annotated[list[Candidate], Keywords(maxItems=0)]


KnownChange = TradeChange | ConvertedChange | UndecidedChange  # measured against a previous book: never unknown
Change = Annotated[KnownChange | UnknownChange, ONE_OF]  # told apart by `kind`


class PositionName(TypedDict):
    """How a version names a position: its key (the ticker, or the CUSIP when unmapped) and its security."""

    ticker: Nonempty
    mapped: bool
    tickerAsOf: Annotated[TickerAsOf, BARE]
    cusip: Cusip
    issuer: Text


class Position(PositionName):
    """A long-equity position (no options, no PRN), keyed by ticker, or by CUSIP when unmapped."""

    shares: ArtifactCount
    value: ArtifactCount
    weight: Fraction
    change: Change
    sources: Sources


class Ended(PositionName):
    """A position of the previous quarter that this quarter's book no longer holds (exited by trade, converted by a
    corporate action, or undecided); sources are the previous quarter's rows."""

    change: Change
    sources: list[SourceRow]


class OtherHolding(TypedDict):
    """An option (putCall) or principal-amount (PRN) row: kept, but not a long-equity position."""

    ticker: Nonempty
    mapped: bool
    cusip: Cusip
    issuer: Text
    putCall: Annotated[Literal[PutCall, None], BARE]
    shareType: Annotated[ShareType, BARE]
    shares: ArtifactCount
    value: ArtifactCount
    sources: Sources


class ArtifactManager(TypedDict):
    id: Nonempty
    name: str
    cik: Cik
    fictional: bool
    previousQuarterFiled: bool
    bookValue: ArtifactCount
    filings: Annotated[list[ArtifactFiling], Keywords(minItems=1)]
    positions: list[Position]
    ended: list[Ended]
    otherHoldings: list[OtherHolding]


class PackArtifact(TypedDict):
    """One version of the 13f-copycat pack: every manager's long-equity 13F book for one common quarter, its change
    against the previous quarter measured on one share basis (the previous book carried through the corporate actions
    between the quarter ends), and the source rows and records behind every number. Money is in whole dollars, share
    counts are whole numbers."""

    schema: Literal["pack-artifact/2.0"]
    packId: Literal["13f-copycat"]
    versionId: Annotated[
        str,
        Keywords(
            description="multi-manager-<quarter-end>-v<major>.<minor>; empty only before the release assigns it.",
            pattern="^(multi-manager-[0-9]{4}-[0-9]{2}-[0-9]{2}-v[0-9]+\\.[0-9]+)?$",
        ),
    ]
    quarter: ArtifactDate
    previousQuarter: ArtifactDate
    filingDeadline: ArtifactDate
    fixture: bool
    managers: list[ArtifactManager]
    corporateActions: Annotated[
        list[ActionRecord],
        Keywords(
            description="The corporate-action records in effect between the previous quarter end and this one: the "
            "operator's (corporate_actions.csv) and those the evidence of the securities' holders decided (derived), "
            "which every manager's change applies alike."
        ),
    ]
    warnings: list[ArtifactWarning]


DEFINITIONS: dict[str, Any] = {  # the schema's $defs, in its order (the OpenAPI components Artifact<Name>)
    "date": ArtifactDate,
    "count": ArtifactCount,
    "cusip": Cusip,
    "text": Text,
    "warning": ArtifactWarning,
    "sourceRow": SourceRow,
    "sources": Sources,
    "filing": ArtifactFiling,
    "corporateAction": CitedAction,
    "actionRecord": ActionRecord,
    "actionEvidence": ActionEvidence,
    "candidate": Candidate,
    "tradeChange": TradeChange,
    "convertedChange": ConvertedChange,
    "undecidedChange": UndecidedChange,
    "unknownChange": UnknownChange,
    "change": Change,
    "position": Position,
    "ended": Ended,
    "otherHolding": OtherHolding,
    "manager": ArtifactManager,
}
SCHEMA_HEAD = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "urn:research-artifact-service:schema:pack-artifact:2.0",
    "title": "PackArtifact",
}


def generated_schema() -> Schema:
    """The PackArtifact's JSON Schema generated from the types above: what SCHEMA_FILE holds."""
    return json_schema(PackArtifact, DEFINITIONS, SCHEMA_HEAD)


def artifact_schema() -> Schema:
    """The schema document itself (a fresh copy; callers may embed it)."""
    schema: Schema = orjson.loads(_schema_bytes())
    return schema


@functools.cache
def _schema_bytes() -> bytes:
    return orjson.dumps(generated_schema())


def schema_file_text() -> str:
    """What builder/schemas/SCHEMA_FILE holds: the generated schema, indented (scripts.artifact_schema writes it)."""
    return json.dumps(generated_schema(), indent=2, ensure_ascii=False) + "\n"


def _inline(node: object, defs: Schema) -> Any:
    """`node` with every local `#/$defs/…` reference replaced by its definition (the schema has no cycles)."""
    if isinstance(node, list):
        return [_inline(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    if set(node) == {"$ref"} and node["$ref"].startswith(DEFS):
        return _inline(defs[node["$ref"].removeprefix(DEFS)], defs)
    return {key: _inline(value, defs) for key, value in node.items()}


@functools.cache
def artifact_validator() -> Draft202012Validator:
    """The compiled 2020-12 validator, format `date` checked; built once per process."""
    schema = artifact_schema()
    Draft202012Validator.check_schema(schema)
    # Resolving a $ref costs more than the check it leads to: inlined, a large book validates in half the time.
    inlined = _inline({k: v for k, v in schema.items() if k != "$defs"}, schema["$defs"])
    return Draft202012Validator(inlined, format_checker=Draft202012Validator.FORMAT_CHECKER)


@functools.cache
def fast_validator() -> jsonschema_rs.Draft202012Validator:
    """The same schema compiled in Rust: judges a valid artifact about 100× faster than `artifact_validator`."""
    return jsonschema_rs.Draft202012Validator(artifact_schema(), validate_formats=True)


def validate_artifact(artifact: object) -> None:
    """Raise ValueError naming the first failing path (in path order) when `artifact` breaks the schema."""
    # At 500 managers the Python validator took 50 s per latest artifact. Valid is the rule: the fast
    # validator judges, and only a failure is explained by the Python one, whose messages name JSON paths.
    if fast_validator().is_valid(artifact):
        return
    # Paths compare element by element; siblings share a container, so keys meet keys and indexes meet indexes.
    errors = sorted(artifact_validator().iter_errors(artifact), key=lambda e: (tuple(e.absolute_path), e.message))
    if not errors:  # the two validators disagree: still invalid, in the fast validator's words
        raise ValueError(f"PackArtifact fails its schema: {next(iter(fast_validator().iter_errors(artifact)))}")
    first = _explained(errors[0])
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    raise ValueError(f"PackArtifact fails its schema at {first.json_path}: {first.message}{more}")


def _explained(error: ValidationError) -> ValidationError:
    """A oneOf failure told by the branch its `kind` selects (a change record): the deepest path at fault, or the
    `kind` itself when it selects no branch."""
    if error.validator != "oneOf" or not error.context:
        return error
    branches: dict[object, list[ValidationError]] = {}
    for sub in error.context:
        branches.setdefault(sub.schema_path[0], []).append(sub)
    selected = [errs for errs in branches.values() if not any(list(e.relative_path) == [DISCRIMINATOR] for e in errs)]
    chosen = selected[0] if selected else [e for e in error.context if list(e.relative_path) == [DISCRIMINATOR]]
    return _explained(min(chosen, key=lambda e: (tuple(map(str, e.absolute_path)), e.message)))
