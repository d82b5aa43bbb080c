"""Descriptions by place: components by name, and field names that mean different things in different places.

A key is `Component.path.name` (the property names from the component down to the field); describe() tries
the longest key first, then the plain name in glossary.FIELDS, so each field's text is written for it.
"""

from __future__ import annotations

from typing import get_args

from builder.research.agent import BUDGET_BYTES as AGENT_BUDGET_BYTES
from builder.research.schema import MeasuredKind
from builder.research.versions import PACK_ID as PACK_ID_VALUE

SHARE_CHANGES = get_args(MeasuredKind)

# One text for the places that share a meaning (the same field in several shapes): text → the places, by space.
SHARED: dict[str, str] = {
    "The manager's id in this pack.": "ArtifactManager.id AgentPayload.managers.id CopycatLatestPack.managers.id",
    "The pack id.": "AvailablePack.id PlannedPack.id PackSummary.id Health.packs.id",
    "available (its routes answer) or planned (they answer 404).": (
        "AvailablePack.status PlannedPack.status PackSummary.status"
    ),
    "The policy check's id (new checks may be published).": (
        "PolicyChange.id PolicyConfig.checks.id PolicyResult.checks.id"
    ),
    "The information-table rows (accession number and row) the position comes from.": (
        "ArtifactPosition.sources ArtifactOtherHolding.sources HeldChange.sources"
    ),
    "The selected manager ids, sorted.": (
        "View.managers VersionDiff.view.managers PositionExplanation.view.managers EthosComparison.basis.managers "
        "CopycatAuditExport.methodology.view.managers"
    ),
    "Each source file read: its rows, how many were kept, excluded and malformed, and why.": (
        "PersonArtifact.sources CongressArtifact.sources SocialArtifact.sources"
    ),
    "What the pack answers: views, diff, explain, ethos, policy (none for a preview).": (
        "AvailablePack.features PlannedPack.features"
    ),
    "The ticker's raw feature values by feature name (null when undefined).": (
        "EthosComparison.scores.features PositionExplanation.ethos.features"
    ),
    "The warning's stable code (e.g. fixture-data, unmapped-cusip; new codes may appear).": (
        "ArtifactWarning.code Health.warnings.code"
    ),
    "The warning in words.": "ArtifactWarning.message Health.warnings.message",
    "How the rank change is counted.": "SocialAgentPayload.definition.rankChange SocialMethodology.rankChange",
    "sha256 of the canonical artifact bytes: recomputable by a client.": (
        "CopycatAuditExport.contentHash PreviewAuditExport.contentHash"
    ),
    "Every source file of the release.": "CopycatAuditExport.provenance PreviewAuditExport.provenance",
    (
        "How recent the quarter's data is, as dates only: its filing deadline, the date after which a newer quarter "
        "may supersede it, and the next filing deadline. No stale flag: the bytes are precomputed and cannot know the "
        "day they are read."
    ): "AgentPayload.freshness PolicyResult.freshness",
    "The canonical view: managers sorted, mode.": "VersionDiff.view PositionExplanation.view",
    "How each trade's instrument (stock, option, bond, other) is decided.": (
        "PersonMethodology.instrument CongressMethodology.instrument"
    ),
    "When a row is a copy of a trade another configured file holds.": (
        "PersonMethodology.duplicates CongressMethodology.duplicates"
    ),
    (
        "Only in a latest answer: the artifact's lists cut to their first items (by list, as a dotted path), with how "
        "many are listed and how many there are; export_audit_trail returns the artifact whole."
    ): "PersonArtifact.listsCut CongressArtifact.listsCut SocialArtifact.listsCut",
}

