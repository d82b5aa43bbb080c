"""What limits the data, said where it belongs: each scope warning names its pack and what it is about (manager,
quarter, accession, CUSIP), reaches exactly the views that contain it, and a diff or a review can tell one that
appeared from one that only carried on (`scope`)."""

from builder.research.caveats.scope import (
    SCOPE,
    ManagerQuarter,
    about,
    for_managers,
    identity,
    sortable,
    version_warnings,
    warning,
    warning_changes,
)

__all__ = ["SCOPE", "ManagerQuarter", "about", "for_managers", "identity", "sortable", "version_warnings",
           "warning", "warning_changes"]  # fmt: skip
