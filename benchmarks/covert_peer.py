#!/usr/bin/env python3
"""One end of a covert channel between two sandboxed bots (benchmarks/covert_channels.py).

It reads one line, ``send|receive CHANNEL T0 PERIOD BITS FILE OFFSET``, and
works in slots of PERIOD seconds from the wall-clock time T0 (a clock both
processes share): in slot i the sender acts if bit i is 1, and the receiver
decides from what it sees. The receiver answers ``GOT <bits> <samples>``
(its raw measures, for the threshold), the sender ``SENT``.

Channels (each a way two processes of different sandboxes share something):
  futex      a FUTEX_WAKE at an address of a shared read-only file mapping
             wakes a FUTEX_WAIT at the same file offset elsewhere
  threads    the machine's thread count (/proc/loadavg): 40 sleeping threads
  forks      the machine's fork count (/proc/stat "processes"): 20 forks
  files      the machine's open-file count (/proc/sys/fs/file-nr): 200 files
  cpu        the CPU both share: the sender spins, the receiver counts its loops
  pagecache  a page of a large system file read in the slot is read fast later
"""
import ctypes
import mmap
import os
import sys
import threading
import time

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
FUTEX_WAIT, FUTEX_WAKE = 0, 1


class Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


def until(t):
    while True:
        left = t - time.time()
        if left <= 0:
            return
        time.sleep(min(left, 0.0005) if left < 0.002 else left - 0.001)


def futex(addr, op, val, timeout=None):
    ts = None
    if timeout is not None:
        ts = ctypes.byref(Timespec(int(timeout), int((timeout % 1) * 1e9)))
    return libc.syscall(202, ctypes.c_void_p(addr), op, val, ts, None, 0)


def read_first(path):
    """The file's text; what a missing counter reads as (gVisor has no /proc/sys/fs/file-nr) is 0s."""
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return "0 0 0 0/0 0\nprocesses 0\n"


def threads_now():
    return int(read_first("/proc/loadavg").split()[3].split("/")[1])


def forks_now():
    for line in read_first("/proc/stat").splitlines():
        if line.startswith("processes "):
            return int(line.split()[1])
    return 0


def files_now():
    return int(read_first("/proc/sys/fs/file-nr").split()[0])


def main():
    role, channel, t0, period, bits, path, offset = sys.stdin.readline().split()
    t0, period, offset = float(t0), float(period), int(offset)
    n = len(bits)
    fd = os.open(path, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
    # a shared read-only mapping of the file (libc's mmap: Python's gives no address of a read-only one)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    addr = libc.mmap(None, 1 << 20, mmap.PROT_READ, mmap.MAP_SHARED, fd, offset - offset % mmap.PAGESIZE)
    got, samples = [], []
    for i in range(n):
        start = t0 + i * period
        until(start)
        one = bits[i] == "1"
        if channel == "futex":
            word = addr + 4096 + 64  # any word of the page: its key is the file's page
            if role == "send":
                end = start + period * 0.6
                while time.time() < end:
                    if one:
                        futex(word, FUTEX_WAKE, 1 << 30)
                    time.sleep(0.0002)
            else:
                value = ctypes.c_int.from_address(word).value
                r = futex(word, FUTEX_WAIT, value, period * 0.7)
                woke = r == 0
                samples.append(int(woke))
                got.append("1" if woke else "0")
        elif channel == "threads":
            if role == "send":
                if one:
                    stop = threading.Event()
                    ts = [threading.Thread(target=stop.wait) for _ in range(40)]
                    for t in ts:
                        t.start()
                    until(start + period * 0.8)
                    stop.set()
                    for t in ts:
                        t.join()
            else:
                until(start + period * 0.5)
                samples.append(threads_now())
        elif channel == "forks":
            if role == "send":
                if one:
                    for _ in range(20):
                        pid = os.fork()
                        if pid == 0:
                            os._exit(0)
                        os.waitpid(pid, 0)
            else:
                before = forks_now()
                until(start + period * 0.9)
                samples.append(forks_now() - before)
        elif channel == "files":
            if role == "send":
                if one:
                    held = [os.open("/dev/null", os.O_RDONLY) for _ in range(200)]
                    until(start + period * 0.8)
                    for h in held:
                        os.close(h)
            else:
                until(start + period * 0.5)
                samples.append(files_now())
        elif channel == "cpu":
            end = start + period * 0.8
            if role == "send":
                if one:
                    while time.time() < end:
                        pass
            else:
                loops = 0
                while time.time() < end:
                    loops += 1
                samples.append(loops)
        elif channel == "pagecache":
            at = offset + 2 * i * 4096
            if role == "send":
                if one:
                    os.pread(fd, 1, at)
            else:
                until(start + period * 0.6)
                began = time.perf_counter()
                os.pread(fd, 1, at)
                samples.append(time.perf_counter() - began)
    until(t0 + n * period)
    if role == "send":
        print("SENT", flush=True)
    else:
        print("GOT", " ".join(map(str, samples)), flush=True)


if __name__ == "__main__":
    main()
