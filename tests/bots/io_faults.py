"""The misbehaviours every protocol meets the same way (imported by the test bots).

Each misbehaving test bot plays its game correctly until its trigger, then
calls ``io_fault``: these modes break the transport itself, whatever the game.
"""
import os
import signal
import sys
import time

IO_MODES = ("silent", "exit_mid", "crash", "signal", "abort", "exit127", "close_stdout", "huge_line", "bad_utf8")


def io_fault(mode: str, bad_utf8_line: bytes) -> None:
    """Misbehave as ``mode`` says; only ``bad_utf8`` returns (after writing its line)."""
    out = sys.stdout.buffer
    if mode == "silent":
        time.sleep(600)
    elif mode == "exit_mid":
        sys.exit(0)
    elif mode == "crash":
        sys.stderr.write("Traceback: something went wrong in my bot\n")
        sys.stderr.flush()
        os._exit(3)
    elif mode == "signal":
        os.kill(os.getpid(), signal.SIGSEGV)
    elif mode == "abort":  # what a failed assert() in C does
        os.abort()
    elif mode == "exit127":  # started fine, then exits as "command not found" would
        os._exit(127)
    elif mode == "close_stdout":
        os.close(1)
        time.sleep(600)
    elif mode == "huge_line":
        out.write(b"{" * (10 * 1024 * 1024))  # and no newline
        out.flush()
        time.sleep(600)
    elif mode == "bad_utf8":
        out.write(bad_utf8_line + b"\n")
        out.flush()
    else:
        raise ValueError(f"not a transport misbehaviour: {mode}")
