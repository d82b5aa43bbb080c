"""Research over a window of several versions: each manager's changes between two versions further apart than one
quarter, the book carried through every event between them (`spans`); a position at every version (`history`); the
trades of every quarter inside a diff's window (`trades`). Artifacts in, payloads out; pure."""
