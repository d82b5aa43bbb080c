"""What a release knows: the pack catalog, every artifact and the release index, as plain JSON data.

The release step assembles it from the sources (builder.release.assemble); the server loads it back from
the release files (builder.release.store). Both hand the same object to the same handlers, so a live
answer has the bytes the builder would have written.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from typing import Any, NamedTuple, NotRequired, TypedDict, TypeVar

from builder.api.shapes import CatalogEntry, ManagerListing, PackStatus
from builder.recent import Recent
from builder.research.methods.audit import ManagerSelection, ReleaseIdentity, SourceFileRecord
from builder.research.methods.ethos import Holdings, holdings
from builder.research.previews.artifacts import PreviewArtifact, PreviewMethodology
from builder.research.previews.pack import PackLabel
from builder.research.previews.shapes import PreviewPayload, PreviewWarning
from builder.research.schema import PackArtifact

T = TypeVar("T")
MEMO_SIZE = 512  # derived values (views, scores, policy) kept per release; live subsets are unbounded otherwise
# values as large as a view, its rows, an explainer (which holds two artifacts) or a pair's changes: the last few (the
# builder asks in order, and lets go of them after each group of answers: ReleaseData.scoped)
LARGE_MEMO_SIZE = 3


class IndexedPack(CatalogEntry):
    """A pack as the release index lists it: its catalog entry without the links (a planned one has no version)."""

    status: PackStatus
    latestVersion: str | None
    asOf: str | None


class CopycatIndex(TypedDict):
    versions: list[str]  # oldest first
    managers: list[ManagerListing]
    selection: NotRequired[ManagerSelection]  # how packs.toml's `largest` chose managers (only when it does)


class PreviewEntry(TypedDict):
    """A preview pack as the release holds it: everything its answers are made of."""

    id: str
    label: PackLabel
    title: str
    description: str
    version: str
    asOf: str
    artifact: PreviewArtifact
    agentPayload: PreviewPayload
    caveats: list[str]
    methodology: PreviewMethodology
    warnings: list[PreviewWarning]


class IndexWarning(TypedDict):
    """A scope warning of what the release publishes, naming its pack and what it is about (null where it has none)."""

    code: str
    message: str
    source: str
    pack: str
    manager: str | None
    quarter: str | None
    accession: str | None
    cusip: str | None


class ReleaseIndex(TypedDict):
    """What a release knows besides its artifacts and answers (data/index.json): written by the publish
    (builder.release.assemble), read back by `ras serve` and `ras review`."""

    asOf: str
    fixture: bool
    packs: list[IndexedPack]  # the catalog: 13f-copycat, the previews, the planned packs
    copycat: CopycatIndex
    previews: dict[str, PreviewEntry]
    warnings: list[IndexWarning]
    skipped: list[PreviewWarning]  # source files skipped by rule: what, why, which
    provenance: list[SourceFileRecord]  # every source file


def bare_index(versions: list[str]) -> ReleaseIndex:
    """The index of a ReleaseData that holds only 13f-copycat artifacts, these versions' (a build worker's, computing
    what answers of every kind read of the version it built)."""
    return {
        "asOf": "",
        "fixture": False,
        "packs": [],
        "copycat": {"versions": versions, "managers": []},
        "previews": {},
        "warnings": [],
        "skipped": [],
        "provenance": [],
    }


class Learned(NamedTuple):
    """What computing added to a ReleaseData's memos, by memo (ReleaseData.learned)."""

    pinned: dict[Hashable, Any]
    memo: dict[Hashable, Any]
    held: dict[str, Holdings]


