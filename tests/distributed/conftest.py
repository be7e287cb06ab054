from __future__ import annotations

# The small stdlib repo that the ONNX tests index, shared rather than copied.
from tests.encoders.test_onnx_query import small_repo

__all__ = ["small_repo"]
