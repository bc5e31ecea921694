"""Seat kinds are one registry (``arena.seats.SEAT_KINDS``): each kind is a
module, a command's prefix is looked up there and nowhere else, and what the
rest of the arena acts on (a person, an agent on its loopback, a relay in
front) is the kind's to say."""

from __future__ import annotations

import importlib
import sys
from dataclasses import replace

import pytest

from arena._spec import BotSpec, behind_relay
from arena.seats import PROGRAM, SEAT_KINDS, BadBotCommand, SeatKind

from ..conftest import ROOT

RULE_BOT = str(ROOT / "sample_bots" / "kuhn3" / "build" / "rule_bot")


def test_every_kind_is_a_module_of_its_own_and_named_once():
    for name, kind in SEAT_KINDS.items():
        assert kind.name == name
        if kind is PROGRAM:
            continue
        module = importlib.import_module(f"arena.seats.{name}")
        assert module.KIND is kind, f"arena.seats.{name} does not define the {name} kind"
        assert kind.prefix and kind.parse is not None and kind.summary
    prefixes = [k.prefix for k in SEAT_KINDS.values() if k.prefix]
    assert len(prefixes) == len(set(prefixes))


@pytest.mark.parametrize(("command", "kind", "person", "loopback", "relay"), [
    (RULE_BOT, "program", False, False, False),
    ("human", "human", True, False, False),
    ("human:ada", "human", True, False, False),
    (f"higc:{RULE_BOT}", "higc", False, False, True),
])
def test_a_command_is_read_by_its_kind(command, kind, person, loopback, relay):
    spec = BotSpec.parse(command, person_ok=True)
    assert spec.kind == kind
    assert (spec.person, spec.loopback, spec.seat_kind.relay) == (person, loopback, relay)
    prefix, inner = behind_relay(spec)
    if relay:
        assert prefix == f"{kind}:" and inner.argv == (RULE_BOT,) and inner.kind == "program"
        assert spec.argv[-2:] == ("--", RULE_BOT)  # the relay first, the author's command after its --
    else:
        assert (prefix, inner) == ("", spec)


def test_an_acpc_agent_is_served_on_its_loopback():
    spec = BotSpec.parse(f"acpc:{RULE_BOT}")
    assert (spec.kind, spec.loopback, spec.person) == ("acpc", True, False)
    assert spec.argv[-2:] == ("--", RULE_BOT) and (RULE_BOT, False) in spec.files


def test_a_person_is_refused_where_no_person_may_sit():
    with pytest.raises(BadBotCommand, match="person's seat"):
        BotSpec.parse("human:ada")


def test_a_new_kind_is_one_entry_in_the_registry(monkeypatch):
    # A kind the arena has never heard of, added the way a new module would add
    # itself: BotSpec.parse finds it by its prefix and hands it the rest.
    def parse(cls, command, rest, name, person_ok, files):
        inner = cls.parse(rest, files=files)
        return cls(command=command, argv=(sys.executable, "-c", "pass", "--", *inner.argv),
                   name=name or command, kind="echo", files=inner.behind())

    echo = SeatKind("echo", "echo:", relay=True, parse=parse, summary="a test kind")
    monkeypatch.setitem(SEAT_KINDS, "echo", echo)
    spec = BotSpec.parse(f"echo:{RULE_BOT}", name="e")
    assert spec.seat_kind is echo and spec.argv[-1] == RULE_BOT
    assert behind_relay(spec)[0] == "echo:"
    assert replace(spec, kind="program").seat_kind is PROGRAM
