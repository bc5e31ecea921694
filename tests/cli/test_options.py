"""Every bad option is a usage error: exit 2 with one line naming the option,
never a traceback and never a fault charged to a bot.

The numeric options are discovered from the CLI itself, so a new option is
covered the day it is added. Runs are in-process (the real typer app) with
bots that stop at once, so a value that is accepted costs one short match.
"""

from __future__ import annotations

import math
import os
import typing
import shutil
import sqlite3
from pathlib import Path

import click
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from click.testing import CliRunner

from arena import available_games, load_game
from arena.cli import command as arena_command

from ..conftest import ROOT

# real processes, many matches: left out of `make test-fast`
pytestmark = pytest.mark.slow

TRUE = shutil.which("true") or "/bin/true"
STRATEGY = str(ROOT / "sample_bots" / "twocarddraw" / "strategy_1_3.txt")

#: How each command is called, with bots that exit at once; "{db}" and "{out}"
#: are replaced by files in a fresh folder.
BASE = {
    "kuhn3": [TRUE, TRUE, TRUE, "--sandbox", "none", "--hands", "1"],
    "vonneumann": [TRUE, TRUE, "--sandbox", "none", "--sessions", "1"],
    "twocarddraw": [TRUE, TRUE, "--sandbox", "none", "--hands", "1"],
    "rpsdraft": [TRUE, TRUE, "--sandbox", "none"],
    "play": ["kuhn3", TRUE, TRUE, TRUE, "--sandbox", "none", "-p", "hands=1"],
    "tournament": ["kuhn3", TRUE, TRUE, TRUE, "--sandbox", "none", "-p", "hands=1", "--db", "{db}"],
    "quarantine": ["rpsdraft", TRUE, "--sandbox", "none", "--matches", "2"],
    "strategy generate": ["--bet1", "1", "--bet2", "2", "--iterations", "0", "-o", "{out}"],
    "show": ["--db", "{db}"],
    "serve": ["--check", "--db", "{db}", "--sandbox", "none"],
    # the bot exits at once: a fault before any estimate, whatever the numbers
    "exploit": ["kuhn3", TRUE, "--sandbox", "none", "--hands", "1"],
    # refused for want of certificates, after its numbers are read
    "cluster scheduler": ["--certs", "{out}"],
    "worker": ["tls://127.0.0.1:9", "--certs", "{out}"],
}
#: A command that would serve until stopped, and the refusal its BASE ends at once its numbers are read.
AFTER = {"cluster scheduler": "no ca.pem there", "worker": "no ca.pem there"}
#: Options whose accepted values mean work in proportion: only small ones are tried.
WORK = {"--rounds", "--matches", "--iterations", "--jobs"}
#: Options written as numbers inside text.
TEXT_NUMBERS = {"--antes": 3, "--end-prob": 2}


#: Every installed game's parameters: the options of `arena <game>`.
GAME_FIELDS = {g: load_game(g).Params.model_fields for g in available_games()}


def _field_kind(field) -> type | None:
    """int, float, or str for a tuple of numbers written as text; None: not a number."""
    kinds = set(typing.get_args(field.annotation) or (field.annotation,)) - {type(None)}
    if kinds <= {int}:
        return int
    if kinds <= {int, float}:
        return float
    if typing.get_origin(field.annotation) is tuple:
        return str
    return None


def _base(command: str) -> list[str]:
    """A command's fixed arguments (an installed game not named in BASE: bots and no sandbox)."""
    if command in BASE:
        return BASE[command]
    plugin = load_game(command)
    seats = plugin.fixed_seats(plugin.Params()) or plugin.spec.max_seats  # openspiel: the default game's
    return [TRUE] * seats + ["--sandbox", "none"]


def numeric_options() -> list[tuple[str, str, type]]:
    """(command, option, int or float) for every numeric option of every command."""
    found = []

    def walk(group, prefix: str) -> None:
        ctx = click.Context(group)  # the games' commands are built when listed
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            full = f"{prefix}{name}"
            if hasattr(command, "commands"):
                walk(command, full + " ")
                continue
            for param in command.params:
                annotation = param.type_descriptor.annotation
                opts = getattr(param, "opts", None) or []
                if annotation in (int, float) and opts and opts[0].startswith("--"):
                    found.append((full, opts[0], annotation))
                elif full in GAME_FIELDS and opts:  # a game parameter, typed as text
                    field = GAME_FIELDS[full].get(opts[0][2:].replace("-", "_"))
                    kind = _field_kind(field) if field is not None else None
                    if kind is str and opts[0] not in TEXT_NUMBERS:
                        kind = None
                    if kind is not None:
                        found.append((full, opts[0], kind))

    walk(arena_command(), "")
    return found


OPTIONS = numeric_options()


def test_every_command_with_numbers_is_exercised():
    commands = {c for c, _, _ in OPTIONS}
    assert commands <= set(BASE) | set(GAME_FIELDS), f"add a BASE entry for {commands - set(BASE)}"
    assert {"kuhn3", "vonneumann", "twocarddraw", "rpsdraft"} <= commands
    assert {"--timeout", "--budget", "--pids", "--memory-mb", "--cpu-seconds", "--max-bet", "--rounds",
            "--jobs", "--seed", "--antes", "--end-prob"} <= {o for _, o, _ in OPTIONS}