# Fields only the preview artifacts' long lists have (transactions, source reports, rankings).
PREVIEW_FIELDS: dict[str, str] = {
    "instrument": "What was traded: stock, option, bond, crypto or other.",
    "instrumentRule": "The rule that decided the instrument (asset type, ticker, option wording...).",
    "state": "The member's state as filed.",
    "spellings": "Each spelling of the name in the rows, with its row count.",
    "spelling": "A name as the rows spell it.",
    "chambers": "The chambers the spelling is filed under.",
    "districts": "The districts the spelling is filed under.",
    "instruments": "The file's rows by instrument.",
    "instrumentRules": "The file's rows by the rule that decided their instrument.",
    "duplicatesOf": "The files holding the counted copies of this file's dropped rows, with how many each.",
    "withoutReportLink": "Rows with no link to their report.",
    "chamber": "house or senate: where the disclosure was filed.",
    "district": "The member's state and district as filed (empty for a senator).",
    "assetDescription": "The asset as the disclosure describes it.",
    "assetType": "The asset type as filed (empty when the source has none).",
    "type": "The transaction type as read: purchase, sale_full, sale_partial or exchange.",
    "date": "The evaluation day.",
    "rows": "Rows read.",
    "kept": "Malformed rows kept, repaired by a documented rule or with the field left empty.",
    "excluded": "Malformed rows left out.",
    "malformed": "Rows with at least one fault.",
    "reasons": "Malformed rows by fault code.",
    "issues": "Each malformed row: its fault, what was done, its row number.",
    "firstTransactionDate": "The first transaction date behind the estimate.",
    "lastTransactionDate": "The last transaction date behind the estimate.",
    "lastDisclosureDate": "The last disclosure date behind the estimate.",
    "mentionChange": "Mentions now minus mentions 24 hours earlier; null without a baseline.",
    "rank24hAgo": "Rank 24 hours earlier; null when not ranked then.",
    "upvotes": "Upvotes of the mentions, as published.",
    "time": "The time of the snapshot the entry is from.",
    "disclosedWithin45Days": "The cluster's trades disclosed within the statutory 45 days of the trade.",
    "windowStart": "The first day of the cluster's window of disclosure dates.",
    "windowEnd": "The last day of the cluster's window: the evaluation day.",
    "listed": "Items listed here.",
    "signalCount": "Clusters found; signal lists as many of them as the payload's 10 KB budget holds.",
    "tradesListed": "Trades listed here of the cluster's tradeCount (oldest disclosures left out first to fit the "
    "payload's budget; the artifact lists every one).",
    "total": "Items there are.",
    "totals": "The estimated holdings' dollar total at cost, with its low and high bounds (high null when open-ended).",
    "snapshotAgeDays": "Days from the latest snapshot to the as-of date; over 2 the snapshot is stale (warned).",
}
IN_CONTEXT: dict[str, str] = {
    **{place: text for text, places in SHARED.items() for place in places.split()},
    "PackArtifact.corporateActions": "The corporate-action records in effect since the previous quarter end, the "
    "operator's and those the holders' evidence derived; every manager's change applies them alike.",
    "ArtifactCorporateAction.kind": "What the corporate action does: split, merger, cash-merger, spin-off or exchange.",
    "ArtifactActionRecord.kind": "What the corporate action does: split, merger, cash-merger, spin-off or exchange.",
    "ArtifactActionRecord.effective": "The date it took effect; for a derived record, the later quarter end (it took "
    "effect by then).",
    "ArtifactActionRecord.effectiveAfter": "For a derived record, the earlier quarter end: it took effect after it. "
    "Null for a hand record, whose date is exact.",
    "ArtifactActionRecord.source": "Where the record comes from: the operator's citation, or for a derived record "
    "the evidence in words.",
    "ArtifactActionRecord.derived": "true when the evidence of the security's holders decided it; false for a record "
    "of corporate_actions.csv.",
    "ArtifactActionRecord.evidence": "What decided a derived record; null for a hand record.",
    "ArtifactActionEvidence.holders": "Filers that held the security at the earlier quarter end.",
    "ArtifactActionEvidence.agreeing": "Of the holders the event concerns, those whose books fit it (the rest traded "
    "beside it).",
    "ArtifactActionEvidence.ratios": "The lowest and highest new:old share ratio among the agreeing holders, in "
    "decimals; null for a cash acquisition.",
    "ArtifactActionEvidence.origin": "Whose books: sec13f-datasets (every 13F filer, from the SEC's Form 13F data "
    "sets) or pack-filings (the pack's own managers).",
    "ArtifactActionEvidence.sources": "The data-set files behind the evidence; empty for the pack's own filings.",
    "PreviewSourceFile.duplicatesDropped": "The file's rows dropped as copies of a trade another file holds.",
    "PreviewSourceFile.issues.row": "The row's number in its file.",
    "PreviewSourceFile.issues.outcome": "kept (repaired, or with the field left empty) or excluded.",
    "PreviewTrade.person": "The member after the identity rules: one person, one name, however the rows spell it.",
    "PreviewTrade.row": "The row's number in its source file.",
    "CongressArtifact.duplicatesDropped": "Rows dropped because another configured file holds the same trade; per-file "
    "counts and the files holding the counted rows are in sources.",
    "PersonArtifact.duplicatesDropped": "The person's rows dropped because another configured file holds the same trade.",
    "CongressArtifact.people": "Members filed under more than one spelling, each spelling with its rows: what the "
    "identity rule merged.",
    "CongressArtifact.windowOptions": "Option trades disclosed within the widest window: listed, never part of a "
    "cluster.",
    "CongressMethodology.memberAliases": "Configured spellings of one member that no rule merges, each group led by "
    "the name shown.",
    "PersonArtifact.options": "The person's option trades (calls, puts): listed, never part of a stock position.",
    "PersonArtifact.untracked": "Transactions not estimated: no readable ticker, bonds and other instruments, "
    "exchanges.",
    "PersonArtifact.spellings": "Each spelling of the person's name in the counted rows, with its rows, chambers and "
    "districts.",
    "PersonArtifact.totals": "Dollar estimate with its bounds; high is null when a range is open-ended.",
    "PersonArtifact.holdings.exercisedShares": "Shares option exercises delivered since the position was last sold "
    "out (the estimate stays in dollars).",
    "ArtifactFiling.rows": "Rows of the filing's information table.",
    "SocialArtifact.snapshots.rows": "Rankings in the snapshot.",
    "Health.status": "degraded while fixture or scope warnings exist.",
    "VersionCatalog.versions": "Newest first.",
    "CopycatVersionReference.artifactSha256": "sha256 of the canonical PackArtifact bytes.",
    "EthosDefinition.id": "The ethos id (new ethos may be published).",
    "CopycatAuditExport.methodology.ethos.id": "The ethos id.",
    "ArtifactManager.name": "The manager's name, as packs.toml gives it.",
    "AgentPayload.managers.name": "The manager's name.",
    "CopycatLatestPack.managers.name": "The manager's name.",
    "EthosDefinition.name": "The ethos's public name.",
    "CopycatAuditExport.methodology.ethos.name": "The ethos's public name.",
    "EthosScoring.features.name": "The feature's name.",
    "PolicyConfig.checks.name": "The check's name in words.",
    "PolicyResult.checks.name": "The check's name in words.",
    "Health.packs.status": "available: only available packs are listed.",
    "VersionDiff.from": "The earlier version id.",
    "VersionDiff.to": "The later version id.",
    "PolicyChange.from": "The check's outcome in the earlier version; null when the check did not exist then.",
    "PolicyChange.to": "The check's outcome in the later version; null when the check no longer exists.",
    "AvailablePack.links.latest": "Path of the pack's latest-artifact route.",
    "AvailablePack.links.versions": "Path of the pack's version-catalog route.",
    "CopycatVersionReference.latest": "True for the current latest version.",
    "PreviewVersionReference.latest": "True for the current latest version.",
    "EthosScoring.features": "The features the score combines, each with its formula and denominator.",
    "PackArtifact.managers": "Every manager's book for the quarter.",
    "CopycatLatestPack.managers": "Every manager of the pack: id, name, CIK, whether it is fictional.",
    "ViewTicker.managers": "Each selected manager's position in the ticker, or its exit.",
    "CopycatAuditExport.methodology.policy": "The policy configuration: its checks and thresholds.",
    "CopycatAuditExport.policy": "The policy result of the view.",
    "CopycatAuditExport.selection": "How packs.toml's `largest = N` chose managers of the pack, beside those it "
    "lists: the N filers of the SEC's Form 13F data sets with the largest reported value at the newest quarter end "
    "the sets hold (each filer's original holdings report: its summary page's total, in dollars), ties by CIK. "
    "Present only when the pack selects so.",
    "CopycatAuditExport.selection.statement": "The selection in words: how many, at which quarter end, from which "
    "data sets.",
    "CopycatAuditExport.selection.largest": "N, as packs.toml asks.",
    "CopycatAuditExport.selection.quarter": "The quarter end ranked (ISO 8601).",
    "CopycatAuditExport.selection.ranked": "How many filers the data sets hold an original holdings report of for "
    "that quarter end: all of them are selected when fewer than N.",
    "CopycatAuditExport.selection.datasets": "The data-set zips that hold the selected filers' reports.",
    "CopycatAuditExport.selection.filers": "The selected filers, largest first.",
    "CopycatAuditExport.selection.filers.rank": "1 for the largest.",
    "CopycatAuditExport.selection.filers.reportedValue": "The value the report's summary page gives, in dollars.",
    "CopycatAuditExport.selection.filers.accession": "The report ranked: its SEC accession number.",
    "CopycatAuditExport.selection.filers.dataset": "The data-set zip that holds the report.",
    "PositionExplanation.policy": "The view's policy result in brief.",
    "VersionDiff.policy": "The policy checks whose outcome differs between the two versions.",
    "PersonArtifact.concentration.positions": "How many estimated holdings there are.",
    "PersonAgentPayload.concentration.positions": "How many estimated holdings there are.",
    "VersionDiff.managers": "Each selected manager: its filings in both versions and its changes between them, of "
    "the view's tickers only (those in the view in either version), counted by kind and listed as columns.",
    "VersionDiff.names": "Each ticker the diff names (its changes', those that entered or left the view), named "
    "once: as the later version names it, else as the earlier one did.",
    "VersionDiff.changeDetails": "The rest of each change that is not a plain trade (a corporate action, an undecided "
    "change, a trade on a share basis carried through a corporate action), by managerId and ticker. Every change not "
    "listed here is a trade: cause trade, carriedShares = fromShares, shareDelta = toShares - fromShares.",
    "ManagerChanges.counts": "The manager's changes counted by kind.",
    **{f"ManagerChanges.counts.{kind}": f"How many of the manager's changes are {kind}." for kind in SHARE_CHANGES},
    "ManagerChanges.changes": "The manager's changes by ticker, as columns of one length: the i-th item of each list "
    "is the i-th change.",
    "ManagerChanges.changes.tickers": "Each change's ticker (or CUSIP, when unmapped), named in names.",
    "ManagerChanges.changes.kinds": "Each change's kind, the trade measured against the older book carried through "
    "the corporate actions between the versions: new, added, reduced, unchanged, exited; converted (ended through a "
    "corporate action, not sold); undecided (not counted as bought or sold).",
    "ManagerChanges.changes.fromShares": "Each change's shares in the earlier version (0 when not held).",
    "ManagerChanges.changes.toShares": "Each change's shares in the later version (0 when not held).",
    "ManagerChanges.changes.fromValues": "Each change's dollar value in the earlier version (0 when not held).",
    "ManagerChanges.changes.toValues": "Each change's dollar value in the later version (0 when not held).",
    "PolicyConfig.signal": "How the signal follows from the checks.",
    "CongressAgentPayload.signal": "The clusters behind the headline signal.",
    "SocialAgentPayload.signal": "attention momentum, or no momentum signal.",
    "SocialArtifact.signal": "attention momentum, or no momentum signal.",
    "CongressAgentPayload.outcome": "The preview's outcome: a strict signal, a demo signal or no signal.",
    "CongressArtifact.outcome": "The preview's outcome: a strict signal, a demo signal or no signal.",
    "PolicyResult.checks.outcome": "pass, warn or block.",
    "ArtifactEnded.sources": "The previous quarter's information-table rows of the position.",
    "EndedChange.sources": "The previous quarter's information-table rows of the position.",
    **{f"{kind}Methodology.sources": "The source files the pack reads." for kind in ("Person", "Congress", "Social")},
    "ChangeDetail.shareDelta": "Shares traded: toShares minus carriedShares; null when undecided.",
    "ViewPosition.shareDelta": "Shares traded against the previous quarter (the artifact's change); null when unknown.",
    "EthosScoring.normalisation.rule": "The normalisation as an equation, with its rule for ties.",
    "PolicyConfig.checks.rule": "The check's rule, as computed.",
    "AgentPayload.ethosLeaders.score": "The ticker's 0–100 score.",
    "EthosScoring.score": "How the 0–100 score is computed from the features.",
    "EthosComparison.basis.persistenceWindow": "The quarters of the persistence window, newest first.",
    "EthosComparison.overlap.tickers": "Tickers in every selected ethos's top set.",
    "PolicyResult.signal": "no-signal when any check blocks: stay in cash.",
    "ArtifactFiling.source": "The filing's files in the source tree; for a filing read from the SEC's Form 13F data "
    "sets, the data set's zip and the accession number (<zip>#<accession>).",
    "ArtifactFiling.url": "The filing's index page on SEC EDGAR, where its documents can be checked; null when the "
    "accession number is not known or the manager is fictional.",
    "PositionExplanation.sourceRecords.url": "The filing's index page on SEC EDGAR, where its documents can be "
    "checked; null when the accession number is not known or the manager is fictional.",
    "ArtifactWarning.source": "The source the warning is about.",
    "Health.warnings.pack": "The pack the warning belongs to.",
    "CopycatAuditExport.contentHash.value": "The sha256 digest, hexadecimal.",
    "PreviewAuditExport.contentHash.value": "The sha256 digest, hexadecimal.",
    "PositionExplanation.summary": "The ticker in the view: holders, buyers, sellers and value.",
    "PositionExplanation.viewStatus": "in-view: the ticker is in the selected view of the version explained; "
    "left-view: the view held it a version earlier and no longer does (its changes say what ended it; no ethos "
    "scores).",
    "VersionDiff.windowTrades": "For a diff spanning more than one quarter, in mode any: each selected manager's "
    "trades of every quarter inside the window (the changes each version states against the quarter before it: a "
    "position bought and sold inside the window is here, though no net change shows it), largest traded value "
    "first; empty for a diff of one quarter (its changes are those trades) and in the other modes.",
    "WindowTrades.tradeCount": "The manager's trades inside the window, every one listed.",
    "WindowTrades.quarters": "Each trade's quarter end: the version that states it.",
    "WindowTrades.tickers": "Each trade's ticker (or CUSIP, when unmapped), named in names.",
    "WindowTrades.kinds": "Each trade's kind: new, added, reduced or exited.",
    "WindowTrades.shareDeltas": "Each trade's shares, bought (+) or sold (-), measured against the quarter before "
    "carried through its corporate actions.",
    "WindowTrades.tradedValues": "Each trade's shares times its quarter's price (value / shares as filed; an exit's "
    "at the price of the version before, 0 when that did not hold it): signed, and the ranking.",
    "WindowTrades.sources": "Each trade's filing rows (accession number and row): the quarter's own, or for an exit "
    "the rows of the quarter before that it ended.",
    "PositionExplanation.history": "The position at every published version, oldest first, for each selected "
    "manager that held it at one of them (the versions where it held none included): the same in every version's "
    "explanation. In mode any; null in the other modes (the same call in mode any has it).",
    "PositionHistory.versions": "Every published version id, oldest first: the i-th item of each manager's lists is "
    "its position at the i-th of them.",
    "PositionHistory.quarters": "Each version's quarter end.",
    "PositionHistory.previousQuarters": "The quarter end each version's change is measured against: the quarter "
    "before it, which is the previous version's unless a manager did not file for that quarter (a change in such a "
    "quarter shows in the version after it only as the shares held).",
    "PositionHistory.managers": "Each selected manager that held the ticker at one of the versions, in the "
    "version's manager order.",
    "PositionHistory.managers.managerId": "The manager's id in this pack.",
    "PositionHistory.managers.shares": "The shares held at each version's quarter end (0 where none).",
    "PositionHistory.managers.values": "The dollar value held at each version's quarter end, as filed (0 where none).",
    "PositionHistory.managers.weights": "The position's share of the manager's long-equity 13F book at each version "
    "(0 where none).",
    "PositionHistory.managers.kinds": "The change into each version (new, added, reduced, unchanged, exited, "
    "converted, undecided, unknown); null where the manager held the ticker neither then nor a quarter before.",
    "PositionHistory.managers.causes": "What moved the shares into each version: trade, corporate-action, "
    "trade-and-corporate-action, none, undecided or unknown; null with its kind.",
    "PositionHistory.managers.shareDeltas": "The shares traded into each version, measured against the previous "
    "book carried through corporate actions; null where there is no change, or it is undecided or unknown.",
    "PositionHistory.managers.corporateActions": "The corporate actions each change cites, each named by what it did "
    "to these shares (the record's text); empty where none.",
    "PositionHistory.managers.sources": "The filing rows (accession number and information-table row) each version's "
    "figures come from: its own rows where held, the previous quarter's rows an exit ended; empty where none.",
    "CongressMethodology.headline": "How the headline signal is chosen.",
    "SocialAgentPayload.definition.newEntrants": "What a new entrant is.",
    "SocialMethodology.newEntrants": "What a new entrant is.",
    "PersonMethodology.estimate": "How an estimate is made from a disclosed range.",
    "PersonMethodology.concentration": "How concentration is measured.",
    "SocialAgentPayload.topMovers": "The tickers whose mentions rose most, in brief.",
    "AgentPayload.tradeCount": "Trades of the selected managers in the view's tickers this quarter, measured against "
    "the previous version (0 in a pack's first version, whose caveats say so).",
    "AgentPayload.managers.tradeCount": "The manager's trades in the view's tickers this quarter.",
    "AgentPayload.managers.trades": "The manager's largest trades, largest traded value first.",
    "AgentPayload.managers.filings": "The manager's filings behind this version, with their filing dates.",
    "AgentPayload.caveats": "The pack's own caveats (its warnings), each once; in a pack's first version, first, that "
    "no trade or undecided change is listed (there is no version before to measure them against).",
    "VersionDiff.warnings": "Warnings about the pack and the view's managers that appeared since `from` (in `to` or a "
    "version between) and those `to` no longer has.",
    "SecurityName.mapped": "false: securities.csv has no ticker for it; the ticker is its CUSIP.",
    "PositionExplanation.view": "The view explained: its mode, its manager count, and its managers only when they "
    "are a subset of the version's.",
    "PositionExplanation.view.managers": "The selected managers, sorted; null when the view is every manager of the version.",
    "EvidenceStatement.managerIds": "The changes (by managerId) whose rows the statement cites: each one's sources, "
    "after an ended one's absentFrom filings (row null).",
    "EndedChange.absentFrom": "This quarter's 13F filings of the manager (accession numbers), with no row for the "
    "ticker: what its statement cites with row null.",
    "PositionExplanation.previousQuarter": "The quarter before: an ended change's sources are its rows.",
    "PositionExplanation.sourceRecords.filedFrom": "Where the filing date comes from: 'submission header', the "
    "'<path>:<line>' of the filing_dates.csv ras fetch keeps from EDGAR's listing, 'Form 13F data set (FILING_DATE)' "
    "for a filing read from the SEC's Form 13F data sets, or 'signatureDate (estimated)'.",
    "PositionExplanation.sourceRecords.folder": "The folder of the filing's source files in the source tree (empty "
    "when they share none; sec13f-datasets for a filing read from the Form 13F data sets, whose file is then "
    "<zip>#<accession>).",
    "PositionExplanation.sourceRecords.files": "The filing's source files, by their path in folder.",
    "CitedStatement.citations.row": "null for a position no longer held (no row this quarter).",
    "PositionExplanation.warnings": "The view's warnings about the pack, the explained managers' filings and this "
    "security (an unmapped CUSIP among them).",
    "PositionExplanation.policy.signal": "no-signal when any check blocks: stay in cash.",
    "AgentHolding.topHolders.weight": "Of the manager's 13F book.",
    "SecurityName.issuer": "The issuer's name as the version that names the ticker gives it.",
    "AgentPayload.managers": "The selected managers, largest books first (view.managerCount counts all).",
    "AgentPayload.managers.trades.kind": "The trade: new, added, reduced or exited.",
    "AgentPayload.managers.trades.shareDelta": "Shares traded: positive bought, negative sold.",
    "AgentPayload.managers.trades.tradedValue": "shareDelta valued at the later quarter's price (the earlier price "
    "for an exit), in dollars: what ranks the trades.",
    "AgentPayload.notTrades": "Changes that are not trades, counted by kind.",
    "CopycatLatestPack.manifestEntry": "Where the release holds the artifact (its canonical JSON bytes, gzip-compressed) "
    "and the sha256 of those canonical bytes, the audit's contentHash.",
    "PreviewAuditExport.policy": "Preview packs have no policy recalculation.",
    "ApiMeta.capability": "The operation id that answered, or 'router'.",
    "NextCall.arguments": "The exact arguments of the call (REST: its parameters or body).",
    "NextCall.repeatManagers": "Present (true) when the view's managers are too many to repeat: pass this call's "
    "managers again.",
}


