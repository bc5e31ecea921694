"""The ACPC translation. Hold'em's is the codec (protocols/acpc/codec.c),
sans-I/O: positions, r<N> against ``to``, the batching of states, a
response read as the ACPC dealer reads it, the fault line of a wrong one
and its words, any bytes in. The relay (protocols/acpc/relay.c) as a real
process: the hand-over of the agent's connection, hold'em translated by the
relay under --acpc-lenient, game definitions, refusals, a bad VERSION, an
agent that exits or never connects; and kuhn3's translation, which the
relay does and the ``--acpc-log`` export (protocols/acpc/_translate.py)
replays, held to each other. tests/protocols/test_acpc_dealer.py holds
both to the ACPC dealer itself.

For the relay the test plays the agent itself: the relay starts a tiny
shell command as "the agent", which says the relay's address (on the
relay's stderr) and waits; the test connects to that address and speaks
ACPC. No agent program, no sandbox: a few milliseconds of CPU a relay."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess

import pytest

from arena.play._stepping import step_through
from protocols.acpc import Kuhn3Translator, agent_fault, refusal, relay_path

from ..conftest import ACPC

# "The agent": says where to connect, then waits to be killed with the relay's group.
WAITER = ["sh", "-c", 'echo "$0 $1"; exec sleep 30', "{host}", "{port}"]


class Relay:
    """One relay process, its stdin/stdout (the arena's side) and its agent's socket (the test's side)."""

    def __init__(self, first: str, *, connect: bool = True, version: bytes = b"VERSION:2.0.0\r\n",
                 agent: list[str] = WAITER, timeout: str = "10", hand_over: bool = True,
                 lenient: bool = False) -> None:
        # the arena's end of the hand-over socket, as arena.sandbox._supervision.Channel makes it
        self.arena, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        over = ["--hand-over", str(theirs.fileno())] if hand_over else []
        self.proc = subprocess.Popen([relay_path(), "--connect-timeout", timeout, *over,
                                      *(["--lenient"] if lenient else []), "--", *agent],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     start_new_session=True, pass_fds=[theirs.fileno()])
        theirs.close()
        self.send(first)
        self.sock = None
        if connect:
            host, port = self.proc.stderr.readline().split()
            self.sock = socket.create_connection((host.decode(), int(port)), timeout=10)
            self.sock.sendall(version)
            self.states = self.sock.makefile("rb")

    def send(self, *lines: str | dict) -> None:
        for line in lines:
            self.proc.stdin.write(((json.dumps(line) if isinstance(line, dict) else line) + "\n").encode())
        self.proc.stdin.flush()

    def said(self) -> str:
        return self.proc.stdout.readline().decode().rstrip("\n")

    def state(self) -> str:
        return self.states.readline().decode().rstrip("\r\n")

    def hang_up(self) -> None:
        self.states.close()
        self.sock.close()
        self.sock = None

    def respond(self, line: str) -> None:
        self.sock.sendall(line.encode() + b"\r\n")

    def close(self) -> tuple[int, str, str]:
        """Kill what is left; the exit status, the rest of stderr and of stdout."""
        self.proc.stdin.close()
        try:
            code = self.proc.wait(timeout=10)
        finally:
            try:  # "the agent" holds the relay's stderr: gone, the pipes end
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            err, out = self.proc.stderr.read().decode(), self.proc.stdout.read().decode()
            self.proc.stdout.close()
            self.proc.stderr.close()
            self.arena.close()
            if self.sock is not None:
                self.states.close()
                self.sock.close()
        return code, err, out


def _start(seats: int, seat: int = 0, **params) -> dict:
    params = {"mode": "cash", "stack": 20000, "small_blind": 50, "big_blind": 100, "ante": 0, **params}
    return {"type": "match_start", "game": "holdem", "seat": seat, "players": ["p"] * seats, "params": params}


def _hand(seat, button, seats=(0, 1, 2), bets=(50, 100, 0)):
    return {"type": "hand_start", "hand": 3, "seat": seat, "cards": ["Ah", "Kd"], "button": button,
            "in_hand": list(seats), "bets": list(bets), "stacks": [0] * len(seats)}


def _action(seat, action, amount):
    return {"type": "action", "seat": seat, "action": action, "amount": amount}


def _act(to_call, low=None, high=None):
    """A request: what a call costs and a raise's bounds on the street (None: no raise)."""
    return {"type": "act", "to_call": to_call, "min_raise_to": low, "max_raise_to": high}


def _codec(seat: int):
    from arena.native import acpc_codec

    return acpc_codec()(seat)


def _lines(*messages: dict) -> bytes:
    return b"".join(json.dumps(m).encode() + b"\n" for m in messages)


def test_positions_follow_the_button_and_raises_count_the_whole_hand():
    c = _codec(0)  # 3 seats, button 2: order 0 (small blind), 1 (big blind), 2 (button)
    # the states it need not answer go out with the one it must, in order, in one send (one wake-up)
    assert c.translate(_lines(_hand(0, 2), _action(2, "raise", 300))) == b""
    assert c.translate(_lines(_act(250, 550, 20000))) == (
        b"MATCHSTATE:0:3::AhKd||\r\nMATCHSTATE:0:3:r300:AhKd||\r\n")
    assert c.state == "MATCHSTATE:0:3:r300:AhKd||"
    assert c.reply(b"MATCHSTATE:0:3:r300:AhKd||:c\r") == b'{"type": "action", "action": "call"}'
    sent = c.translate(_lines(_action(0, "call", 250), _action(1, "call", 200),
                              {"type": "street", "board": ["2c", "7h", "Kd"]}, _action(0, "call", 0),
                              _action(1, "raise", 500), _action(2, "call", 500), _act(500, 1000, 19700)))
    assert sent.decode().split("\r\n") == [
        "MATCHSTATE:0:3:r300c:AhKd||", "MATCHSTATE:0:3:r300cc/:AhKd||/2c7hKd", "MATCHSTATE:0:3:r300cc/c:AhKd||/2c7hKd",
        "MATCHSTATE:0:3:r300cc/cr800:AhKd||/2c7hKd", "MATCHSTATE:0:3:r300cc/cr800c:AhKd||/2c7hKd", ""]
    # r2000: 2000 in the hand, 300 of it before the flop: a raise to 1700 on this street
    assert c.reply(b"MATCHSTATE:0:3:r300cc/cr800c:AhKd||/2c7hKd:r2000") == (
        b'{"type": "action", "action": "raise", "to": 1700}')
    # the hand's end shows the cards shown, and goes out at the match's end
    sent = c.translate(_lines(_action(0, "raise", 1700), _action(1, "fold", 0), _action(2, "call", 1200),
                              {"type": "street", "board": ["2c", "7h", "Kd", "9s"]},
                              {"type": "hand_end", "shown": [{"seat": 0, "cards": ["Ah", "Kd"]},
                                                             {"seat": 2, "cards": ["Qs", "Qd"]}]}))
    assert sent == b""
    assert c.translate(_lines({"type": "match_end"})).decode().split("\r\n") == [
        "MATCHSTATE:0:3:r300cc/cr800cr2000:AhKd||/2c7hKd", "MATCHSTATE:0:3:r300cc/cr800cr2000f:AhKd||/2c7hKd",
        "MATCHSTATE:0:3:r300cc/cr800cr2000fc/:AhKd||QsQd/2c7hKd/9s", ""]


def test_messages_split_anywhere_translate_the_same():
    messages = _lines(_hand(0, 2), _action(2, "raise", 300), _act(250, 550, 20000))
    whole = _codec(0).translate(messages)
    c = _codec(0)
    assert b"".join(c.translate(messages[i:i + 7]) for i in range(0, len(messages), 7)) == whole


def test_heads_up_the_button_is_position_1_and_a_free_fold_is_a_check():
    c = _codec(1)
    assert c.translate(_lines(_hand(1, 1, seats=(0, 1), bets=(100, 50)), {"type": "act", "to_call": 50})) == (
        b"MATCHSTATE:1:3::|AhKd\r\n")
    assert c.reply(b"MATCHSTATE:1:3::|AhKd:f") == b'{"type": "action", "action": "fold"}'  # something was owed
    states = c.translate(_lines(_hand(1, 1, seats=(0, 1), bets=(100, 50)), _action(1, "call", 50),
                                _action(0, "call", 0), {"type": "street", "board": ["2c", "7h", "Kd"]},
                                _action(0, "call", 0), {"type": "act", "to_call": 0})).decode().split("\r\n")
    assert states[-2] == "MATCHSTATE:1:3:cc/c:|AhKd/2c7hKd"
    # a fold where a check is free is the check it means, as under ACPC's dealer
    assert c.reply((states[-2] + ":f").encode()) == b'{"type": "action", "action": "call"}'


@pytest.mark.parametrize("response, code, action", [
    ("MATCHSTATE:0:2::AhKd|:c", "other_state", None),  # another hand
    ("MATCHSTATE:1:3::AhKd|:c", "other_state", None),  # another position
    ("MATCHSTATE:0:3::AhKs|:c", "other_state", None),  # other cards
    ("MATCHSTATE:0:3::AhKd|:x", "bad_action", "'x'"),
    ("MATCHSTATE:0:3::AhKd|:r", "bad_action", "'r'"),  # no-limit: a raise says its size
    ("MATCHSTATE:0:3::AhKd|:", "bad_action", "''"),
    ("MATCHSTATE:0:3::AhKd|x:c", "bad_action", "'x:c'"),  # the state read, then not ':'
    ("MATCHSTATE:0:3::AhKd|:r12x", "raise_size", "'r12x'"),  # the dealer reads r12 and no further
    ("MATCHSTATE:0:3::AhKd|:r20001", "raise_size", "'r20001'"),
    ("# thinking", "comment", None),
    ("; thinking", "comment", None),
    ("hello 'you'", "bad_state", None),
    ("MATCHSTATE:2:3::AhKd|:c", "bad_state", None),  # no position 2 heads-up
    # not UTF-8: each bad byte is U+FFFD, as Python decodes it with errors="replace"
    ("caf\xe9 \x00\x07", "bad_state", None),
])
def test_a_wrong_response_is_a_fault_line_said_in_acpc_words(response, code, action):
    """In place of the reply, the fault line; the arena reports it in ACPC's
    words (what the agent sent, what the dealer would do, what it expected)."""
    c = _codec(0)
    c.translate(_lines(_hand(0, 1, seats=(0, 1), bets=(100, 50)), _act(0, 200, 20000)))
    raw = response.encode("latin-1")
    said = c.reply(raw).decode()
    assert c.reply(raw).decode() == said  # reading a reply changes nothing: a line handed back reads the same
    line = json.loads(said)
    assert line["acpc_fault"] == code and line["state"] == "MATCHSTATE:0:3::AhKd|"
    assert line["received"] == raw.decode("utf-8", "replace") and line.get("action") == (action and eval(action))
    kind, detail, received, expected = agent_fault(said)
    assert kind == ("illegal_action" if code == "raise_size" else "malformed_reply")
    assert received == raw.decode("utf-8", "replace") and "so does --acpc-lenient" in detail
    assert expected == ("a response to 'MATCHSTATE:0:3::AhKd|': that state followed by :c or :r<N>, N from 200 to "
                        "20000 (its chips in the hand after raising)")
    assert "{" not in detail + expected  # never the JSON bots' words


@pytest.mark.parametrize("response, reply", [
    ("MATCHSTATE:0:3::AhKd|:c", {"action": "call"}),
    ("MATCHSTATE:0:3::AhKd|:f", {"action": "call"}),  # a fold where a check is free is the check it means
    ("MATCHSTATE:0:3::AhKd|:r300", {"action": "raise", "to": 300}),  # before the flop: all on this street
    ("MATCHSTATE:0:3::AhKd|:r20000", {"action": "raise", "to": 20000}),
    # what the dealer reads without a word: any case and k/b for c/r, a size as scanf reads it, whatever
    # follows the action, another player's cards, '/' in the betting; the state compared by its meaning
    ("MATCHSTATE:0:3::ahkD|:K", {"action": "call"}),
    ("MATCHSTATE:0:3::AhKd|:B 300 please", {"action": "raise", "to": 300}),
    ("MATCHSTATE:0:3::AhKd|QsQd:c", {"action": "call"}),
    ("MATCHSTATE:+0:03::AhKd:cc", {"action": "call"}),
])
def test_a_response_is_read_as_the_dealer_reads_it(response, reply):
    c = _codec(0)
    c.translate(_lines(_hand(0, 1, seats=(0, 1), bets=(100, 50)), _act(0, 200, 20000)))
    assert json.loads(c.reply(response.encode())) == {"type": "action", **reply}


def test_a_raise_where_none_is_allowed_is_an_invalid_action():
    c = _codec(0)
    c.translate(_lines(_hand(0, 1, seats=(0, 1), bets=(100, 50)), _act(50)))
    kind, detail, received, expected = agent_fault(c.reply(b"MATCHSTATE:0:3::AhKd|:r400").decode())
    assert kind == "illegal_action" and "the raise 'r400' where no raise is allowed" in detail
    assert expected == "a response to 'MATCHSTATE:0:3::AhKd|': that state followed by :c or :f"


def test_a_reply_for_every_byte():
    """Any response becomes a reply or a fault line (the fuzz invariant),
    and the fault line quotes it as Python decodes it."""
    rng = random.Random(7)
    c = _codec(0)
    c.translate(_lines(_hand(0, 1, seats=(0, 1), bets=(100, 50)), _act(0, 200, 20000)))
    for _ in range(300):
        raw = bytes(rng.choice(b"MATCHSTATE:0|3r9cf\x00\xff\xc3\xa9'\"\\ \t") for _ in range(rng.randrange(30)))
        said = json.loads(c.reply(raw))
        if "acpc_fault" in said:
            assert said["received"] == raw.rstrip(b"\r\n").decode("utf-8", "replace"), (raw, said)
            assert agent_fault(c.reply(raw).decode()) is not None
        else:
            assert said["type"] == "action", (raw, said)


def test_the_relay_hands_the_agents_connection_to_the_arena():
    r = Relay(json.dumps(_start(3, seat=2)))
    # before its ready, the relay sent the seat and the connected socket; it kept no copy
    words, fds, _, _ = socket.recv_fds(r.arena, 64, 1)
    assert words == b"holdem 2" and len(fds) == 1
    with socket.socket(fileno=fds[0]) as agent:
        assert agent.type == socket.SOCK_STREAM and agent.family == socket.AF_INET
        assert r.said() == '{"type": "ready"}'
        agent.sendall(b"MATCHSTATE:2:0::||AhKd\r\n")  # the arena to the agent, with nothing between them
        assert r.state() == "MATCHSTATE:2:0::||AhKd"
        r.respond("MATCHSTATE:2:0::||AhKd:c")
        assert agent.recv(100) == b"MATCHSTATE:2:0::||AhKd:c\r\n"
        r.send(_hand(2, 2), {"type": "act", "to_call": 100})  # its stdin is read and dropped from now on
        agent.shutdown(socket.SHUT_WR)
        assert r.states.readline() == b""  # the agent sees the arena hang up, not the relay
    code, err, out = r.close()
    assert (code, out) == (0, ""), err


def test_lenient_the_relay_keeps_the_connection_and_does_as_the_dealer_does():
    """--acpc-lenient: the relay translates hold'em itself (the codec's
    translation) and reads the agent's lines as the ACPC dealer does: it
    skips a comment, a line it cannot read, a response to another state;
    brings a raise out of bounds to the nearest bound; takes a bare r (no
    size) as a call."""
    r = Relay(json.dumps(_start(2, seat=1)), lenient=True)
    assert r.said() == '{"type": "ready"}'
    assert _handed(r.arena) == []  # nothing handed over: the arena goes on speaking to the relay
    r.send(_hand(1, 1, seats=(0, 1), bets=(100, 50)), _act(50, 200, 20000))
    assert r.state() == "MATCHSTATE:1:3::|AhKd"
    for line in ("# thinking", "hello", "MATCHSTATE:1:2::|AhKd:c", "MATCHSTATE:1:3::|AhKd:r1"):
        r.respond(line)
    assert json.loads(r.said()) == {"type": "action", "action": "raise", "to": 200}
    r.send(_action(1, "raise", 150), _action(0, "call", 100), {"type": "street", "board": ["2c", "7h", "Kd"]},
           _action(0, "call", 0), _act(0, 100, 19800))
    states = [r.state() for _ in range(3)]
    assert states == ["MATCHSTATE:1:3:r200:|AhKd", "MATCHSTATE:1:3:r200c/:|AhKd/2c7hKd",
                      "MATCHSTATE:1:3:r200c/c:|AhKd/2c7hKd"]
    r.respond(states[-1] + ":r")
    assert json.loads(r.said()) == {"type": "action", "action": "call"}
    code, err, out = r.close()
    assert (code, out) == (0, ""), err


def test_without_a_hand_over_socket_holdem_is_refused_in_words():
    r = Relay(json.dumps(_start(2)), connect=False, hand_over=False)
    assert r.said().startswith("the ACPC relay plays holdem only with --hand-over FD")
    r.close()


def test_a_bad_version_is_said():
    r = Relay(json.dumps(_start(2)), version=b"VERSION:1.0.0\r\n")
    assert agent_fault(r.said()) == ("malformed_reply", "ACPC agent sent 'VERSION:1.0.0' on connecting; expected "
                                     "VERSION:2.0.0", "VERSION:1.0.0", "VERSION:2.0.0")
    assert _handed(r.arena) == []  # nothing was handed over: the arena goes on with the relay's words
    r.close()


def _handed(sock: socket.socket) -> list[int]:
    """The descriptors waiting on the arena's end of the hand-over socket (none: [])."""
    sock.setblocking(False)
    try:
        return socket.recv_fds(sock, 64, 1)[1]
    except BlockingIOError:
        return []
    finally:
        sock.setblocking(True)


def test_an_agent_that_exits_or_never_connects():
    r = Relay(json.dumps(_start(2)), connect=False, agent=["sh", "-c", "exit 4", "{gamedef}"])
    code, err, _ = r.close()
    assert code == 3, err  # the arena charges a crash
    assert "ACPC agent: exited (4) without connecting to 127.0.0.1:" in err and "expected a TCP connection" in err
    assert "(started as 'sh -c exit 4 " in err, err
    r = Relay(json.dumps(_start(2)), connect=False, agent=["sh", "-c", "exec sleep 30", "{host}"], timeout="0.1")
    assert r.proc.stderr.readline().decode().startswith("ACPC agent: did not connect to 127.0.0.1:")
    assert r.close()[::2] == (0, "")  # silent until the arena's deadline charges a timeout


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_the_game_definitions_are_the_acpc_packages(seats):
    r = Relay(json.dumps(_start(seats)), connect=False, agent=["sh", "-c", 'cat "$0" >&2', "{gamedef}"])
    _, err, _ = r.close()
    text = err.split("ACPC agent:")[0]

    def lines(text):
        return sorted(line.strip() for line in text.splitlines() if line.strip())

    package = {2: "holdem.nolimit.2p.reverse_blinds.game", 3: "holdem.nolimit.3p.game"}.get(seats)
    if package and (ACPC / package).exists():
        assert lines(text) == lines((ACPC / package).read_text())
    assert {2: "blind = 100 50", 3: "blind = 50 100 0", 4: "blind = 50 100 0 0"}[seats] in text, text


@pytest.mark.parametrize("seats, first", [(2, "firstPlayer = 1 1 1 1"), (3, "firstPlayer = 3 1 1 1")])
def test_with_equal_blinds_the_definition_asks_first_whom_the_arena_asks(seats, first):
    """Heads-up with equal blinds the arena asks position 0 (the big blind)
    first before the flop, not the button: so does the game definition
    (tests/protocols/test_acpc_dealer.py plays it under the ACPC dealer)."""
    r = Relay(json.dumps(_start(seats, small_blind=100, big_blind=100)), connect=False,
              agent=["sh", "-c", 'cat "$0" >&2', "{gamedef}"])
    _, err, _ = r.close()
    assert first in err and ("blind = 100 100" in err), err


@pytest.mark.parametrize("params, game", [
    ({"mode": "freezeout"}, "holdem"), ({"format": "freezeout"}, "holdem"), ({"ante": 1}, "holdem"),
    ({"small_blind": 0}, "holdem"), ({"stack": 99}, "holdem"),
    ({"gamedef": {"betting": "limit", "num_players": 2}}, "holdem"), ({}, "vonneumann"),
])
def test_what_acpc_cannot_express_is_refused_in_the_arenas_words(params, game):
    start = _start(2)
    start["params"].update(params)
    if "format" in params:
        del start["params"]["mode"]  # an arena before 0.2 named it format
    start["game"] = game
    r = Relay(json.dumps(start), connect=False)
    said = r.said()
    r.close()
    if game != "holdem":
        assert said == "ACPC agents play holdem and kuhn3 here; this match is 'vonneumann'"
    else:
        assert said == refusal(start["params"])  # the arena refuses it at the command line in the same words
    assert refusal({"mode": "cash", "ante": 0}) is None
    assert refusal({"stack": 100, "big_blind": 100, "gamedef": None}) is None  # all in from the blind: the dealer's too


def _kuhn3_blocks(seed: int, hands: int) -> list[tuple[int, list[str], str | None]]:
    """A real kuhn3 dialogue (random legal replies): every (seat, lines, reply) in order."""
    from games.kuhn3 import Kuhn3Params
    from protocols.kuhn3 import PLUGIN

    run = PLUGIN.open_dialogue(Kuhn3Params(hands=hands), random.Random(seed))
    rng = random.Random(seed + 50)
    blocks: list[tuple[int, list[str], str | None]] = []

    def told(n: int, exchange) -> None:  # a notification: nothing to reply
        if not exchange.reply:
            blocks.extend((seat, payload.decode().splitlines(), None) for seat, payload in exchange.sends)

    def answer(n: int, seat: int, payload: bytes) -> str:
        value = PLUGIN.random_reply(run, seat, payload, rng)
        blocks.append((seat, payload.decode().splitlines(), value))
        return value

    step_through(run, "kuhn3", answer, on_exchange=told)
    return blocks


def test_kuhn3_the_relay_and_the_log_replay_the_same_betting():
    """One seat's relay against the Python translator the ACPC log uses: the
    same states sent at the same moments (the states it need not answer go
    with the one it must, the last ones at the round's end), the same
    replies (each dialogue reply sent as the agent's ACPC response), the
    same Money; and every seat's translator agrees on the betting the
    dialogue made."""
    blocks = _kuhn3_blocks(seed=3, hands=25)
    seat = 1
    relay: Relay | None = None
    tr: dict[int, Kuhn3Translator] = {}
    finals: dict[int, str] = {}
    truth: list[str] = []
    hands_seen = 0
    for s, lines, value in blocks:
        head = lines[0]
        if head == "init_round":
            tr[s] = Kuhn3Translator(int(lines[3].split(": ")[1]))
            if s == seat:
                relay = Relay("init_round\n" + "\n".join(lines[1:]))
                assert relay.said() == "READY"
            continue
        t = tr[s]
        mine = s == seat and relay is not None
        if mine:
            relay.send("\n".join(lines))
        expected: list[str] = []
        if head == "init_hand":
            t.start_hand(int(lines[1].split(": ")[1]), lines[2].split(": ")[1])
        elif head == "play":
            expected = t.play([(a.split()[1], int(a.split()[2])) for a in lines[1:4]])
            state = expected[-1]
            verb, amount = value.split()
            token = "f" if verb == "FOLD" else ("c" if int(amount) == t.front[t.me] or t.bettor is not None else "r")
            assert t.reply(f"{state}:{token}") == value, (state, token, value)
            truth.append(token)
        elif head == "end_hand":
            amounts = [int(a.split()[2]) for a in lines[1:4]]
            pots = [tuple(map(int, p.split(","))) for p in lines[5].split(": ")[1].split()]
            t.end_hand(amounts, lines[4].split(": ")[1].split(","), pots)
            finals[s] = t.sent.split(":")[3]
            assert all(c in ("", "Js", "Qs", "Ks", "As") for c in t.sent.split(":")[4].split("|"))
            if len(finals) == 3:
                assert set(finals.values()) == {"".join(truth)}, (finals, truth)
                finals.clear()
                truth.clear()
                hands_seen += 1
        elif head.startswith("EndAction"):
            assert t.money() == value
        elif head == "end_round":
            expected = t.flush()
        if mine:
            assert [relay.state() for _ in expected] == expected
            if head == "play":
                relay.respond(f"{expected[-1]}:{token}")
            assert relay.said() == value, (head, value)
    assert hands_seen == 25
    assert relay.states.readline() == b""  # end_round: the relay hung up
    assert relay.close()[0] == 0


def test_kuhn3_states_are_the_ones_the_dealer_sends():
    """Every state, in order: the one before the first action, one after
    each action, the final one with the cards shown; cards of the ACPC deck."""
    t = Kuhn3Translator(2)  # the button at local seat 2 in hand 0: this seat is position 0
    t.start_hand(0, "K")
    assert t.play([("BLIND", 1), ("BLIND", 1), ("BLIND", 1)]) == ["MATCHSTATE:0:0::Ks||"]
    assert t.reply("MATCHSTATE:0:0::Ks||:r") == "BET 2"
    t.end_hand([2, 1, 2], ["K", "-", "Q"], [(5, 0)])  # the next seat folded, the button called
    assert t.flush() == ["MATCHSTATE:0:0:r:Ks||", "MATCHSTATE:0:0:rf:Ks||", "MATCHSTATE:0:0:rfc:Ks||Qs"]
    assert t.money() == "Money: 3,-1,-2"
