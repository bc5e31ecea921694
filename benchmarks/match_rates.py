"""`make bench`: matches per second on one core, per game, at a league's match length.

The figures docs/cluster.md sizes a league with. For each game: its
quarantine pool's first four bots (the game's manifest: Python, C, Rust,
JavaScript, C# mixed; for holdem all six, at a 6-seat table), a one-round tournament at the league's parameters (the
manifest's), `--jobs 1` (one match at a time on one pinned core) in the basic
sandbox. The rate is 1 / the mean match duration as stored (bot start-up and
sandbox included, the arena's own start-up not).
"""

from __future__ import annotations

import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from arena._games import load_game
from arena.quarantine._manifest import manifest_of

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("kuhn3", "vonneumann", "twocarddraw", "rpsdraft", "holdem")
SANDBOX = os.environ.get("BENCH_SANDBOX", "basic")
#: A league of many bots seats holdem at full tables; six is the pool's size.
SEATS = {"holdem": 6}


def rate(game: str, folder: Path) -> tuple[float, int, dict]:
    manifest = manifest_of(load_game(game))
    chosen = manifest.opponents[:SEATS[game]] if game in SEATS else manifest.opponents[:4]
    bots = [f"{o.name}={manifest.command(o)}" for o in chosen]
    seats = ["--seats", str(SEATS[game])] if game in SEATS else []
    params = [a for k, v in manifest.params.items() for a in ("-p", f"{k}={json.dumps(v)}")]
    db = folder / f"{game}.db"
    out = subprocess.run(
        [sys.executable, "-m", "arena", "tournament", game, *bots, "--seed", "3", "--jobs", "1",
         "--lifetime", "match", "--sandbox", SANDBOX, "--db", str(db), "--json", *params, *seats],
        capture_output=True, text=True, cwd=ROOT)
    if out.returncode != 0:
        sys.exit(f"benchmark: {game} tournament failed:\n{out.stderr[-3000:]}")
    con = sqlite3.connect(db)
    durations = [r[0] for r in con.execute("SELECT json_extract(timings, '$.duration') FROM matches")]
    con.close()
    return 1 / statistics.mean(durations), len(durations), dict(manifest.params)


def main() -> None:
    print(f"match rates on one core (league match length, --sandbox {SANDBOX}, 4 bots of each game's pool)")
    with tempfile.TemporaryDirectory() as tmp:
        for game in GAMES:
            per_second, n, params = rate(game, Path(tmp))
            shown = ", ".join(f"{k}={v}" for k, v in params.items()) or "defaults"
            table = f", {SEATS[game]} seats" if game in SEATS else ""
            print(f"  {game:<12} {per_second:7.2f} matches/s per core  ({n} matches; {shown}{table})")


if __name__ == "__main__":
    main()
