"""Whole numbers as JSON Schema means them, for the REST API's fields and the MCP tools'
arguments alike: 3 and 3.0, never "3" or true.

Its own module, so the MCP server takes it without the REST schemas (which import
torch through the poolings' names).
"""

from __future__ import annotations

from pydantic import BeforeValidator


def _json_integer(value: object) -> object:
    # JSON Schema's integer includes 3.0; strict mode alone would refuse it
    # (and still refuses true and "3", which is the point of strict mode).
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


JsonInteger = BeforeValidator(_json_integer)