@dataclass(frozen=True, slots=True)
class ReleaseData:
    """Everything handlers read. `identity` (release id, manifest sha256) exists only once sealed."""

    index: ReleaseIndex
    # 13f-copycat artifacts by version id: built to the schema, and validated by the publish (export_audit_trail)
    artifacts: Mapping[str, PackArtifact]
    identity: ReleaseIdentity | None = None
    openapi: dict[str, Any] | None = None  # the OpenAPI document the release step generated for this release
    # small values derived from one version that answers of every kind read (its sha256, as-of, quarter, what a diff
    # carries through it): memo(pinned=True), never evicted, so no answer decodes a whole artifact again for them
    pinned: dict[Hashable, Any] = field(default_factory=dict)
    _packs: dict[str, IndexedPack] = field(default_factory=dict)
    _memo: Recent[Hashable, Any] = field(default_factory=lambda: Recent(MEMO_SIZE))
    _large: Recent[Hashable, Any] = field(default_factory=lambda: Recent(LARGE_MEMO_SIZE))
    _kept: list[dict[Hashable, Any]] = field(default_factory=list)  # memo(scoped=True) of each open `scoped` block
    _held: dict[str, Holdings] = field(default_factory=dict)  # version → its holdings (research.methods.ethos)

    def __post_init__(self) -> None:
        self._packs.update({pack["id"]: pack for pack in self.index["packs"]})

    def memo(
        self,
        key: Hashable,
        compute: Callable[[], T],
        *,
        large: bool = False,
        pinned: bool = False,
        scoped: bool = False,
    ) -> T:
        """A value derived from this release, computed once (bounded LRU); pure, so caching changes no byte.

        `large`: kept among the last LARGE_MEMO_SIZE such values only (a pair's changes at 500 managers are
        tens of megabytes; the builder renders every mode of a pair before the next pair). `pinned`: kept for the
        release's life (small, and read again after any number of other values). `scoped` (a large value): kept to
        the end of the `scoped` block it is made in, whatever other large values come after it (read again across
        a group of answers that make several in turn); outside one, as `large`.
        """
        table = self.pinned if pinned else self._kept[-1] if scoped and self._kept else None
        if table is not None:
            if key not in table:
                table[key] = compute()
            kept: T = table[key]
            return kept
        memo = self._large if large else self._memo
        if key in memo:
            found: T = memo[key]
            return found
        value = compute()
        memo.put(key, value)
        return value

    @property
    def as_of(self) -> date:
        return date.fromisoformat(self.index["asOf"])

    def history(self, version: str) -> list[Holdings]:
        """What the holding streaks read of each 13f-copycat version older than `version`, oldest first."""
        return [self.holdings(v) for v in self.versions[: self.versions.index(version)]]

    def holdings(self, version: str, read: Callable[[str], PackArtifact] | None = None) -> Holdings:
        """A version's holdings (research.methods.ethos.holdings), kept for the release's life; `read` gives the
        artifact where it should not be kept whole (ras serve, for every version but the latest)."""
        found = self._held.get(version)
        if found is None:
            found = self._held[version] = holdings((read or self.artifacts.__getitem__)(version))
        return found

    @contextmanager
    def scoped(self) -> Iterator[None]:
        """Inside, memos as usual; after, the large ones made inside are let go (a publish's rendering processes
        share none between groups of answers, and at 2,000 managers one group's were 1.2 GB)."""
        before = set(self._large)
        self._kept.append({})
        try:
            yield
        finally:
            self._kept.pop()
            for key in [key for key in self._large if key not in before]:
                self._large.pop(key)

    def learned(self, compute: Callable[[], T]) -> tuple[T, Learned]:
        """compute(), and what it added to the memos that outlive a render (pinned, memo, holdings): what a forked
        process sends back so that the one it was forked from keeps it too (adopt). Large values stay where made."""
        pinned, memo, held = set(self.pinned), set(self._memo), set(self._held)
        value = compute()
        return value, Learned(
            {key: found for key, found in self.pinned.items() if key not in pinned},
            {key: found for key, found in self._memo.items() if key not in memo},
            {version: found for version, found in self._held.items() if version not in held},
        )

    def adopt(self, learned: Learned) -> None:
        """Keep what `learned` says another process computed from this release (the same values: memos are pure)."""
        self.pinned.update(learned.pinned)
        for key, found in learned.memo.items():
            self._memo.put(key, found)
        self._held.update(learned.held)

    def with_identity(self, identity: ReleaseIdentity) -> ReleaseData:
        # memo keys never name the release
        return ReleaseData(
            self.index,
            self.artifacts,
            identity,
            self.openapi,
            self.pinned,
            _memo=self._memo,
            _large=self._large,
            _kept=self._kept,
            _held=self._held,
        )

    def pack(self, pack_id: str) -> IndexedPack | None:
        return self._packs.get(pack_id)

    @property
    def versions(self) -> list[str]:
        """13f-copycat version ids, oldest first."""
        return self.index["copycat"]["versions"]

    @property
    def latest(self) -> PackArtifact:
        return self.artifacts[self.versions[-1]]

    def preview(self, pack_id: str) -> PreviewEntry | None:
        return self.index["previews"].get(pack_id)
