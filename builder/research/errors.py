"""What research refuses: a question its inputs cannot answer. The API layer gives each a status and a code."""

from __future__ import annotations

from typing import Any


class ResearchError(Exception):
    """A request research cannot answer; `details` are JSON-ready facts about it (no paths, no traces)."""

    def __init__(self, message: str, details: dict[str, Any]) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class UnknownEthos(ResearchError):
    """An ethos id that no published methodology has."""


class NotInView(ResearchError):
    """A ticker the selected view does not hold."""
