"""Form 13F data sets written as filings stream past, for synthetic trees too large to hold in memory.

`DataSets(folder).tee(filings)` passes each filing on and appends its rows to the tables of its filing window (the
bytes bench/datasets_writer.py gives a filing, in the order the filings came, INFOTABLE_SK numbered in that order);
`close()` zips each window's tables into `folder` as the SEC names the set and returns the paths. Only one filing
is in memory at a time; the tables wait in a temporary folder beside the zips.
"""

from __future__ import annotations

import shutil
import tempfile
import zipfile
from collections.abc import Iterable, Iterator
from datetime import date
from pathlib import Path
from typing import IO

from bench.datasets_writer import COLUMNS, ZIP_TIME, table_rows, tsv, window, window_name
from builder.records import Filing

COPY_BYTES = 1 << 20  # a table is copied into its zip a megabyte at a time


class DataSets:
    """The data sets of the filings `tee` has seen, one open table file per window and member."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.scratch = Path(tempfile.mkdtemp(prefix=".tables-", dir=folder))
        self.tables: dict[str, dict[str, IO[bytes]]] = {}
        self.opens: dict[str, date] = {}
        self.info_rows: dict[str, int] = {}

    def tee(self, filings: Iterable[Filing]) -> Iterator[Filing]:
        """Each of `filings`, once its rows are written to its window's tables."""
        for filing in filings:
            self.add(filing)
            yield filing

    def add(self, filing: Filing) -> None:
        name = window_name(filing.filed)
        if name not in self.tables:
            self.tables[name] = {member: (self.scratch / f"{name}.{member}").open("wb") for member in COLUMNS}
            for member, handle in self.tables[name].items():
                handle.write(tsv(COLUMNS[member], []))
            self.opens[name], self.info_rows[name] = window(filing.filed)[0], 0
        for member, rows in table_rows(filing).items():
            if member == "INFOTABLE.tsv":
                start, self.info_rows[name] = self.info_rows[name], self.info_rows[name] + len(rows)
                rows = [(row[0], key, *row[1:]) for key, row in enumerate(rows, start=start + 1)]
            if rows:
                self.tables[name][member].write(tsv(COLUMNS[member], rows).split(b"\n", 1)[1])  # the rows alone

    def close(self) -> list[Path]:
        """Zip every window's tables (oldest window first) and remove the scratch folder; the zips written."""
        written = []
        for name in sorted(self.tables, key=self.opens.__getitem__):
            path = self.folder / name
            with zipfile.ZipFile(path, "w") as archive:
                for member, handle in self.tables[name].items():
                    handle.close()
                    info = zipfile.ZipInfo(member, ZIP_TIME)
                    info.compress_type = zipfile.ZIP_DEFLATED
                    info.external_attr = 0o644 << 16
                    with (self.scratch / f"{name}.{member}").open("rb") as source, archive.open(info, "w") as target:
                        shutil.copyfileobj(source, target, COPY_BYTES)
            written.append(path)
        shutil.rmtree(self.scratch)
        return written
