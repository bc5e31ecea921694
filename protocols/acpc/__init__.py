"""ACPC agents as arena bots (docs/acpc.md).

An ACPC agent speaks the ACPC dealer's protocol 2.0.0 over TCP. The arena
starts ``relay.py`` in the bot's sandbox instead of the agent: the relay
listens on the loopback of the bot's own network namespace, starts the
agent with the address, and translates between the game's JSON lines (on
its stdin/stdout, like any bot) and MATCHSTATE lines (``_translate``, pure
and stdlib-only, as the relay runs with the system's Python alone).
"""

from ._translate import (
    KUHN3_GAMEDEF,
    AcpcFault,
    HoldemTranslator,
    Kuhn3Log,
    Kuhn3Translator,
    gamedef,
    kuhn3_refusal,
    refusal,
)

__all__ = ["KUHN3_GAMEDEF", "AcpcFault", "HoldemTranslator", "Kuhn3Log", "Kuhn3Translator", "gamedef", "kuhn3_refusal",
           "refusal"]
