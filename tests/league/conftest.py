"""What the league's test modules share."""

from __future__ import annotations

import pytest

from .league_server import shared_league


@pytest.fixture
def league(tmp_path_factory):
    """The run's one league server (started once: tests/league/league_server.py),
    its HTTP client closed after each test."""
    server = shared_league(tmp_path_factory)
    yield server
    server.http.close()
