"""A game's own code, contained: what a plugin's dialogue computes between two
messages is bounded in time, and whatever it raises is the game's fault,
never a seat's.

A match runs its game's dialogue in the arena's process. A dialogue that
spins (a phase where nobody acts and the game is not over) held the match,
and with it a whole tournament, for ever; one that raised ended a
``--lifetime tournament`` run with a traceback. Now every call into the
game's code during a match goes through ``game_code``: an exception other
than a ``ProtocolError`` (which is a seat's bad reply) becomes a
``GameError`` naming the game, and a call that has not returned after
``STEP_SECONDS`` is interrupted. The match then ends with that verdict and
no seat blamed (``MatchResult.game_error``); a tournament records it and
plays on.

The time bound needs the main thread (a signal interrupts Python code there
only): a watcher thread sends it a signal (``INTERRUPT``) when a step
overruns. A game
stuck inside compiled code (a C extension that never returns) is not
interrupted; Python code always is.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from typing import Any, Literal

from protocols import ProtocolError

#: the longest a game's own code may compute between two messages of a match
#: (seconds; ``ARENA_GAME_SECONDS`` sets it for a whole environment)
STEP_SECONDS = float(os.environ.get("ARENA_GAME_SECONDS") or 10.0)
#: the most exchanges in a row a dialogue may yield that send nothing and ask nothing
IDLE_STEPS = 10_000
#: the signal that interrupts an overrunning step: a real-time one nothing else uses
#: (SIGALRM may be a test runner's, as pytest-timeout's is)
INTERRUPT = signal.SIGRTMIN + 5 if hasattr(signal, "SIGRTMIN") else signal.SIGALRM


class GameError(Exception):
    """The game's own code failed (raised, or did not return in time): no seat is to blame."""

    def __init__(self, game: str, what: str) -> None:
        super().__init__(f"game {game}: {what} (a bug in the game, not in a bot)")
        self.game = game
        self.what = what


class StepOverrun(BaseException):
    """Raised into the main thread when a step overruns (BaseException: a game's
    ``except Exception`` does not swallow it)."""


class _Step:
    """The step under way in the main thread: when it began, and its bound."""

    started: float | None = None
    limit = STEP_SECONDS
    rang = False
    #: the watcher sleeps until the next step after a second with none (an idle server
    #: is not woken 20 times a second); a step that finds it asleep wakes it
    sleeping = False


_step = _Step()
_wake = threading.Event()
_watching = False
_lock = threading.Lock()
#: how often the watcher looks at a step under way, and how long it stays up without one
_POLL, _IDLE = 0.05, 1.0


def _ring(signum: int, frame: Any) -> None:
    if _step.started is not None and _step.rang:
        raise StepOverrun


def _watch(main: int) -> None:
    idle_since = time.monotonic()
    while True:
        began, now = _step.started, time.monotonic()
        if began is not None:
            idle_since = now
            if not _step.rang and now - began > _step.limit:
                _step.rang = True
                signal.pthread_kill(main, INTERRUPT)
        elif now - idle_since > _IDLE:
            # Say "asleep" first, then look again: a step that began in between either sees
            # the flag (and wakes us) or is seen here (the GIL orders the two).
            _step.sleeping = True
            if _step.started is None:
                _wake.wait()
            _wake.clear()
            _step.sleeping = False
            idle_since = time.monotonic()
            continue
        time.sleep(_POLL)


def _start_watching() -> bool:
    """The watcher and the handler, once per process; False off the main thread."""
    global _watching
    if threading.current_thread() is not threading.main_thread():
        return False
    with _lock:
        if not _watching:
            if signal.getsignal(INTERRUPT) not in (signal.SIG_DFL, signal.SIG_IGN, None):
                return False  # someone else's signal: not ours to take
            signal.signal(INTERRUPT, _ring)
            threading.Thread(target=_watch, args=(threading.main_thread().ident,), daemon=True,
                             name="arena-game-watch").start()
            _watching = True
    return True


class game_code:  # noqa: N801 (a context manager, named as a call reads)
    """``with game_code("mygame", "its dialogue"):`` around a call into a game's code."""

    __slots__ = ("game", "doing", "seconds", "bounded")

    def __init__(self, game: str, doing: str, seconds: float = STEP_SECONDS) -> None:
        self.game, self.doing, self.seconds = game, doing, seconds
        self.bounded = False

    def __enter__(self) -> None:
        self.bounded = _start_watching()
        if self.bounded:
            _step.limit, _step.rang = self.seconds, False
            _step.started = time.monotonic()
            if _step.sleeping:
                _wake.set()

    def __exit__(self, kind: Any, exc: Any, tb: Any) -> Literal[False]:  # never swallows: raises or lets be
        if self.bounded:
            _step.started = None
        if kind is None or issubclass(kind, (ProtocolError, GameError, StopIteration, GeneratorExit)):
            return False
        if issubclass(kind, StepOverrun):
            raise GameError(self.game, f"{self.doing} computed for more than {self.seconds:g} s without "
                                       "sending a message or ending the match") from None
        if issubclass(kind, Exception):
            raise GameError(self.game, f"{self.doing} raised {kind.__name__}: {exc}") from exc
        return False  # KeyboardInterrupt and the like: not the game's


def idle_after(game: str, idle: int, exchange: Any) -> int:
    """Exchanges in a row that sent nothing, ``exchange`` counted; a game that
    asks nobody anything IDLE_STEPS times over, with its match not over, is a GameError."""
    idle = 0 if exchange.sends else idle + 1
    if idle > IDLE_STEPS:
        raise GameError(game, f"its dialogue yielded {IDLE_STEPS:,} exchanges in a row that send nothing, and "
                              "the match is not over")
    return idle


class Guarded:
    """A dialogue's generator whose every step runs under ``game_code``, with the
    bound on exchanges in a row that send nothing: how the arena steps every
    dialogue, in a match over pipes (``_match``) and in its own replays of a
    game (``_stepping``: check-game, the league's read-back, the tests)."""

    __slots__ = ("_run", "_gen", "_game", "_seconds", "_idle")

    #: the last failure of a game's code under any ``Guarded`` (a checker asks after each check)
    failed: GameError | None = None

    def __init__(self, run: Any, game: str, seconds: float = STEP_SECONDS) -> None:
        self._run, self._game, self._seconds, self._idle = run, game, seconds, 0
        with self._noted():
            with game_code(game, "its run", seconds):
                self._gen = run.run()

    def resume(self) -> Any:
        """The dialogue taken up again from its state (``resume()``), after the
        compiled dialogue played on from it: the exchange it stands at."""
        self.close()
        with self._noted():
            with game_code(self._game, "its dialogue", self._seconds):
                self._gen = self._run.resume()
        return self.send(None)

    def send(self, value: Any) -> Any:
        with self._noted():
            with game_code(self._game, "its dialogue", self._seconds):
                exchange = self._gen.send(value)
            self._idle = idle_after(self._game, self._idle, exchange)
        return exchange

    @contextlib.contextmanager
    def _noted(self) -> Any:
        try:
            yield
        except GameError as error:
            Guarded.failed = error
            raise

    def __next__(self) -> Any:
        return self.send(None)

    def close(self) -> None:
        try:
            self._gen.close()
        except Exception:  # noqa: BLE001 (the game's own cleanup; it has failed already if it raises)
            pass
