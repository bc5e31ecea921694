"""ACPC agents as arena bots (docs/acpc.md).

An ACPC agent speaks the ACPC dealer's protocol 2.0.0 over TCP. The arena
starts the relay (``relay.c``, built by ``relay_path()``) in the bot's sandbox
instead of the agent: the relay listens on the loopback of the bot's own
network namespace, starts the agent with the address and takes its
connection. In holdem it hands the connected socket to the arena, which
speaks to the agent itself through the seat's codec (``codec.c``, built by
``arena.native.acpc_codec``); in kuhn3 (and in holdem under
``--acpc-lenient``) it translates between the game's messages (on its
stdin/stdout, like any bot) and MATCHSTATE lines. ``_translate`` keeps what
the arena checks before a match (the refusals), the words of an agent's
wrong response (``agent_fault``) and the kuhn3 hands of the ACPC log;
``_log`` the log file's header and score.
"""

from games._cbuild import BuildError

from ._log import dealer_log, game_file
from ._relay import CODEC_SOURCE, HANDOVER, TEXT_HEADER, relay_path
from ._translate import (
    AcpcFault,
    Kuhn3Log,
    Kuhn3Translator,
    agent_fault,
    kuhn3_refusal,
    refusal,
)

__all__ = ["AcpcFault", "BuildError", "CODEC_SOURCE", "HANDOVER", "Kuhn3Log", "Kuhn3Translator", "TEXT_HEADER",
           "agent_fault", "dealer_log", "game_file", "kuhn3_refusal", "refusal", "relay_path"]
