"""Shared paths for the module's tests: the repository's fixtures, the command to compare with."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def repo() -> Path:
    return REPO


@pytest.fixture
def cli() -> str:
    """The `tracelint` command the module is compared with: TRACELINT_CLI (the binary cargo
    built, from the Rust test that runs these), else the one on PATH."""
    found = os.environ.get("TRACELINT_CLI") or shutil.which("tracelint")
    assert found, "no tracelint command: set TRACELINT_CLI"
    return found
