"""Research Artifact Service: publishes versioned, source-backed research packs from public filings."""

__version__ = "0.1.0"
