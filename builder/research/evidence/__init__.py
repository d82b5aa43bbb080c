"""Corporate actions decided by evidence: what the holders of each security filed at two quarter ends, from the
Form 13F data sets or the pack's own filings, turned into derived corporate-action legs (`decide`)."""

from builder.research.evidence.decide import decide
from builder.research.evidence.witnessed import NO_EVIDENCE, Evidence, pack_witnesses

__all__ = ["NO_EVIDENCE", "Evidence", "decide", "pack_witnesses"]
