"""A synthetic Form 13F data set of full size, written as the SEC packs it: one zip, seven tab-separated tables.

`write_set(path, rows)` writes INFOTABLE.tsv with `rows` rows (3.8 million is the largest real set, ~400 MB) and
the SUBMISSION, COVERPAGE and SUMMARYPAGE rows of its accessions; deterministic (a seeded `random.Random`). The
columns are the real ones (FORM13F_metadata.json) with realistic widths: issuer names, FIGIs on some rows, a
few per cent option and PRN rows, split rows of one CUSIP in one accession (about a fifth of the keys repeat).
"""

from __future__ import annotations

import random
import zipfile
from pathlib import Path

SEED = 13
FILERS = 8_000  # 7,400–8,600 filers a period (SOURCES.md)
UNIVERSE = 40_000  # distinct CUSIPs in a real set's INFOTABLE: tens of thousands
PERIOD = "30-JUN-2025"
FOLDER = "01JUN2025-31AUG2025_form13f/"  # the members nested as in the real Jun–Aug archive
INFOTABLE_HEADER = (
    "ACCESSION_NUMBER\tINFOTABLE_SK\tNAMEOFISSUER\tTITLEOFCLASS\tCUSIP\tFIGI\tVALUE\tSSHPRNAMT\tSSHPRNAMTTYPE\t"
    "PUTCALL\tINVESTMENTDISCRETION\tOTHERMANAGER\tVOTING_AUTH_SOLE\tVOTING_AUTH_SHARED\tVOTING_AUTH_NONE\n"
)


def accession(number: int) -> str:
    return f"0009{number:06d}-25-{number % 100000:06d}"


def cik(number: int) -> str:
    return f"{7_000_000_000 + number:010d}"


def universe(seed: int = SEED) -> list[str]:
    """The set's CUSIPs, most held first (a row draws index i with a weight falling with i)."""
    rng = random.Random(seed)
    alphabet = "0123456789ABCDEFGHJKLMNPQRSTUVWXYZ"
    return ["".join(rng.choice(alphabet) for _ in range(8)) + str(i % 10) for i in range(UNIVERSE)]


def write_set(path: Path, rows: int, seed: int = SEED) -> None:
    """The zip at `path` (written beside it, renamed into place when whole)."""
    cusips = universe(seed)
    rng = random.Random(seed + 1)
    names = [f"ISSUER {i:05d} {rng.choice(('INC', 'CORP', 'HOLDINGS INC', 'PLC', 'CO'))}" for i in range(UNIVERSE)]
    prices = [rng.uniform(2.0, 900.0) for _ in range(UNIVERSE)]
    weights = [rng.paretovariate(1.1) for _ in range(FILERS)]
    scale = rows / sum(weights)
    counts = [max(1, int(w * scale)) for w in weights]
    counts[0] += rows - sum(counts)
    partial = path.with_name(path.name + ".partial")
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        with archive.open(FOLDER + "INFOTABLE.tsv", "w", force_zip64=True) as sink:
            sink.write(INFOTABLE_HEADER.encode())
            serial = 0
            for filer, count in enumerate(counts):
                lines = []
                number = accession(filer)
                for _ in range(max(0, count)):
                    serial += 1
                    lines.append(_row(rng, number, serial, cusips, names, prices))
                sink.write("".join(lines).encode())
        archive.writestr(FOLDER + "SUBMISSION.tsv", _submissions())
        archive.writestr(FOLDER + "COVERPAGE.tsv", _coverpages())
        archive.writestr(FOLDER + "SUMMARYPAGE.tsv", _summaries(counts))
        for name in ("OTHERMANAGER", "OTHERMANAGER2", "SIGNATURE"):
            archive.writestr(FOLDER + f"{name}.tsv", "ACCESSION_NUMBER\n")
    partial.replace(path)


def _row(rng: random.Random, number: str, serial: int, cusips: list[str], names: list[str], prices: list[float]) -> str:
    index = int(UNIVERSE * rng.random() ** 3)  # a long tail: a few names in most books
    shares = rng.randint(1, 2_000_000)
    draw = rng.random()
    kind, put_call = ("PRN", "") if draw < 0.02 else ("SH", ("Put", "Call")[serial % 2] if draw < 0.05 else "")
    figi = f"BBG00{serial % 10_000_000:07d}" if serial % 3 == 0 else ""
    value = int(shares * prices[index])
    discretion = "SOLE" if draw < 0.7 else "DFND"
    return (
        f"{number}\t{serial}\t{names[index]}\tCOM\t{cusips[index]}\t{figi}\t{value}\t{shares}\t{kind}\t{put_call}\t"
        f"{discretion}\t{serial % 7 or ''}\t{shares}\t0\t0\n"
    )


def _submissions() -> str:
    lines = ["ACCESSION_NUMBER\tFILING_DATE\tSUBMISSIONTYPE\tCIK\tPERIODOFREPORT\n"]
    lines += [f"{accession(f)}\t{1 + f % 28:02d}-AUG-2025\t13F-HR\t{cik(f)}\t{PERIOD}\n" for f in range(FILERS)]
    return "".join(lines)


def _coverpages() -> str:
    header = "ACCESSION_NUMBER\tREPORTCALENDARORQUARTER\tISAMENDMENT\tAMENDMENTNO\tAMENDMENTTYPE\tFILINGMANAGER_NAME\tREPORTTYPE"
    lines = [header + "\n"]
    lines += [f"{accession(f)}\t{PERIOD}\tN\t\t\tFICTIONAL FILER {f:05d}\t13F HOLDINGS REPORT\n" for f in range(FILERS)]
    return "".join(lines)


def _summaries(counts: list[int]) -> str:
    lines = ["ACCESSION_NUMBER\tOTHERINCLUDEDMANAGERSCOUNT\tTABLEENTRYTOTAL\tTABLEVALUETOTAL\tISCONFIDENTIALOMITTED\n"]
    lines += [f"{accession(f)}\t0\t{count}\t0\tN\n" for f, count in enumerate(counts)]
    return "".join(lines)