COMPONENTS: dict[str, str] = {
    "ResearchRequest": "The body of compareEthos: the view, the ethos and the tickers to score.",
    "ViewRequest": "The body of validatePolicy: the view to check.",
    "ApiMeta": "Meta of every envelope: API and contract version, the operation that answered.",
    "AuditExport": "The audit export of a pack: 13f-copycat's, or a preview pack's.",
    "EthosComparison": "Per-ticker scores of the selected ethos over the view, their top sets and overlap.",
    "EthosDefinition": "One ethos: id, name, principles and the scoring configuration.",
    "EthosList": "Every ethos definition.",
    "EthosScoring": "Everything that fixes the 0–100 scores: features, weights, normalisation, top-set rule.",
    "AvailablePack": "An available pack: its routes answer.",
    "Health": "Health of the promoted release.",
    "LatestPack": "The latest artifact of a pack: 13f-copycat's, or a preview pack's.",
    "PackCatalog": "Available and planned packs.",
    "PackSummary": "The pack's id, label, title and status.",
    "PlannedPack": "Announced, not served: its routes answer 404.",
    "PolicyConfig": "The policy checks and their thresholds.",
    "PolicyResult": "Policy checks over a view; executionEnabled is always false.",
    "ManagerChanges": "One selected manager's filings and changes between the two versions.",
    "ChangeDetail": "The rest of one manager's change in one ticker that is not a plain trade: cause, carried shares, "
    "share delta, corporate actions, candidates.",
    "SecurityName": "How the diff names a ticker: the issuer, which ticker it is (tickerAsOf), whether it is mapped.",
    "PositionExplanation": "One ticker of the view explained, at one version.",
    "PositionHistory": "A position over every published version, per selected manager, as columns.",
    "WindowTrades": "One selected manager's trades inside a diff's window, largest traded value first, as columns of "
    "one length: the i-th item of each list is the i-th trade.",
    "PreviewAgentPayload": "A preview pack's agent payload.",
    "PreviewArtifact": "A preview pack's artifact.",
    "PreviewAuditExport": "A preview pack's audit export.",
    "PreviewMethodology": "A preview pack's methodology.",
    "PreviewTrade": "A disclosed transaction as read from its source row.",
    "PreviewSourceFile": "One source file read: its rows, what was kept and excluded, and each malformed row with its "
    "reason.",
    "EvidenceStatement": "A short statement naming the changes (managerIds) whose source rows it cites.",
    "CitedStatement": "A short statement citing the source rows it rests on.",
    "VersionCatalog": "The versions of a pack.",
    "VersionDiff": "What changed between two versions over one view; never why.",
    "PolicyChange": "A policy check whose outcome differs between the two versions.",
    "HeldChange": "The artifact's position of a selected manager: its sources are this quarter's rows. The ticker "
    "and its naming are the explanation's, given here only where this entry's differs.",
    "EndedChange": "A position no longer held: the sources are the previous quarter's rows (previousQuarter).",
    "View": "The selected view: managers, mode and its tickers.",
    "ViewPosition": "A selected manager's position (or exit) in a ticker of the view.",
    "AgentPayload": f"What an agent reads first, at most {AGENT_BUDGET_BYTES} bytes of canonical JSON at any number of "
    "managers; the full view, artifact and audit are beside it.",
    "CopycatLatestPack": f"The latest {PACK_ID_VALUE} version.",
    "PreviewLatestPack": "A preview pack: caveats stay attached.",
    "CopycatAuditExport": "The artifact was validated against the PackArtifact schema before it was returned.",
    "AgentHolding": "A headline holding: its weight in the view's total value and its largest holders.",
    "AgentPolicy": "The policy result in brief; validatePolicy gives every check.",
    "NextCall": "A call to make next, with its exact arguments.",
    "ViewTicker": "One ticker of a view: every selected manager's position or ended one, holders, buyers, sellers.",
}
KIND_SUFFIXES = {"AgentPayload": "agent payload", "Artifact": "artifact", "Methodology": "methodology"}
PACK_KINDS = {"Person": "person tracker", "Congress": "congress-trades", "Social": "social momentum"}


def component_description(name: str) -> str | None:
    """The description of a component that has none of its own."""
    if name in COMPONENTS:
        return COMPONENTS[name]
    for kind, pack in PACK_KINDS.items():
        for suffix, part in KIND_SUFFIXES.items():
            if name == kind + suffix:
                return f"The {pack} preview's {part}."
    if name.startswith("Artifact"):
        return f"PackArtifact part: {name.removeprefix('Artifact')}."
    if name.endswith("VersionReference"):
        return "A version of the pack."
    return None
