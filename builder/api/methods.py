"""The research-method operations of 13f-copycat: ethos, policy, explanation and audit (and preview audits).

Handlers as in builder.api.handlers: (release data, canonical params) → payload. A view's scores and policy
are computed once per release through ReleaseData.memo, so precomputing an explanation for every
ticker of a view costs one scoring of that view, not one per ticker.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date
from typing import Any, TypeVar

from builder.api.data import PreviewEntry, ReleaseData
from builder.api.shapes import PreviewAuditExport
from builder.api.wire import API_PREFIX, ApiError, ErrorCode, Params
from builder.canonical import canonical_json, sha256_hex
from builder.research.changes.side import Keying, keying
from builder.research.diff import VersionDiff, diff_versions, versions_changes
from builder.research.errors import NotInView
from builder.research.methods.audit import CopycatAuditExport, SourceFileRecord, audit_record
from builder.research.methods.ethos import (
    ETHOS_IDS,
    EthosComparison,
    EthosList,
    ethos_definitions,
    score_view,
    select_tickers,
)
from builder.research.methods.explain import explainer
from builder.research.methods.explained import PositionExplanation
from builder.research.methods.policy import (
    BookFacts,
    PolicyChange,
    PolicyResult,
    book_facts,
    evaluate_policy,
    policy_changes,
)
from builder.research.schema import Ended, Position, validate_artifact
from builder.research.versions import PACK_ID, version_as_of
from builder.research.views import (
    DEFAULT_MODE,
    CarriedManager,
    CarriedVersion,
    Census,
    Mode,
    Named,
    SummaryView,
    View,
    ViewTicker,
    census,
    select_view,
    ticker_rows,
)
from builder.research.windows.history import Step, step
from builder.research.windows.trades import QuarterTrade, WindowTrades, quarter_trades, window_trades

Entry = TypeVar("Entry", Position, Ended)  # an entry of a manager: a position, or one no longer held


def view_of(data: ReleaseData, version: str, managers: Sequence[str], mode: Mode) -> View:
    def compute() -> View:
        return select_view(data.artifacts[version], managers, mode, rows_of(data, version, managers))

    return data.memo(("view", version, tuple(managers), mode), compute, large=True)


def rows_of(data: ReleaseData, version: str, managers: Sequence[str]) -> list[ViewTicker]:
    """The managers' ticker rows of a version, which each mode's view filters: built once for the four."""
    key = ("rows", version, tuple(managers))
    return data.memo(key, lambda: ticker_rows(data.artifacts[version], managers), large=True)


def scores_of(
    data: ReleaseData, version: str, managers: Sequence[str], mode: Mode, ethos_ids: Sequence[str]
) -> EthosComparison:
    def compute() -> EthosComparison:
        return score_view(
            view_of(data, version, managers, mode), data.artifacts[version], data.history(version), ethos_ids
        )

    return data.memo(("scores", version, tuple(managers), mode, tuple(ethos_ids)), compute)


def policy_of(data: ReleaseData, version: str, managers: Sequence[str], mode: Mode) -> PolicyResult:
    def compute() -> PolicyResult:
        # An older version's policy is needed for diffs only: judged on the census's summary of its view, the
        # rows the checks read, without building every manager's position of every row.
        view: View | SummaryView
        if version == data.versions[-1]:
            view = view_of(data, version, managers, mode)
        else:
            view = census_of(data, version, managers).summary_view(mode)
        facts = facts_of(data, version)
        return evaluate_policy(view, data.artifacts[version], as_of=policy_as_of(data, version), facts=facts)

    return data.memo(("policy", version, tuple(managers), mode), compute)


def facts_of(data: ReleaseData, version: str) -> BookFacts:
    """What the policy checks read of a version's whole book, whatever the view: once per version."""
    return data.memo(("book-facts", version), lambda: book_facts(data.artifacts[version]))


