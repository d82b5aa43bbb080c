"""The SEC's Form 13F data sets as its data-set page lists them, and which of them cover a window's quarters.

The list is read from the page, never built from a pattern: the SEC has renamed the sets (`2013q2_form13f.zip` …
`2023q4_form13f.zip` by calendar quarter of filing, then `01jan2024-29feb2024_form13f.zip`, then three-month filing
windows such as `01mar2024-31may2024_form13f.zip`), marks a re-upload `_N`, and moved the files to another path
(`/files/structureddata/…` until the 01jun2026-31aug2026 set, `/files/datastandardsinnovation/…` from it). A size
the page states beside a link ("95.71 MB" in its row) is kept, to check the download against. Pure: parsing and
choosing only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from fnmatch import fnmatch
from html.parser import HTMLParser
from urllib.parse import unquote, urljoin, urlsplit

from builder.fetch.client import FetchError
from builder.fetch.window import deadline, quarter_end

PAGE_PATH = "/data-research/sec-markets-data/form-13f-data-sets"  # the SEC's Form 13F data-set page
LINK_PATTERN = "*_form13f*.zip"  # every set's file name, old and new naming, re-uploads included
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
# A size as a page writes it: "95.71 MB", "1.2 GB", "512 KB", "98,112,345 bytes".
_SIZE = re.compile(r"\b(\d[\d,]*(?:\.(\d+))?)\s*(bytes|[KMG]i?B)\b", re.IGNORECASE)
_NAME = re.compile(
    r"(?:(?P<year>\d{4})q(?P<quarter>[1-4])|(?P<first>\d{2}[a-z]{3}\d{4})-(?P<last>\d{2}[a-z]{3}\d{4}))"
    r"_form13f(?:_(?P<upload>\d+))?\.zip",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Stated:
    """A size the page states for a set, as written, and the byte counts it may stand for: rounded to its last
    digit, in units of 1000 or of 1024 (a page's "MB" may be either)."""

    text: str
    bounds: tuple[tuple[int, int], ...]  # (lowest, highest) byte counts, one pair per reading

    def admits(self, size: int) -> bool:
        return any(low <= size <= high for low, high in self.bounds)

    @property
    def most(self) -> int:
        return max(high for _, high in self.bounds)


@dataclass(frozen=True, slots=True)
class DataSet:
    """One set as the page links it: the SEC's file name, where it is, the filing window it holds, and the size
    the page states for it (None when it states none)."""

    name: str
    url: str
    first: date  # the first filing day the set holds
    last: date  # the last filing day the set holds
    upload: int  # 0 for the first upload, N for the re-upload named `_N`
    stated: Stated | None = None

    @property
    def window(self) -> str:
        """The name without its re-upload suffix: one window, whichever upload."""
        return self.name.lower().split("_form13f")[0]


class _Links(HTMLParser):
    """Every link's href with the text of the link and what follows it in its table row or list item."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[tuple[str, list[str]]] = []
        self._open: list[str] | None = None  # the text of the newest link's row, while it lasts

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        href = dict(attrs).get("href") if tag == "a" else None
        if href:
            self._open = []
            self.links.append((href.strip(), self._open))
        elif tag in ("tr", "li"):
            self._open = None

    def handle_endtag(self, tag: str) -> None:
        if tag in ("tr", "li", "table", "ul", "ol"):
            self._open = None

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._open.append(data)


def listed_sets(page: str, page_url: str, base: str) -> list[DataSet]:
    """Every set the page links, the newest upload of each window, oldest window first. A link may be relative or
    absolute; its path is asked for at `base` (the SEC's host, or the stand-in or mirror that replaces it)."""
    parser = _Links()
    parser.feed(page)
    found = {}
    for href, text in parser.links:
        path = urlsplit(urljoin(page_url, href)).path
        name = unquote(path.rsplit("/", 1)[-1])
        if fnmatch(name.lower(), LINK_PATTERN):
            found[name] = data_set(name, f"{base.rstrip('/')}{path}", stated_size(" ".join(text)))
    if not found:
        raise FetchError(
            f"{page_url}: the page links no Form 13F data set (no {LINK_PATTERN}); the SEC's page has changed — "
            "download the sets by hand into sec13f-datasets/"
        )
    return newest_uploads(found.values())


def data_set(name: str, url: str, stated: Stated | None = None) -> DataSet:
    """The set a file name names, its filing window read from the name."""
    match = _NAME.fullmatch(name)
    if match is None:
        raise FetchError(f"{name}: a Form 13F data set whose filing window cannot be read from its name ({url})")
    upload = int(match["upload"] or 0)
    if match["year"]:  # until 2023: the calendar quarter of filing
        end = quarter_end(date(int(match["year"]), 3 * int(match["quarter"]), 1))
        return DataSet(name, url, date(end.year, end.month - 2, 1), end, upload, stated)
    return DataSet(name, url, _day(match["first"], name), _day(match["last"], name), upload, stated)


def stated_size(text: str) -> Stated | None:
    """The first size written in `text`, or None."""
    match = _SIZE.search(text)
    if match is None:
        return None
    number, decimals, unit = match[1].replace(",", ""), len(match[2] or ""), match[3].upper()
    if unit == "BYTES":
        return Stated(match[0], ((int(float(number)),) * 2,))
    power = "KMG".index(unit[0]) + 1
    step = 10.0**-decimals  # a stated 95.71 is anything that rounds or truncates to it: 95.70 … 95.72
    bounds = tuple(
        (int((float(number) - step) * base**power), int((float(number) + step) * base**power) + 1)
        for base in ((1024,) if unit.endswith("IB") else (1000, 1024))
    )
    return Stated(match[0], bounds)


def _day(text: str, name: str) -> date:
    month = text[2:5].lower()
    try:
        return date(int(text[5:]), _MONTHS.index(month) + 1, int(text[:2]))
    except ValueError as exc:
        raise FetchError(f"{name}: {text!r} is not a day; the SEC's set names have changed") from exc


def newest_uploads(sets: Iterable[DataSet]) -> list[DataSet]:
    """One set per filing window, its newest upload (a `_N` re-upload replaces the sets before it)."""
    newest: dict[str, DataSet] = {}
    for candidate in sets:
        held = newest.get(candidate.window)
        if held is None or candidate.upload > held.upload:
            newest[candidate.window] = candidate
    return sorted(newest.values(), key=lambda found: (found.first, found.last))


def covering(sets: Iterable[DataSet], quarters: Iterable[date]) -> tuple[list[DataSet], list[date]]:
    """The sets holding the quarters' original 13F filings, oldest first, and the quarters no listed set covers yet.

    A set holds the filings made in its filing window, whatever period they report. A quarter's 13F-HR is due
    within 45 days after the quarter ends (17 CFR 240.13f-1(a)(1)) and cannot be made before it ends, so its
    originals are filed in (quarter end, quarter end + 45 days]; the sets whose window overlaps that span hold
    them. Amendments and late filings come months later, in later sets: not fetched for that quarter. The day of
    the quarter end itself is left out: a report for it filed that day (after the SEC's 5:30 pm cut-off, the
    sets' readme says) lands in the next set, and counting it would add the previous quarter's whole set."""
    sets = list(sets)
    chosen: dict[str, DataSet] = {}
    uncovered = []
    for end in quarters:
        first, last = end + timedelta(days=1), deadline(end)
        hits = [found for found in sets if found.first <= last and found.last >= first]
        if not hits or max(found.last for found in hits) < last:
            uncovered.append(end)
        chosen.update((found.name, found) for found in hits)
    return sorted(chosen.values(), key=lambda found: found.first), uncovered
