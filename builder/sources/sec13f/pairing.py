"""Pairs each 13F primary document with its information table when they come as separate files; pure."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import groupby
from pathlib import PurePosixPath

from builder.sources.sec13f.document import InformationTable, PrimaryDocument

# Shorter shared prefixes ("b", "20") occur between unrelated files by chance; three characters is the
# shortest that still carries a name ("abc_primary.xml" + "abc_infotable.xml").
MIN_COMMON_PREFIX = 3


@dataclass(frozen=True, slots=True)
class LooseDocument:
    """A primary document or information table read from its own file, waiting for its partner."""

    source: str  # '/'-separated path relative to the source root
    accession: str | None  # accession number found in the path
    document: PrimaryDocument | InformationTable


Pair = tuple[LooseDocument, LooseDocument]  # (primary document, information table)
_Rule = Callable[[list[LooseDocument], list[LooseDocument]], list[Pair]]


def pair_documents(loose: Sequence[LooseDocument]) -> tuple[list[Pair], list[LooseDocument]]:
    """(primary, table) pairs, then the documents left alone.

    Rules in order: the same accession number in the path; the only primary and only table of a folder;
    the longest common file-name prefix within a folder, when unambiguous and not splitting a number.
    """
    primaries = [d for d in loose if isinstance(d.document, PrimaryDocument)]
    tables = [d for d in loose if isinstance(d.document, InformationTable)]
    pairs: list[Pair] = []
    rules: tuple[_Rule, ...] = (_by_accession, _alone_in_folder, _by_common_prefix)
    for rule in rules:
        found = rule(primaries, tables)
        taken = {document.source for pair in found for document in pair}
        pairs += found
        primaries = [d for d in primaries if d.source not in taken]
        tables = [d for d in tables if d.source not in taken]
    return pairs, primaries + tables


def common_prefix(primary: str, table: str) -> int:
    """Length of two file names' common prefix (case-insensitive), or 0 when it may not pair them."""
    a, b = primary.casefold(), table.casefold()
    length = len(os.path.commonprefix([a, b]))  # noqa: RUF071 (file names compared character by character)
    last, next_a, next_b = (
        _digit(a[length - 1 : length]),
        _digit(a[length : length + 1]),
        _digit(b[length : length + 1]),
    )
    # "2025-03-31_primary_doc.xml" and "2025-06-30_infotable.xml" share "2025-0": a split number, not a name
    splits_number = (next_a and next_b) or (last and (next_a or next_b))
    return 0 if length < MIN_COMMON_PREFIX or splits_number else length


def _by_accession(primaries: list[LooseDocument], tables: list[LooseDocument]) -> list[Pair]:
    found = []
    for accession in sorted({d.accession for d in primaries if d.accession}):
        with_primary = [d for d in primaries if d.accession == accession]
        with_table = [d for d in tables if d.accession == accession]
        if len(with_primary) == 1 and len(with_table) == 1:
            found.append((with_primary[0], with_table[0]))
    return found


def _alone_in_folder(primaries: list[LooseDocument], tables: list[LooseDocument]) -> list[Pair]:
    found = []
    for folder in sorted({_folder(d) for d in primaries}):
        in_primary = [d for d in primaries if _folder(d) == folder]
        in_table = [d for d in tables if _folder(d) == folder]
        if len(in_primary) == 1 and len(in_table) == 1 and _compatible(in_primary[0], in_table[0]):
            found.append((in_primary[0], in_table[0]))
    return found


def _by_common_prefix(primaries: list[LooseDocument], tables: list[LooseDocument]) -> list[Pair]:
    candidates = sorted(
        ((common_prefix(_name(p), _name(t)), p.source, t.source), p, t)
        for p in primaries
        for t in tables
        if _folder(p) == _folder(t) and _compatible(p, t)
    )
    ranked = [(key[0], p, t) for key, p, t in reversed(candidates) if key[0] > 0]
    found: list[Pair] = []
    settled: set[str] = set()
    for _, group in groupby(ranked, key=lambda candidate: candidate[0]):
        open_pairs = [(p, t) for _, p, t in group if p.source not in settled and t.source not in settled]
        uses = Counter(document.source for pair in open_pairs for document in pair)
        found += [(p, t) for p, t in open_pairs if uses[p.source] == 1 and uses[t.source] == 1]
        settled |= set(uses)  # a document that ties at its best length stays alone: never a guess
    return found


def _compatible(primary: LooseDocument, table: LooseDocument) -> bool:
    return not (primary.accession and table.accession and primary.accession != table.accession)


def _folder(document: LooseDocument) -> str:
    return str(PurePosixPath(document.source).parent)


def _name(document: LooseDocument) -> str:
    return PurePosixPath(document.source).name


def _digit(char: str) -> bool:
    return len(char) == 1 and char in "0123456789"