def policy_as_of(data: ReleaseData, version: str) -> date:
    """Each version at its own as-of: the latest at the release's, an older one at the day it was complete."""
    if version == data.versions[-1]:
        return data.as_of
    return min(data.as_of, completed_on(data, version))


def completed_on(data: ReleaseData, version: str) -> date:
    """The day a version's filings were complete (research.versions.version_as_of), whatever the release's as-of."""
    found: date = data.memo(("as-of", version), lambda: version_as_of(data.artifacts[version]), pinned=True)
    return found


ARTIFACTS = f"artifacts/{PACK_ID}"  # the folder of a release's 13f-copycat artifact files (artifact_file)
ARTIFACT_SUFFIX = ".json.gz"  # an artifact file holds its canonical JSON, gzip (builder.release.objects)


def artifact_file(version: str) -> str:
    """The path of a 13f-copycat version's artifact inside a release."""
    return f"{ARTIFACTS}/{version}{ARTIFACT_SUFFIX}"


def quarter_of(data: ReleaseData, version: str) -> str:
    """The quarter end a version is of (its artifact's `quarter`)."""
    quarter: str = data.memo(("quarter", version), lambda: data.artifacts[version]["quarter"], pinned=True)
    return quarter


def artifact_sha256(data: ReleaseData, version: str) -> str:
    """The sha256 of the version's canonical artifact bytes (its identity; its file holds them compressed)."""
    return data.memo(("sha256", version), lambda: sha256_hex(canonical_json(data.artifacts[version])), pinned=True)


def diff_of(
    data: ReleaseData, older: str, newer: str, managers: Sequence[str], mode: Mode, policy: Sequence[PolicyChange] = ()
) -> VersionDiff:
    """diff_versions of two versions, sharing across modes what does not depend on the mode. Of each version after
    `older` only what the changes carry through it is read (carried_through), beside `newer`'s books, so a diff holds
    two artifacts whole; of both, what the one-to-one test of their books reads (keying_of)."""
    before, after = data.artifacts[older], data.artifacts[newer]
    later = data.versions[data.versions.index(older) + 1 : data.versions.index(newer) + 1]
    between = [carried_through(data, v) for v in later]
    keyings = (keying_of(data, older), keying_of(data, newer))
    # the latest pair's changes: the latest pack's agent payload reads them in every mode, each mode's explanations
    # making large values in between (a group of a publish's answers: builder.release.build)
    book = data.memo(
        ("book", older, newer, tuple(managers)),
        lambda: versions_changes(before, after, managers, between, keyings),
        large=True,
        scoped=later == data.versions[-1:],
    )
    censuses = (census_of(data, older, managers), census_of(data, newer, managers))
    window, names = window_of(data, older, newer, managers, mode)
    return diff_versions(
        before, after, managers, mode, book=book, censuses=censuses, policy=policy, window=window, window_names=names
    )


def window_of(
    data: ReleaseData, older: str, newer: str, managers: Sequence[str], mode: Mode
) -> tuple[list[WindowTrades], dict[str, Named]]:
    """The trades of every quarter inside the diff's window (windows.trades) and the names of their tickers, in mode
    any; none in another mode (its views choose tickers at the window's ends, not inside it) nor for a diff of one
    quarter (its changes are that quarter's trades). In every mode they would add 91 % to a release's bytes
    (100 managers × 8 quarters × 150 positions: 259 MB over 286), in mode any a quarter of that."""
    later = data.versions[data.versions.index(older) + 1 : data.versions.index(newer) + 1]
    one_quarter = len(later) == 1 and data.artifacts[newer]["previousQuarter"] == quarter_of(data, older)
    if mode != DEFAULT_MODE or one_quarter:
        return [], {}
    quarters = [(quarter_of(data, version), trades_of(data, version)) for version in later]
    window = window_trades(quarters, sorted(managers or [m["id"] for m in data.index["copycat"]["managers"]]))
    traded = {ticker for manager in window for ticker in manager["tickers"]}
    names: dict[str, Named] = {}
    for version in later:  # each ticker as the latest version that names it does
        names.update((t, name) for t, name in history_step(data, version).names.items() if t in traded)
    return window, names


