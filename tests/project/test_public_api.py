"""The public API is safe by construction: a host made with no arguments
runs bots at this machine's default sandbox level, never without one unless
asked by name; hosts and stores close themselves in a ``with``; every error
type the API page documents is exported."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess

import pytest

import arena

from ..conftest import PY, ROOT, clean_env


def _levels(env: dict[str, str]) -> dict[str, str]:
    code = ("import json, arena\n"
            "with arena.BotHost() as bare, arena.open_host() as default:\n"
            "    print(json.dumps({'bare': bare.level, 'default': default.level}))\n")
    proc = subprocess.run([PY, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


def test_a_host_made_with_no_arguments_runs_at_the_machines_default_level():
    env = clean_env()
    env.pop("ARENA_SANDBOX")  # as a user's script runs
    levels = _levels(env)
    assert levels["bare"] == levels["default"] != "none", levels
    # no sandbox only when asked for by name
    assert _levels({**env, "ARENA_SANDBOX": "none"}) == {"bare": "none", "default": "none"}


def test_a_store_closes_itself_in_a_with_block(tmp_path):
    with arena.open_store(tmp_path / "r.db") as store:
        assert store.tournaments() == []
    with pytest.raises(sqlite3.ProgrammingError):
        store.tournaments()  # closed on leaving the block


def test_every_error_type_the_api_page_names_is_exported():
    page = (ROOT / "docs" / "api.md").read_text()
    named = set(re.findall(r"`([A-Z][A-Za-z]*(?:Error|Fault|Command))`", page))
    assert {"UsageError", "GameError", "StoreError", "PluginLoadError", "BadBotCommand", "BotFault"} <= named
    for name in named:
        assert isinstance(getattr(arena, name), type) and issubclass(getattr(arena, name), Exception), name
    assert issubclass(arena.StoreError, arena.UsageError)
