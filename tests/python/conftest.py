"""Fixtures for the Python module's tests: the CLI binary, ../shared (skipped when absent unless
STEPRDU_REQUIRE_SHARED is set, as CI does), and the examples folder on the import path."""

import os
import sys

import pytest

SOURCE = os.environ.get("STEPRDU_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE, "examples", "python"))


@pytest.fixture(scope="session")
def binary():
    path = os.environ.get("STEPRDU_BINARY", os.path.join(SOURCE, "build", "steprdu"))
    if not os.path.exists(path):
        pytest.fail(f"the steprdu binary is missing: {path}")
    return path


@pytest.fixture(scope="session")
def shared():
    path = os.environ.get("STEPRDU_SHARED_DIR", os.path.join(SOURCE, "..", "shared"))
    if not os.path.isdir(os.path.join(path, "traces")):
        required = os.environ.get("STEPRDU_REQUIRE_SHARED", "") not in ("", "0")
        if required:
            pytest.fail(f"STEPRDU_REQUIRE_SHARED is set but {path}/traces is missing")
        pytest.skip(f"../shared is absent ({path}); this test needs the project's shared data beside the clone")
    return path
