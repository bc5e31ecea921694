"""The ACPC dealer's log file (``--acpc-log``): its four ``#`` lines first,
one ``STATE:`` line a hand (the games' hand readers write those), and its
final ``SCORE:`` line, as the dealer (its ``dealer.c``) writes them:

    # name/game/hands/seed NAME GAME HANDS SEED
    #--t_response MS
    #--t_hand MS
    #--t_per_hand MS
    STATE:...
    SCORE:V0|V1|...:NAME0|NAME1|...

``NAME`` is the match's name (the dealer's log is ``NAME.log``: the file's
name without ``.log``), ``GAME`` its game definition, named as the ACPC
package names its own (the relay writes the same definition for the agents;
a limit game's, from ``--gamedef``, is ``holdem.limit.*``, and its raises
are a bare ``r``, as the dealer logs them),
``SEED`` the arena's seed. The times are the arena's: the reply timeout,
and from ``--budget`` the time a seat may use in a hand and per hand on
average (the dealer's defaults, 600000 and 7000 ms, without one: the arena
then has no such limit). ``SCORE`` has each seat's total, in seat order,
numbers as the dealer prints them (``%.6f`` without its trailing zeros);
the dealer writes it only at the end of a match played to its end, and so
does the arena.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

#: the dealer's own limits (dealer.c: DEFAULT_MAX_USED_HAND_MICROS, ..._PER_HAND_MICROS), in ms
DEALER_T_HAND_MS = 600_000
DEALER_T_PER_HAND_MS = 7_000


def game_file(game: str, seats: int, limit: bool = False) -> str:
    """The game definition's name, as the ACPC package names its own (``limit``: a hold'em match of
    a limit game definition, ``--gamedef``)."""
    if game == "kuhn3":
        return "kuhn.limit.3p.game"
    return f"holdem.{'limit' if limit else 'nolimit'}.{seats}p{'.reverse_blinds' if seats == 2 else ''}.game"


#: a raise of a limit game's betting as the dealer logs it: ``r`` with no amount after it
_BARE_RAISE = re.compile(r"r(?![0-9])")


def is_limit(gamedef: Any, states: str) -> bool:
    """Whether a hold'em match is of a limit game: its ``gamedef`` (a ``GameDef`` or its values) says
    so; without one, whether the betting of its ``STATE`` lines has a raise without an amount."""
    if gamedef is not None:
        betting = gamedef.get("betting") if isinstance(gamedef, dict) else getattr(gamedef, "betting", None)
        return betting == "limit"
    return any(_BARE_RAISE.search(line.split(":")[2]) for line in states.splitlines()
               if line.startswith("STATE:") and line.count(":") >= 2)


def dealer_number(value: float) -> str:
    """A value as the dealer prints it: ``%.6f``, its trailing zeros and point cut."""
    text = f"{value:.6f}".rstrip("0")
    return text[:-1] if text.endswith(".") else text


def dealer_name(name: str) -> str:
    """A player's name with nothing that would break a log line (a colon, a bar, a space)."""
    return "".join(c if c.isalnum() or c in "._-+=" else "_" for c in name) or "_"


def dealer_log(states: str, *, path: Path, game: str, seats: int, hands: int, seed: str, timeout: float,
               budget: float | None, names: list[str], totals: list[float] | None, gamedef: Any = None) -> str:
    """The whole log file: the header, ``states`` (the ``STATE:`` lines), and
    the ``SCORE:`` line when ``totals`` (each seat's, in seat order) are given.
    ``gamedef``: the hold'em match's game definition, if it has one (its
    betting names the game; without it, a raise without an amount in
    ``states`` says limit)."""
    name = path.name[:-4] if path.name.endswith(".log") and len(path.name) > 4 else path.name
    t_hand = round(budget * 1000) if budget is not None else DEALER_T_HAND_MS
    t_per_hand = round(budget * 1000) // max(hands, 1) if budget is not None else DEALER_T_PER_HAND_MS
    limit = game == "holdem" and is_limit(gamedef, states)
    head = (f"# name/game/hands/seed {dealer_name(name)} {game_file(game, seats, limit)} {hands} {seed}\n"
            f"#--t_response {round(timeout * 1000)}\n#--t_hand {t_hand}\n#--t_per_hand {t_per_hand}\n")
    score = ""
    if totals is not None:
        score = (f"SCORE:{'|'.join(dealer_number(t) for t in totals)}"
                 f":{'|'.join(dealer_name(n) for n in names)}\n")
    return head + states + score
