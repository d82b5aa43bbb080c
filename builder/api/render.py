"""One answer of an operation: its payload in the envelope, as canonical bytes, with its status.

The release step renders every precomputed GET with it and the server every live answer, so both give
the same bytes. A research error (unknown ethos, ticker not in the view) becomes its API error here.
"""

from __future__ import annotations

from dataclasses import dataclass

from builder.api.contract import Operation
from builder.api.data import ReleaseData
from builder.api.wire import ApiError, Params, api_error, failure, success
from builder.canonical import canonical_json
from builder.research.errors import ResearchError


@dataclass(frozen=True, slots=True)
class Rendered:
    status: int
    body: bytes


def render(operation: Operation, data: ReleaseData, params: Params) -> Rendered:
    """One answer of an operation: the envelope bytes and its status."""
    try:
        payload = operation.handler(data, params)
    except ResearchError as refusal:
        return _failed(operation, api_error(refusal))
    except ApiError as error:
        return _failed(operation, error)
    return Rendered(200, canonical_json(success(operation.id, payload) if operation.envelope else payload))


def _failed(operation: Operation, error: ApiError) -> Rendered:
    return Rendered(error.status, canonical_json(failure(operation.id, error)))