def trades_of(data: ReleaseData, version: str) -> dict[str, list[QuarterTrade]]:
    """Each manager's trades in a version, as it states them (windows.trades.quarter_trades): kept for the release."""
    index = data.versions.index(version)
    earlier = history_step(data, data.versions[index - 1]) if index else None
    found: dict[str, list[QuarterTrade]] = data.memo(
        ("trades", version), lambda: quarter_trades(earlier, history_step(data, version)), pinned=True
    )
    return found


def carried_through(data: ReleaseData, version: str) -> CarriedVersion:
    """What versions_changes reads of a version after a diff's older one (research.diff), beside the newer one's
    books: its quarter, its warnings, and of each manager its id, its CIK and the entries whose change cites a
    corporate action or was left undecided (the legs and flags a far diff carries through); none of the rest of the
    books. Small, so kept for the release."""

    def carried(entries: list[Entry]) -> list[Entry]:
        return [e for e in entries if e["change"]["corporateActions"] or e["change"]["kind"] == "undecided"]

    def part() -> CarriedVersion:
        artifact = data.artifacts[version]
        managers: list[CarriedManager] = [
            {"id": m["id"], "cik": m["cik"], "positions": carried(m["positions"]), "ended": carried(m["ended"])}
            for m in artifact["managers"]
        ]
        return {"quarter": artifact["quarter"], "warnings": artifact["warnings"], "managers": managers}

    found: CarriedVersion = data.memo(("carried-through", version), part, pinned=True)
    return found


def keying_of(data: ReleaseData, version: str) -> Keying:
    """What the one-to-one test of a diff's books reads of a whole version (changes.side.keying): small, so kept."""
    found: Keying = data.memo(("keying", version), lambda: keying(data.artifacts[version]), pinned=True)
    return found


def diff_inputs(data: ReleaseData, params: Params) -> list[object]:
    """What compareVersions' answer is a function of, beside the code: the view, each side's artifact and as-of, and
    the artifacts between (their corporate actions and undecided changes are carried). A publish takes the promoted
    release's answer when they were the same (builder.release.inputs)."""
    sides = [[artifact_sha256(data, v), policy_as_of(data, v).isoformat()] for v in (params["from"], params["to"])]
    versions = data.versions
    between = versions[versions.index(params["from"]) + 1 : versions.index(params["to"])]
    return [params, *sides, [artifact_sha256(data, v) for v in between]]


def census_of(data: ReleaseData, version: str, managers: Sequence[str]) -> Census:
    """The managers' census of a version: one pass over its books for the four modes' tickers and policies."""
    return data.memo(("census", version, tuple(managers)), lambda: census(data.artifacts[version], managers))


def view_tickers_of(data: ReleaseData, version: str, managers: Sequence[str], mode: Mode) -> set[str]:
    found = census_of(data, version, managers)
    return data.memo(("view-tickers", version, tuple(managers), mode), lambda: found.tickers(mode))


def _view_params(params: Params) -> tuple[list[str], Mode]:
    return params.get("managers", []), params.get("mode", DEFAULT_MODE)


def list_ethos(data: ReleaseData, params: Params) -> EthosList:
    return {"ethos": ethos_definitions()}


