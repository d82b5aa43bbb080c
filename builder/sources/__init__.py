"""Source readers: bytes from the operator's source tree → validated domain records (no network)."""
