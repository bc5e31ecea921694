"""How a bot whose pipe closed ended, in words: the supervisor's report read
as the fault it is (could not start, crashed, left, hung up)."""

from __future__ import annotations

import errno
import os

from .._faults import BotFault, FaultKind
from ..sandbox._supervision import SupervisorStatus, signal_name

#: Signals the kernel sends when a limit is reached, in words.
_SIGNAL_WORDS = {
    "SIGXCPU": " (it reached its CPU time limit)",
    "SIGXFSZ": " (it reached its file size limit)",
}


def gone_fault(st: SupervisorStatus, during: str, received: str | None, *, seat: int, argv: tuple[str, ...],
               stderr: str) -> BotFault:
    """The fault of a bot whose stdout closed ``during`` something, from its supervisor's report ``st``."""
    if st.exec_errno is not None:
        return BotFault(FaultKind.FAILED_TO_START, exec_error(argv[0], st.exec_errno), received, seat=seat)
    if not st.started:
        tail = stderr.strip()[-300:] or "(nothing on stderr)"
        return BotFault(FaultKind.FAILED_TO_START, f"the sandbox could not start it: {tail}", received, seat=seat)
    if st.signal is not None:
        why = _SIGNAL_WORDS.get(signal_name(st.signal), "")
        return BotFault(FaultKind.CRASHED, f"killed by {signal_name(st.signal)}{why} while {during}",
                        received, seat=seat)
    if st.exit_code is not None and st.exit_code != 0:
        return BotFault(FaultKind.CRASHED, f"exited with code {st.exit_code} while {during}", received, seat=seat)
    if st.exit_code == 0:
        return BotFault(FaultKind.DISCONNECTED, f"exited (code 0) while {during}", received, seat=seat)
    if st.closed and not st.stopped:
        # Its supervisor went without a word: the sandbox ended around it (at gvisor, a limit
        # ends gVisor's kernel with the bot; the limit's verdict follows the detail).
        return BotFault(FaultKind.CRASHED, f"ended with its sandbox while {during}", received, seat=seat)
    what = "closed its stdin (broken pipe)" if during == "writing to it" else "closed its stdout"
    return BotFault(FaultKind.DISCONNECTED, f"{what} while {during} but is still running", received, seat=seat)


def exec_error(program: str, code: int) -> str:
    """Why ``program`` could not be executed, with what to do about it."""
    reason = os.strerror(code)
    if code == errno.ENOENT and os.path.isfile(program):
        line = _first_line(program)
        if line.startswith("#!"):
            interp = line[2:].strip()
            return (
                f"could not start {program}: its #! line names {interp!r}, which the sandbox "
                f"does not show; name the interpreter first on the command line "
                f"(e.g. \"python3 {program}\"), or run with --sandbox none"
            )
    if code == errno.EACCES:
        reason += (" (the bot's sandbox user cannot run it: is it executable, and are it and "
                   "its folder readable by others?)")
    if code == errno.ENOEXEC:
        reason += " (is the file missing a #! line?)"
    return f"could not start {program}: {reason}"


def _first_line(path: str) -> str:
    try:
        with open(path, "rb") as f:
            return f.readline(256).decode(errors="replace").rstrip("\n")
    except OSError:
        return ""
