"""An ACPC agent: ``acpc:CMD``.

The bot run is the relay (built from protocols/acpc/relay.c) followed by CMD:
the relay listens on the loopback of the bot's own network namespace, starts
the agent with the port, and once the agent connects hands the connected
socket to the arena over descriptor 3. From then on the arena speaks to the
agent itself, through the seat's codec (``BotProcess`` with ``take_agent``)."""

from __future__ import annotations

import os
import socket
from typing import Any

from ._kind import BadBotCommand, SeatKind

#: Descriptor the relay hands the agent's connection over (arena.sandbox._supervision.Channel).
HAND_OVER_FD = 3


def _parse(cls: Any, command: str, rest: str, name: str | None, person_ok: bool,
           files: tuple[tuple[str, bool], ...] | None) -> Any:
    from protocols.acpc import BuildError, relay_path  # only when an agent plays

    inner = cls.parse(rest, files=files)
    # How long the agent has to connect (seconds): ARENA_ACPC_CONNECT_TIMEOUT, else 10.
    wait = os.environ.get("ARENA_ACPC_CONNECT_TIMEOUT", "10")
    try:
        relay = relay_path()
    except BuildError as exc:
        raise BadBotCommand(f"bot {command!r} needs the ACPC relay: {exc}") from None
    argv = (relay, "--connect-timeout", wait, "--hand-over", str(HAND_OVER_FD), "--", *inner.argv)
    return cls(command=command, argv=argv, name=name or command, kind=KIND.name, files=inner.behind())


KIND = SeatKind("acpc", "acpc:", loopback=True, relay=True, parse=_parse,
                summary="an ACPC agent, served on its sandbox's loopback by the relay (acpc:CMD)")


def take_agent(hand_over: socket.socket, seat: int) -> socket.socket | None:
    """The agent's connection, as the relay sent it at its first line, or
    None when what came is not that: no descriptor, not a connected TCP
    socket, or words other than the hand-over's for this seat. Closes the
    hand-over socket either way (the seat changes hands once)."""
    from protocols.acpc import HANDOVER  # only when an agent plays

    try:
        words, fds, _flags, _addr = socket.recv_fds(hand_over, 64, 1)
    except OSError:
        words, fds = b"", []
    finally:
        hand_over.close()
    if not fds:
        return None
    try:
        agent = socket.socket(fileno=fds[0])
    except OSError:  # not a socket
        os.close(fds[0])
        return None
    head, _, said_seat = words.partition(b" ")
    try:
        agent.getpeername()  # connected (not listening, not left unconnected)
        good = (agent.type == socket.SOCK_STREAM and agent.family in (socket.AF_INET, socket.AF_INET6)
                and head == HANDOVER and said_seat == str(seat).encode())
    except OSError:
        good = False
    if not good:
        agent.close()
        return None
    agent.set_inheritable(False)  # no other process the arena starts gets it
    agent.setblocking(False)
    return agent
