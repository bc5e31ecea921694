"""What the league's test modules share."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .league_server import shared_league

#: The browser of the browser tests: Debian's chromium-headless-shell when installed (Chromium's
#: "old" headless mode, a program of its own since Chromium 132, and what Playwright runs for
#: headless by default): the same Blink drawing the same pages for about 40% of the CPU of
#: Debian's chromium in its headless mode (3.2 against 8.3 CPU-s for 45 page loads in three
#: contexts). Else that chromium. The binary itself: /usr/bin's wrapper is a shell that does
#: not exec it.
HEADLESS_SHELL = Path("/usr/lib/chromium/chromium-headless-shell")
CHROMIUM = str(HEADLESS_SHELL) if HEADLESS_SHELL.exists() else shutil.which("chromium") or "/usr/bin/chromium"
# Chromium as root needs --no-sandbox; the rest keep it off this machine's closed network.
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--disable-quic"]


@pytest.fixture
def league(tmp_path_factory):
    """The run's one league server (started once: tests/league/league_server.py),
    its HTTP client closed after each test."""
    server = shared_league(tmp_path_factory)
    yield server
    server.http.close()


@pytest.fixture(scope="module")
def _chromium():
    """``CHROMIUM`` driven by Playwright, launched once per module (about 1
    CPU-s with Playwright's driver). Not once per run: while Playwright's sync
    API is started, asyncio sees its loop as running in this thread, and
    asyncio.run() would fail in every later test of the worker."""
    from playwright import sync_api

    assert Path(CHROMIUM).exists(), "Debian's chromium is missing: `make system-deps` installs it"
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()


@pytest.fixture
def browser(_chromium):
    """The module's browser; the pages and contexts a test opens are closed
    after it (a page left open would go on refreshing itself)."""
    yield _chromium
    for context in _chromium.contexts:
        context.close()
