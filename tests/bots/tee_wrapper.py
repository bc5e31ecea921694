#!/usr/bin/env python3
"""Hostile wrapper: keeps its stdin pipe full so the arena's writes stall.

    tee_wrapper.py DELAY -- REAL BOT COMMAND...

The real bot runs as a child and plays normally: it gets every byte the
arena sends, as soon as it arrives. But the wrapper copies its input with
tee(2), which leaves the bytes in the pipe, and shrinks that pipe to one
page, so the pipe fills after 4 KiB. Only when the pipe has been full
(no new input) for DELAY seconds are the bytes really read; each fill
stalls the arena's writes to this seat for about DELAY seconds.

At exit it writes ``TEE-WRAPPER stalled N times, fullest M bytes, got T
bytes`` to stderr (M: the most bytes held in the pipe when it was released;
T: all the input it received), for the tests to check that the pipe really
filled and that the child was given everything.
"""

import ctypes
import fcntl
import os
import select
import subprocess
import sys
import time

PAGE = 4096
# Python has no os.tee: call the C library's.
_libc = ctypes.CDLL(None, use_errno=True)
_libc.tee.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_size_t, ctypes.c_uint]
_libc.tee.restype = ctypes.c_ssize_t


def peek(fd_in: int, scratch_r: int, scratch_w: int) -> bytes:
    """Everything in the pipe ``fd_in`` without consuming it ('' when empty).

    tee(2) needs a pipe on both sides, so the copy goes through a scratch
    pipe (64 KiB by default, more than ``fd_in`` can hold) and is read back.
    """
    n = _libc.tee(fd_in, scratch_w, 1 << 16, os.SPLICE_F_NONBLOCK)
    if n < 0:
        err = ctypes.get_errno()
        if err == 11:  # EAGAIN: nothing in the pipe
            return b""
        raise OSError(err, os.strerror(err))
    data = b""
    while len(data) < n:
        data += os.read(scratch_r, n - len(data))
    return data


def main() -> int:
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        sys.exit("usage: tee_wrapper.py DELAY -- COMMAND...")
    delay = float(sys.argv[1])
    command = sys.argv[3:]

    fcntl.fcntl(0, fcntl.F_SETPIPE_SZ, PAGE)
    child_r, child_w = os.pipe()
    scratch_r, scratch_w = os.pipe()
    child = subprocess.Popen(command, stdin=child_r)  # stdout, stderr: ours, straight to the arena
    os.close(child_r)
    # Only the child answers; the arena must see end-of-file on stdout when it exits.
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.close(null)

    ep = select.epoll()
    # Edge-triggered: the pipe stays readable (we never empty it), but Linux
    # (5.14 on) signals every write, so each new message wakes us.
    ep.register(0, select.EPOLLIN | select.EPOLLET)
    pidfd = os.pidfd_open(child.pid)
    ep.register(pidfd, select.EPOLLIN)

    forwarded = 0  # bytes at the head of our stdin that the child already has
    last_input = time.monotonic()
    stalls = fullest = total = 0
    hung_up = child_gone = False
    try:
        while not child_gone:
            data = peek(0, scratch_r, scratch_w)
            now = time.monotonic()
            if len(data) > forwarded:
                try:
                    os.write(child_w, data[forwarded:])
                except BrokenPipeError:
                    break  # the child stopped reading: its exit ends us
                forwarded = len(data)
                last_input = now
            elif hung_up:
                break  # the arena closed our stdin and the child has it all
            elif forwarded and now - last_input >= delay:
                stalls += 1
                fullest = max(fullest, forwarded)
                left = forwarded
                while left:  # really consume what the child has
                    left -= len(os.read(0, left))
                total += forwarded
                forwarded = 0
                continue
            # Backstop of 0.1 s for kernels that signal a pipe only when it
            # goes from empty to non-empty.
            wait = 0.1 if not forwarded else min(0.1, max(0.0, last_input + delay - now))
            for fd, events in ep.poll(wait):
                if fd == 0 and events & select.EPOLLHUP:
                    hung_up = True
                if fd == pidfd:
                    child_gone = True
    finally:
        sys.stderr.write(f"TEE-WRAPPER stalled {stalls} times, fullest {fullest} bytes, "
                         f"got {total + forwarded} bytes\n")
        sys.stderr.flush()
        os.close(child_w)  # the child's end-of-file
    code = child.wait()
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main())
