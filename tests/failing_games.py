"""Games whose own code fails, for the tests of its containment
(arena/play/_guard.py): matching pennies (examples/pennies) with one planted
failure at throw ``AT`` of every match.

* ``raises``: its dialogue raises ZeroDivisionError;
* ``spins``: its dialogue computes for ever in Python (a phase where nobody
  acts and the match is not over);
* ``idles``: its dialogue yields exchanges that send nothing, for ever;
* ``bad_scores``: its ``scores()`` raises once the match is over.

Each is a plugin object of its own (``FAILING[name]``), not an installed
game: the tests hand them to the arena's library calls.
"""

from __future__ import annotations

from arena_pennies import PenniesMatch, PenniesPlugin
from games import GameSpec
from protocols import Exchange

AT = 3


class _Failing(PenniesMatch):
    how = ""

    def run(self):
        inner = super().run()
        reply = None
        while True:
            try:
                exchange = inner.send(reply)
            except StopIteration as stop:
                return stop.value
            if self.played == AT and self.how in ("raises", "spins", "idles"):
                if self.how == "raises":
                    _ = 1 / 0
                if self.how == "spins":
                    n = 0
                    while True:
                        n += 1
                while True:
                    yield Exchange([], "nothing", reply=False)
            reply = yield exchange

    def scores(self) -> list[float]:
        if self.how == "bad_scores" and self.played == self.params.throws:
            raise RuntimeError("no scores today")
        return super().scores()


def _plugin(how: str) -> PenniesPlugin:
    match = type(f"Pennies_{how}", (_Failing,), {"how": how})

    class Plugin(PenniesPlugin):
        spec = GameSpec(id=f"pennies-{how}", version=1, title=f"matching pennies that {how}", min_seats=2,
                        max_seats=2, description="a game whose own code fails, for the arena's tests")

        def open_dialogue(self, params, rng, names, match_index=0):
            return match(params, names, match_index)

    return Plugin()


FAILING = {how: _plugin(how) for how in ("raises", "spins", "idles", "bad_scores")}

RAISES, SPINS, IDLES, BAD_SCORES = (FAILING[how] for how in ("raises", "spins", "idles", "bad_scores"))
#: their entry points, as a distribution registers them (``installed`` below)
ENTRY_POINTS = {"pennies-raises": "RAISES", "pennies-spins": "SPINS", "pennies-idles": "IDLES",
                "pennies-bad_scores": "BAD_SCORES"}


def install(folder) -> str:
    """Register the failing games in the ``arena.games`` group from ``folder`` (a
    distribution's metadata there, as pip writes it); returns the PYTHONPATH that
    finds them (``folder`` and the checkout, for ``tests.failing_games``)."""
    from pathlib import Path

    info = Path(folder) / "arena_failing_games-0.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: arena-failing-games\nVersion: 0\n")
    (info / "entry_points.txt").write_text(
        "[arena.games]\n" + "".join(f"{name} = tests.failing_games:{attr}\n" for name, attr in ENTRY_POINTS.items()))
    return f"{folder}:{Path(__file__).resolve().parent.parent}"