def explain_position(data: ReleaseData, params: Params) -> PositionExplanation:
    """A version's evidence for one ticker of the selected view (`version`, else the latest), or one that left it in
    that version (404 when neither, saying which versions' views held it); with the ticker's history over every
    version."""
    managers, mode = _view_params(params)
    version = params.get("version", data.versions[-1])
    if version not in data.artifacts:
        raise version_not_found(data, "version", version)
    previous = data.versions[data.versions.index(version) - 1] if version != data.versions[0] else None

    def build() -> Callable[[str], PositionExplanation]:
        view = view_of(data, version, managers, mode)
        scores = scores_of(data, version, managers, mode, ETHOS_IDS)
        return explainer(
            view,
            data.artifacts[version],
            scores,
            policy_of(data, version, managers, mode),
            rows=rows_of(data, version, managers),
            left=left_view(data, managers, mode, version),
            earlier=data.artifacts[previous] if previous else None,
            # the history's rows are the same in every mode: in mode any only, where they cost a quarter (at 500
            # managers, 94 MB of explanations in mode any; 187 MB more in overlap and disagreement)
            steps=history_steps(data) if mode == DEFAULT_MODE else None,
        )

    explain = data.memo(("explainer", version, tuple(managers), mode), build, large=True)
    try:
        return explain(params["ticker"])
    except NotInView as refusal:
        raise never_held(data, params["ticker"], managers, mode, refusal.details, version) from refusal


def history_steps(data: ReleaseData) -> list[Step]:
    """Every version's part of a position's history (windows.history.step), oldest first."""
    return [history_step(data, version) for version in data.versions]


def history_step(data: ReleaseData, version: str) -> Step:
    """What a position's history reads of one version: made once, in the build worker that made the version
    (release.assemble.warm), and kept for the release."""
    found: Step = data.memo(("history-step", version), lambda: step(data.artifacts[version]), pinned=True)
    return found


def left_view(data: ReleaseData, managers: Sequence[str], mode: Mode, version: str | None = None) -> set[str]:
    """The tickers the view held a version before `version` (the latest when None) and no longer holds (none at the
    first version)."""
    version = version or data.versions[-1]
    index = data.versions.index(version)
    if index == 0:
        return set()
    older = data.versions[index - 1]
    return view_tickers_of(data, older, managers, mode) - view_tickers_of(data, version, managers, mode)


def explained_tickers(data: ReleaseData, managers: Sequence[str], mode: Mode, version: str | None = None) -> list[str]:
    """Every ticker explainPosition answers for the view at `version` (the latest when None): those in it, then those
    that left it with a change, each in ticker order. Read from that version's census (what the view's rows are
    counted from: views.view_tickers), so listing them decodes nothing: a publish lists them before it forks the
    processes that render."""
    version = version or data.versions[-1]
    found = census_of(data, version, managers)
    left = left_view(data, managers, mode, version)
    return sorted(view_tickers_of(data, version, managers, mode)) + sorted(left.intersection(found.names))


def never_held(
    data: ReleaseData,
    ticker: str,
    managers: Sequence[str],
    mode: Mode,
    details: dict[str, Any],
    version: str | None = None,
) -> NotInView:
    """position_not_found, saying which versions' quarters held the ticker in this view (none, when none did) and the
    call that explains it at one of them."""
    version = version or data.versions[-1]
    held = [v for v in data.versions if ticker in view_tickers_of(data, v, managers, mode)]
    quarters = [quarter_of(data, v) for v in held]
    where = (
        f"the view held it at {', '.join(quarters)}: explain_position with version {held[-1]!r} (its quarter "
        f"{quarters[-1]}) explains it there, and compare_versions over those versions shows its changes"
        if held
        else "no version of this release held it in this view"
    )
    return NotInView(
        f"{ticker} is not in the selected view at {quarter_of(data, version)} and did not leave it then; {where}",
        {**details, "heldIn": quarters, "heldInVersions": held},
    )


def compare_versions(data: ReleaseData, params: Params) -> VersionDiff:
    """The semantic diff of two versions over one view, with the policy checks whose outcome changed."""
    older, newer = params["from"], params["to"]
    for name, version in (("from", older), ("to", newer)):
        if version not in data.artifacts:
            raise version_not_found(data, name, version)
    if data.versions.index(older) >= data.versions.index(newer):
        raise ApiError(
            400,
            ErrorCode.INVALID_VERSION_ORDER,
            f"'from' must be an earlier version than 'to': swap them (from {newer!r}, to {older!r})"
            if older != newer
            else "'from' and 'to' name the same version: 'from' must be an earlier one (list_pack_versions lists them)",
            {"from": older, "to": newer},
        )
    managers, mode = _view_params(params)
    policy = policy_changes(policy_of(data, older, managers, mode), policy_of(data, newer, managers, mode))
    return diff_of(data, older, newer, managers, mode, policy)


