"""Research over a window of several versions: each manager's changes between two versions further apart than one
quarter, the book carried through every event between them (`spans`). Artifacts in, diff entries out; pure."""