def _numbers(kind: type) -> st.SearchStrategy:
    ints = st.one_of(st.integers(-3, 3), st.integers(-(10**30), 10**30), st.sampled_from([2**31, 2**63, 2**64]))
    if kind is int:
        return ints.map(str)
    floats = st.floats(allow_nan=True, allow_infinity=True, width=64)
    return st.one_of(ints.map(str), floats.map(repr), st.sampled_from(["nan", "inf", "-inf", "1e309", "-0.0"]))


def _values(option: str, kind: type) -> st.SearchStrategy:
    if kind is str:
        n = TEXT_NUMBERS[option]
        sep = "/" if option == "--end-prob" else ","
        part = st.one_of(st.integers(-5, 5), st.integers(-(10**25), 10**25)).map(str)
        return st.lists(part, min_size=1, max_size=n + 1).map(sep.join)
    values = _numbers(kind)
    if option in WORK:
        # accepted values cost real work: keep those small, try any refused one
        return values.filter(lambda v: _small_or_refused(v))
    return values


def _small_or_refused(text: str) -> bool:
    """Not a whole number from 3 to 10**9: either small or beyond every cap."""
    try:
        number = float(text)
    except ValueError:
        return True
    return not math.isfinite(number) or number != int(number) or not 3 <= number <= 10**9


def _args(command: str, option: str, value: str, folder: Path) -> list[str]:
    base = _base(command)
    args = []
    skip = False
    for i, word in enumerate(base):
        if skip:
            skip = False
            continue
        if word == option:  # the option under test replaces a fixed one
            skip = True
            continue
        args.append(word.format(db=folder / "t.db", out=folder / "s.txt"))
    if command == "show":
        return ["show", value if option == "MATCH" else "1", *args]
    return [*command.split(), *args, option, value]


@pytest.mark.parametrize("command, option, kind", OPTIONS, ids=[f"{c}{o}" for c, o, _ in OPTIONS])
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_numeric_option_is_accepted_or_a_usage_error(command, option, kind, data, tmp_path_factory):
    value = data.draw(_values(option, kind), label=option)
    folder = tmp_path_factory.mktemp("opt")
    args = _args(command, option, value, folder)
    result = CliRunner().invoke(arena_command(), args, env={"ARENA_SANDBOX": "none", "TMPDIR": str(folder)})
    out = result.output + (result.stderr if hasattr(result, "stderr") else "")
    assert "Traceback" not in out, out
    if isinstance(result.exception, SystemExit) or result.exception is None:
        code = result.exit_code
    else:
        raise AssertionError(f"{args}: raised {result.exception!r}\n{out}")
    assert code in (0, 1, 2), (args, code, out)
    if code == 2:
        errors = "\n".join(line for line in out.splitlines() if "rror" in line)
        # (a command that would serve until stopped is stopped at its base's refusal, after its numbers)
        assert option in errors or (command in AFTER and AFTER[command] in errors), (args, out)
    if code == 1:
        # a fault, not the option's: the bots stopped at once (or the show found nothing)
        assert "FAULT" in out or "quarantine FAILED" in out or "with a fault" in out or command == "show", out
    if code == 2 and command in ("tournament", "serve"):
        # a usage error leaves no database behind
        assert not (folder / "t.db").exists()


def test_a_bad_db_is_a_clear_error(tmp_path):
    runner = CliRunner()
    env = {"ARENA_SANDBOX": "none"}
    corrupt = tmp_path / "corrupt.db"
    corrupt.write_bytes(b"this is not sqlite" * 100)
    truncated = tmp_path / "truncated.db"
    with sqlite3.connect(truncated) as conn:
        conn.execute("CREATE TABLE x (y)")
        conn.executemany("INSERT INTO x VALUES (?)", [("z" * 500,)] * 200)
    truncated.write_bytes(truncated.read_bytes()[:1500])
    folder = tmp_path / "folder.db"
    folder.mkdir()
    for db in (corrupt, truncated, folder):
        for args in (["tournament", "kuhn3", TRUE, TRUE, TRUE, "-p", "hands=1", "--db", str(db)],
                     ["show", "1", "--db", str(db)],
                     ["tournament", "--resume", "1", "--db", str(db)]):
            result = runner.invoke(arena_command(), args, env=env)
            assert result.exit_code == 2, (args, result.output)
            assert f"--db {db}" in result.output and "Traceback" not in result.output, result.output
    assert corrupt.read_bytes() == b"this is not sqlite" * 100  # untouched


def test_log_dir_naming_a_file_is_a_usage_error(tmp_path):
    log = tmp_path / "a-file"
    log.write_text("x")
    result = CliRunner().invoke(arena_command(), ["kuhn3", TRUE, TRUE, TRUE, "--log-dir", str(log)],
                                env={"ARENA_SANDBOX": "none"})
    assert result.exit_code == 2 and "--log-dir" in result.output and "is a file" in result.output


def test_the_arena_creates_its_files_private(tmp_path):
    db = tmp_path / "league" / "results.db"
    result = CliRunner().invoke(
        arena_command(), ["tournament", "kuhn3", TRUE, TRUE, TRUE, "-p", "hands=1", "--db", str(db)],
        env={"ARENA_SANDBOX": "none"},
    )
    assert result.exit_code == 0, result.output
    assert db.stat().st_mode & 0o077 == 0
    assert (tmp_path / "league").stat().st_mode & 0o077 == 0
    data = tmp_path / "league" / "results-data"
    assert data.stat().st_mode & 0o077 == 0
    for path in [db, *db.parent.glob("results.db-*")]:
        assert path.stat().st_mode & 0o077 == 0, oct(path.stat().st_mode)
    assert os.access(db, os.R_OK)
