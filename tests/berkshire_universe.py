"""Berkshire Hathaway's real 13F series (tests/berkshire.py) inside a Form 13F data-set universe of FICTIONAL holders.

The data sets under sec13f-datasets/ hold Berkshire's own filings as filed (each information-table row one
INFOTABLE row of its accession) and WITNESSES fictional filers (CIKs 9900000001…, far above any EDGAR has
assigned; names "Fictional Witness Capital NN LLC") who hold some of the securities Berkshire holds, priced at
Berkshire's implied prices, and go through exactly the public record of tests/berkshire_corporate_actions.csv
between quarter ends (carried by builder.research.changes.carry, rounded down per holder). Every TRADER_EVERY-th
witness also trades the securities an event touched, in the event's quarter. Nothing invented is attributed to
Berkshire: its rows are its filings'. With `second_manager`, the first witness is also a pack manager, marked
fictional in packs.toml, with its filings under sec13f/.
"""

from __future__ import annotations

from pathlib import Path

from bench import synthetic
from bench.witnesses import WITNESS_CIK_BASE, Universe, witness_filings, witness_name, write_witnessed
from builder.sources.tables.corporate_actions import parse_corporate_actions
from builder.sources.tree import read_sources
from tests.berkshire import CIK, berkshire_tree

__all__ = ["WITNESS_CIK_BASE", "berkshire_universe"]
ACTIONS = Path(__file__).with_name("berkshire_corporate_actions.csv")
WITNESSES = 20
SEED = 2013
# Securities Berkshire bought in the quarter they were first listed: no one held them a quarter before.
NEW_LISTINGS = {
    "76131D103": "Restaurant Brands International, formed 2014-12-12",
    "G85158106": "StoneCo, listed 2018-10-25",
    "833445109": "Snowflake, listed 2020-09-16",
}


def berkshire_universe(
    root: Path, *, witnesses: int = WITNESSES, second_manager: bool = False, versions: int = 8
) -> Path:
    """root/ as berkshire_tree writes it plus sec13f-datasets/ (and, with `second_manager`, a fictional manager)."""
    berkshire_tree(root, versions=versions)
    sources, _ = read_sources(root)
    filings = sorted((f for f in sources.filings if f.cik == CIK.zfill(10)), key=lambda f: (f.period, f.filed))
    legs, problems = parse_corporate_actions(ACTIONS.read_text(), "corporate_actions.csv")
    assert not problems, problems
    universe = Universe(witnesses, SEED, WITNESS_CIK_BASE, frozenset(NEW_LISTINGS))
    found = witness_filings(filings, legs, universe)
    if second_manager:  # the first witness's filings under sec13f/ as well: a pack manager, marked fictional
        first = [f for f in found if f.cik == f"{WITNESS_CIK_BASE + 1:010d}"]
        synthetic.write_filings(root, first, {"files": 0, "bytes": 0, "filings": 0, "rows": 0})
        _add_manager(root, first[0].cik, witness_name(1))
    write_witnessed(root, sources.filings, found)
    return root


def _add_manager(root: Path, cik: str, name: str) -> None:
    packs = root / "packs.toml"
    text = "# The second manager is FICTIONAL (tests/berkshire_universe.py): invented holdings beside Berkshire's.\n"
    text += packs.read_text()
    text += f'\n[[copycat.managers]]\nid = "fictional-witness"\nname = "{name}"\ncik = "{int(cik)}"\nfictional = true\n'
    packs.write_text(text)
