"""One identity per person: the spellings of a name in disclosures reduced to one key (pure).

Real files spell one member several ways: honorifics and a scraper's placeholder ("Hon.", "Mr.", "Mrs.",
"Dr", "Honorable", "None Marie Newman"), suffixes ("MD, FACS", "Jr."), middle names and initials ("Alan
S. Lowenthal", "Marjorie Taylor Greene"), surname first ("Boozman, John"). The key is the first given
name and the last word of the surname, accents and case folded. A member is that key within a chamber
and, for the House, a state: a district is never an identity (CA53 was held by Susan A. Davis, then Sara
Jacobs), and two members of one name in two states stay two. What no rule can know (a nickname) an
operator adds as aliases: spellings of one person.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

# Words that are no part of a name: honorifics, offices, and placeholders a scraper writes for a missing prefix.
NOT_NAMES = {"hon", "honorable", "honourable", "the", "mr", "mrs", "ms", "miss", "dr", "sen", "senator", "rep",
             "representative", "congressman", "congresswoman", "none", "null", "nan"}  # fmt: skip
SUFFIXES = {"jr", "sr", "ii", "iii", "iv", "md", "facs", "phd", "esq", "cpa", "dds", "dvm", "mba"}
WORD = re.compile(r"[^\W\d_]+")  # a hyphen splits ("Ocasio-Cortez" ends in "cortez", as "Ocasio Cortez" does)
APOSTROPHES = re.compile(r"['’`]")  # O'Rourke, O’Rourke and ORourke are one spelling
DISPLAY_DROPPED = re.compile(r"\b(?:" + "|".join(sorted(NOT_NAMES)) + r")\b\.?", re.I)
# A suffix with the commas around it: "Neal P. Dunn, MD, FACS" and "Neal Patrick MD, Facs Dunn" lose theirs whole,
# so that a comma left is a surname-first one ("Boozman, John").
SUFFIX_DEBRIS = re.compile(r"(?:,\s*)?\b(?:" + "|".join(sorted(SUFFIXES)) + r")\b\.?(?:\s*,)?", re.I)

IDENTITY_RULE = (
    "a person is the first given name and the last word of the surname, with honorifics, offices and placeholders "
    "(Hon., Mr., Mrs., Dr, Honorable, None), suffixes (Jr., MD, FACS), middle names and initials removed, surname-"
    "first forms turned round, accents and case folded; a member is that name within a chamber and, in the House, "
    "a state (never a district: one district is held by different people in turn); configured aliases merge "
    "spellings no rule knows"
)
NameKey = tuple[str, str]  # (first given name, surname), folded


@functools.lru_cache(maxsize=4096)  # a file repeats a few hundred spellings thousands of times
def name_key(name: str) -> NameKey:
    """(first given name, last word of the surname): "Hon. Mark Dr Green" and "Green, Mark" → ("mark", "green")."""
    parts = [_words(part) for part in SUFFIX_DEBRIS.sub(" ", re.sub(r"\([^)]*\)", " ", name)).split(",")]
    parts = [words for words in parts if words]
    if len(parts) >= 2:  # surname first: "Boozman, John", "Capito, Shelley Moore"
        surname, given = parts[0], [word for part in parts[1:] for word in part]
    elif parts:
        surname, given = parts[0][-1:], parts[0][:-1]
    else:
        return ("", "")
    names = [word for word in given if len(word) > 1] or given  # initials only when nothing else is given
    return (names[0] if names else "", surname[-1])


def display_name(spelling: str) -> str:
    """A spelling as "First Last": honorifics, placeholders and suffixes removed, a surname-first form turned
    round ("None Marie Newman" → "Marie Newman", "Boozman, John" → "John Boozman", "Neal Patrick MD, Facs Dunn"
    → "Neal Patrick Dunn"); parenthesised notes ("(fixture)") kept at the end."""
    notes = re.findall(r"\([^)]*\)", spelling)
    text = SUFFIX_DEBRIS.sub(" ", DISPLAY_DROPPED.sub(" ", re.sub(r"\([^)]*\)", " ", spelling)))
    parts = [" ".join(part.split()) for part in text.split(",")]
    parts = [part for part in parts if part]
    return " ".join([*parts[1:], *parts[:1], *notes]) if parts else spelling


def state_of(district: str) -> str:
    """The state of a House district ("CA53" → "CA"); "" when there is none (the Senate shapes carry none)."""
    match = re.match(r"\s*([A-Za-z]{2})", district)
    return match.group(1).upper() if match else ""


def _words(text: str) -> list[str]:
    folded = unicodedata.normalize("NFKD", APOSTROPHES.sub("", text)).encode("ascii", "ignore").decode().casefold()
    return [word for word in WORD.findall(folded) if word not in NOT_NAMES and word not in SUFFIXES]


@dataclass(frozen=True, slots=True)
class Person:
    """One member: the key the rules and aliases give, a name to show, every spelling merged into it."""

    key: tuple[str, str, str, str]  # chamber, state ("" for the Senate), first given name, surname
    name: str  # the most used spelling, honorifics and placeholders removed
    spellings: tuple[tuple[str, int], ...]  # (spelling as filed, rows), most rows first

    @property
    def chamber(self) -> str:
        return self.key[0]


class PersonRow(Protocol):
    """A row naming a person (CongressTrade)."""

    @property
    def chamber(self) -> str: ...

    @property
    def member(self) -> str: ...  # as filed

    @property
    def district(self) -> str: ...

    @property
    def member_key(self) -> NameKey: ...

    @property
    def state(self) -> str: ...


class People:
    """The persons named by a set of rows; `aliases` (groups of spellings of one person) merge what no rule knows."""

    def __init__(self, rows: Iterable[PersonRow], aliases: Iterable[Sequence[str]] = ()) -> None:
        self._canonical = {name_key(spelling): name_key(group[0]) for group in aliases for spelling in group}
        self._keys: dict[tuple[str, str, str], tuple[str, str, str, str]] = {}  # by (chamber, spelling, district)
        spellings: dict[tuple[str, str, str, str], Counter[str]] = defaultdict(Counter)
        for row in rows:
            spellings[self.key(row)][row.member] += 1
        self._people = {key: _person(key, counts) for key, counts in spellings.items()}

    def key(self, row: PersonRow) -> tuple[str, str, str, str]:
        """The person key of a row: its name by the rules, then the aliases; the House adds the district's state."""
        found = self._keys.get((row.chamber, row.member, row.district))
        if found is None:
            first, last = self._canonical.get(row.member_key, row.member_key)
            found = self._keys[row.chamber, row.member, row.district] = (row.chamber, row.state, first, last)
        return found

    def of(self, row: PersonRow) -> Person:
        return self._people[self.key(row)]

    def merged(self) -> list[Person]:
        """Persons filed under more than one spelling, by name."""
        return sorted((p for p in self._people.values() if len(p.spellings) > 1), key=lambda p: (p.name, p.key))


def _person(key: tuple[str, str, str, str], counts: Counter[str]) -> Person:
    spellings = tuple(sorted(counts.items(), key=lambda item: (-item[1], item[0])))
    shown: Counter[str] = Counter()
    for spelling, rows in spellings:
        shown[display_name(spelling)] += rows
    return Person(key, min(shown, key=lambda name: (-shown[name], name)), spellings)