def version_not_found(data: ReleaseData, parameter: str, version: str) -> ApiError:
    """404 version_not_found, listing the versions there are (newest first) and the call that lists them."""
    ids = list(reversed(data.versions))
    return ApiError(
        404,
        ErrorCode.VERSION_NOT_FOUND,
        f"{parameter} {version!r} is not in the version catalog; list_pack_versions (GET {API_PREFIX}/packs/"
        f"{PACK_ID}/versions) lists them, newest first: {', '.join(ids)}",
        {"parameter": parameter, "versionId": version, "available": ids},
    )


def compare_ethos(data: ReleaseData, params: Params) -> EthosComparison:
    """Per-ticker scores of the selected ethos over the view, and their cross-methodology overlap."""
    managers, mode = _view_params(params)
    result = scores_of(data, data.versions[-1], managers, mode, params["ethosIds"])
    return select_tickers(result, params.get("tickers", []))


def validate_policy(data: ReleaseData, params: Params) -> PolicyResult:
    managers, mode = _view_params(params)
    return policy_of(data, data.versions[-1], managers, mode)


def export_audit_trail(data: ReleaseData, params: Params) -> CopycatAuditExport | PreviewAuditExport:
    """The audit trail of a pack's latest artifact in the sealed release (any available pack)."""
    assert data.identity is not None, "audit is rendered only for a sealed release"
    preview = data.preview(params["packId"])
    if preview is not None:
        return _preview_audit(data, preview)
    managers, mode = _view_params(params)
    version = data.versions[-1]
    artifact = data.artifacts[version]
    data.memo(("schema-valid", version), lambda: validate_artifact(artifact) or True)  # type: ignore[func-returns-value]  # raises when invalid
    return audit_record(
        artifact,
        artifact_sha256=artifact_sha256(data, version),
        release=data.identity,
        provenance=data.index["provenance"],
        view=view_of(data, version, managers, mode),
        ethos=ethos_definitions(),
        policy=policy_of(data, version, managers, mode),
        as_of=data.index["asOf"],
        selection=data.index["copycat"].get("selection"),
    )


def _read_by(provenance: list[SourceFileRecord], paths: list[str]) -> list[SourceFileRecord]:
    """The provenance of the files a preview pack read (its methodology's sources), not of the whole tree."""
    read = set(paths)
    return [entry for entry in provenance if entry["path"] in read]


def _preview_audit(data: ReleaseData, preview: PreviewEntry) -> PreviewAuditExport:
    digest = sha256_hex(canonical_json(preview["artifact"]))
    assert data.identity is not None, "audit is rendered only for a sealed release"
    return {
        "identity": {"packId": preview["id"], "versionId": preview["version"], "asOf": preview["asOf"]},
        "release": data.identity,
        "contentHash": {
            "algorithm": "sha256",
            "value": digest,
            "of": "canonical artifact bytes: sorted keys, no whitespace",
        },
        "provenance": _read_by(data.index["provenance"], preview["methodology"]["sources"]),
        "methodology": preview["methodology"],
        "caveats": preview["caveats"],
        "policy": None,
        "events": [
            {
                "event": "ingested",
                "at": data.index["asOf"],
                "detail": f"{len(preview['methodology']['sources'])} source files read",
            },
            {"event": "validated", "at": data.index["asOf"], "detail": f"{len(preview['warnings'])} scope warnings"},
            {"event": "sealed", "at": data.index["asOf"], "detail": f"release {data.identity['releaseId']}"},
        ],
        "executionEnabled": False,
        "artifact": preview["artifact"],
    }
