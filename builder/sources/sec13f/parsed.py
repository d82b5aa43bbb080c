"""One 13F source file's bytes → what they hold, before its path gives it a name; pure, so cacheable by hash."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import get_args

from builder.records import FormType, HoldingRow
from builder.sources.sec13f.document import InformationTable, PrimaryDocument, parse_document
from builder.sources.sec13f.safexml import DocumentError
from builder.sources.sec13f.submission import carried_documents, is_submission, parse_submission

READ_FORMS: dict[str, FormType] = {form: form for form in get_args(FormType)}  # the forms read, as their type


@dataclass(frozen=True, slots=True)
class Envelope:
    """An EDGAR submission envelope as the reader needs it: form, accession, filing date, the 13F documents."""

    submission_type: str
    accession: str
    filed: date
    primary: PrimaryDocument | None  # None: not a holdings report, so its documents were not read
    rows: tuple[HoldingRow, ...]


Parsed = Envelope | PrimaryDocument | InformationTable


def parse_file(data: bytes) -> Parsed:
    """What one file holds; raises DocumentError for anything that is not a readable 13F file."""
    if not is_submission(data):
        return parse_document(data)
    submission = parse_submission(data)
    if submission.submission_type not in READ_FORMS:
        return Envelope(submission.submission_type, submission.accession, submission.filed, None, ())
    primary, rows = carried_documents(submission)
    if rows is None and not (primary.summary and primary.summary.entry_total == 0):
        raise DocumentError("carries a primary document but no information table")
    return Envelope(submission.submission_type, submission.accession, submission.filed, primary, rows or ())
