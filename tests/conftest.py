"""Shared test set-up: Hypothesis profiles and the ``gpu`` marker.

Profiles: ``ci`` (default under CI=true; bounded examples, no deadline) and ``dev`` (more examples). Select with
``HYPOTHESIS_PROFILE``.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def _have_gpu() -> bool:
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if any("gpu" in item.keywords for item in items) and not _have_gpu():
        skip = pytest.mark.skip(reason="no CUDA GPU (cupy with a device) on this machine")
        for item in items:
            if "gpu" in item.keywords:
                item.add_marker(skip)
