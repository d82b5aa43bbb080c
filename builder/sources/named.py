"""Managers packs.toml names by CIK alone, named by their filings: the name the newest filing's cover page gives
(as filed: EDGAR's filers write their names in capitals), and an id made of that name.

The id is what agents pass as `managers=`: lower-case words of the name joined by hyphens (`BERKSHIRE HATHAWAY INC`
→ `berkshire-hathaway-inc`), cut to fit; when two managers would get one id, each of them adds its CIK. An operator
who wants a shorter or fixed id gives `id` in packs.toml (a filer that renames itself renames a derived id with it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

from builder.records import Filing, ManagerConfig

ID_LENGTH = 48  # of a derived id: packs.MANAGER_ID allows 64, and a CIK may still be added to it
_NOT_WORD = re.compile(r"[^a-z0-9]+")


def named_managers(managers: Sequence[ManagerConfig], filings: Iterable[Filing]) -> tuple[ManagerConfig, ...]:
    """`managers` with every missing name and id filled from their filings (a manager without filings keeps its CIK as
    both: the problem that names it comes first)."""
    newest: dict[str, Filing] = {}
    for filing in filings:
        known = newest.get(filing.cik)
        if known is None or (filing.filed, filing.accession) > (known.filed, known.accession):
            newest[filing.cik] = filing
    named = [
        replace(m, name=m.name or (newest[m.cik].manager_name.strip() if m.cik in newest else "") or f"CIK {m.cik}")
        for m in managers
    ]
    made = {m.cik: derived_id(m.name) or f"cik-{int(m.cik)}" for m in named if not m.id}
    taken = [m.id for m in named if m.id] + list(made.values())
    twice = {made_id for made_id in made.values() if taken.count(made_id) > 1}
    return tuple(
        m if m.id else replace(m, id=made[m.cik] + (f"-{int(m.cik)}" if made[m.cik] in twice else "")) for m in named
    )


def derived_id(name: str) -> str:
    """The id a manager's name gives: its words, lower-case, joined by hyphens, at most ID_LENGTH characters."""
    words = _NOT_WORD.sub("-", name.lower()).strip("-")
    return words[:ID_LENGTH].rstrip("-")
