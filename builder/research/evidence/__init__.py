"""Corporate actions decided by evidence: what the holders of each security filed at two quarter ends, from the
Form 13F data sets or the pack's own filings, turned into derived corporate-action legs (`decide`); the witnesses one
version reads (`narrowed`) and their `digest`."""

from builder.research.evidence.decide import decide
from builder.research.evidence.narrowed import digest, narrowed
from builder.research.evidence.witnessed import NO_EVIDENCE, Evidence, pack_witnesses

__all__ = ["NO_EVIDENCE", "Evidence", "decide", "digest", "narrowed", "pack_witnesses"]
