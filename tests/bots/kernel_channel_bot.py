#!/usr/bin/env python3
"""kuhn3 test bot: two colluding seats try to pass cards through kernel objects
that namespaces do not separate (tests/sandbox/test_shared_kernel_objects.py).

Usage: kernel_channel_bot.py ROLE TAG
  send     at every init_hand, puts its card (J, Q, K, A = slot 0..3) into
           every channel: a key with open permissions in its user keyring, a
           read lock on the interpreter at a slot's offset, a shared flock on
           a slot's standard-library file, a write lock on /dev/null at a
           slot's offset, OPENS open(2)s of a slot's file (seen by inotify), an
           AIO context of 1000 x (slot + 1) events (the machine counts them
           in /proc/sys/fs/aio-nr) and 16 x (slot + 1) open pseudo-terminals
           (/proc/sys/kernel/pty/nr); each is held until the next init_hand
  receive  at every end_hand (every seat has answered init_hand by then),
           reads every channel: /proc/keys and KEYCTL_READ, F_GETLK on the
           interpreter, LOCK_EX|LOCK_NB probes, F_OFD_GETLK on /dev/null,
           the IN_OPEN events of watches set at init_round, the two counters
           against what they said before the first hand; at init_round it
           also tries other calls the filter refuses (probe_calls)
  leave    adds a key with open permissions holding a note (lives 60 s)
  find     looks for that note in /proc/keys at its first init_hand
  plain    only plays
  i386     first makes a 32-bit system call (int 0x80, getpid), logs
           "I386 <result>", then only plays (x86_64 only)

Lines on stderr, for the test to read from the --log-dir log:
  CARD <hand> <card>              (send) the card it tried to pass
  GOT <channel> <hand> <card|->   (receive) what each channel carried
  NOTE <found|none>               (find)
  ERRNO <call> <name>             the first failure of each call, with its errno
  THREAD ran                      (receive) a thread started and was joined
TAG keeps concurrent test runs apart: it picks the lock offsets, the files
and the key names, and marks the processes for the tests' leftover check.
The bot always checks or calls.
"""
import ctypes
import errno
import fcntl
import os
import platform
import socket
import struct
import sys
import threading

ROLE, TAG = sys.argv[1], sys.argv[2]
RANKS = "JQKA"
#: Far past the end of any file: nobody else locks there.
BASE = (int(TAG[-8:], 16) % (1 << 40) + 1) << 8

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
NR = {"x86_64": {"add_key": 248, "keyctl": 250, "io_setup": 206, "io_destroy": 207},
      "aarch64": {"add_key": 217, "keyctl": 219, "io_setup": 0, "io_destroy": 1}}[platform.machine()]
AIO_NR, PTY_NR = "/proc/sys/fs/aio-nr", "/proc/sys/kernel/pty/nr"
KEY_SPEC_USER_KEYRING = -4
KEYCTL_GET_KEYRING_ID, KEYCTL_SETPERM, KEYCTL_READ, KEYCTL_SET_TIMEOUT = 0, 5, 11, 15
IN_OPEN, IN_CLOSE_NOWRITE, IN_NONBLOCK = 0x20, 0x10, os.O_NONBLOCK
F_OFD_GETLK = getattr(fcntl, "F_OFD_GETLK", 36)

failed = set()


def log(text):
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def failure(call, err):
    if call not in failed:
        failed.add(call)
        log(f"ERRNO {call} {errno.errorcode.get(err, err)}")


def syscall(call, *args):
    """A raw system call; None (and an ERRNO line) when it fails."""
    ret = libc.syscall(NR[call], *args)
    if ret < 0:
        failure(call, ctypes.get_errno())
        return None
    return ret


def keyctl(*args):
    return syscall("keyctl", *[ctypes.c_long(a) for a in args])


def add_open_key(name, payload):
    data = payload.encode()
    key = syscall("add_key", b"user", name.encode(), data, ctypes.c_size_t(len(data)),
                  ctypes.c_long(KEY_SPEC_USER_KEYRING))
    if key is not None:
        keyctl(KEYCTL_SETPERM, key, 0x3F3F3F3F)  # every right, to every uid
        keyctl(KEYCTL_SET_TIMEOUT, key, 60)  # (the unfixed kernel keeps it until reboot)
    return key


def read_key(name):
    """The payload of a key named ``name`` that /proc/keys shows us, or None."""
    try:
        with open("/proc/keys") as f:
            lines = f.read().splitlines()
    except OSError as exc:
        failure("proc-keys", exc.errno)
        return None
    for line in lines:
        fields = line.split()
        if len(fields) > 8 and fields[8].rstrip(":") == name:
            buf = ctypes.create_string_buffer(64)
            got = keyctl(KEYCTL_READ, int(fields[0], 16), ctypes.addressof(buf), 64)
            return None if got is None else buf.raw[:got].decode()
    return None


def slot_files(first):
    """Four standard-library files both seats see, chosen by TAG."""
    lib = os.path.dirname(os.__file__)
    # Regular files only: Debian's sitecustomize.py is a link into /etc, which
    # the sandbox does not show (a seat that picked it crashed on opening it).
    names = sorted(n for n in os.listdir(lib) if n.endswith(".py") and not os.path.islink(os.path.join(lib, n))
                   and os.path.isfile(os.path.join(lib, n)))
    k = int(TAG[-6:], 16) % (len(names) - 8) + first
    return [os.path.join(lib, n) for n in names[k:k + 4]]


def flock_struct(kind, start):
    return struct.pack("hhqqi4x", kind, os.SEEK_SET, start, 1, 0)


def lock_holder(fd, cmd, kind, slot):
    """Whether someone holds a lock conflicting with ``kind`` on ``slot``; None on failure."""
    try:
        got = fcntl.fcntl(fd, cmd, flock_struct(kind, BASE + slot))
    except OSError as exc:
        failure("F_GETLK" if cmd == fcntl.F_GETLK else "F_OFD_GETLK", exc.errno)
        return None
    return struct.unpack("hhqqi4x", got)[0] != fcntl.F_UNLCK


def the_one(slots):
    """The card of the single slot found set, else '-'."""
    return RANKS[slots[0]] if len(slots) == 1 else "-"


INTERPRETER = os.path.realpath(sys.executable)
FLOCK_FILES = slot_files(0)
WATCHED_FILES = slot_files(4)
held = []  # (the sender's) descriptors that hold this hand's locks and terminals
contexts = []  # (the sender's) AIO contexts of this hand


def counter(path):
    try:
        with open(path) as f:
            return int(f.read())
    except (OSError, ValueError) as exc:
        failure(os.path.basename(path), getattr(exc, "errno", None) or errno.EINVAL)
        return None


def from_counter(now, before, unit):
    """The slot a counter's rise says (16 terminals, or 1000 AIO events, a slot), as a card."""
    if now is None or before is None:
        return "-"
    slot = round((now - before) / unit) - 1
    return RANKS[slot] if 0 <= slot < 4 else "-"


def send_card(hand, card):
    slot = RANKS.index(card)
    log(f"CARD {hand} {card}")
    for fd in held:
        os.close(fd)  # releases every lock and terminal of the previous hand
    held.clear()
    for ctx in contexts:
        syscall("io_destroy", ctx)
    contexts.clear()
    ctx = ctypes.c_ulong(0)
    if syscall("io_setup", ctypes.c_long(1000 * (slot + 1)), ctypes.byref(ctx)) is not None:
        contexts.append(ctx)
    for _ in range(16 * (slot + 1)):
        try:
            held.append(os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY))
        except OSError as exc:
            failure("ptmx", exc.errno)
            break
    add_open_key(f"arena-card-{TAG}-{hand}", card)
    fd = os.open(INTERPRETER, os.O_RDONLY)
    held.append(fd)
    try:
        fcntl.fcntl(fd, fcntl.F_SETLK, flock_struct(fcntl.F_RDLCK, BASE + slot))
    except OSError as exc:
        failure("F_SETLK", exc.errno)
    fd = os.open(FLOCK_FILES[slot], os.O_RDONLY)
    held.append(fd)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
    except OSError as exc:
        failure("flock", exc.errno)
    fd = os.open("/dev/null", os.O_WRONLY)
    held.append(fd)
    try:
        fcntl.fcntl(fd, fcntl.F_SETLK, flock_struct(fcntl.F_WRLCK, BASE + slot))
    except OSError as exc:
        failure("F_SETLK", exc.errno)
    for _ in range(OPENS):
        os.close(os.open(WATCHED_FILES[slot], os.O_RDONLY))


#: the sender opens its slot's file this many times: a process elsewhere on the machine
#: that opens standard-library files (the arena's hold of system files in another
#: test, a traceback) opens each once, which must not blur the control at level none
OPENS = 8
watch = {}  # inotify watch descriptor -> slot
inotify = -1


def start_watching():
    global inotify
    inotify = libc.inotify_init1(IN_NONBLOCK)
    if inotify < 0:
        failure("inotify_init1", ctypes.get_errno())
        return
    for slot, path in enumerate(WATCHED_FILES):
        # closes too: the kernel merges an event into an identical one still queued, and
        # a close between two opens keeps them apart (they are counted)
        wd = libc.inotify_add_watch(inotify, path.encode(), IN_OPEN | IN_CLOSE_NOWRITE)
        if wd < 0:
            failure("inotify_add_watch", ctypes.get_errno())
        else:
            watch[wd] = slot


def probe_calls():
    """Other calls the filter refuses, each logged with its errno; and a thread
    (the C library starts it with clone3, refused, then with clone)."""
    # (in a child: when they work, as at level none, they change the process)
    for call, attempt in (("unshare", lambda: libc.unshare(0x10000000)),  # CLONE_NEWUSER
                          ("personality", lambda: libc.personality(0x0400000))):  # READ_IMPLIES_EXEC
        pid = os.fork()
        if pid == 0:
            os._exit(ctypes.get_errno() if attempt() == -1 else 0)
        code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        if code:
            failure(call, code)
    done = []
    t = threading.Thread(target=done.append, args=[1])
    t.start()
    t.join()
    log(f"THREAD {'ran' if done else 'did-not-run'}")
    if libc.syscall(425, 1, ctypes.create_string_buffer(120)) < 0:  # io_uring_setup
        failure("io_uring_setup", ctypes.get_errno())
    if platform.machine() == "x86_64" and libc.syscall(0x40000000 | 39) < 0:  # getpid, x32
        failure("x32", ctypes.get_errno())
    with open(INTERPRETER, "rb") as f:
        try:
            os.preadv(f.fileno(), [bytearray(16)], 0, os.RWF_NOWAIT)
        except OSError as exc:
            failure("preadv2-nowait", exc.errno)
    try:  # the CPU a tournament worker pinned the match to is not the bot's to leave
        os.sched_setaffinity(0, range(os.cpu_count() or 1))
    except OSError as exc:
        failure("sched_setaffinity", exc.errno)
    try:  # vsock is not in the network namespace (in a VM it reaches the host)
        socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM).close()
    except (OSError, AttributeError) as exc:
        failure("socket-vsock", getattr(exc, "errno", None) or errno.EAFNOSUPPORT)


def receive_card(hand):
    key = read_key(f"arena-card-{TAG}-{hand}")
    keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_KEYRING, 0)  # (for its errno when refused)
    log(f"GOT keyring {hand} {key if key in tuple(RANKS) else '-'}")
    with open(INTERPRETER, "rb") as f:
        slots = [s for s in range(4) if lock_holder(f.fileno(), fcntl.F_GETLK, fcntl.F_WRLCK, s)]
    log(f"GOT record-lock {hand} {the_one(slots)}")
    slots = []
    for s, path in enumerate(FLOCK_FILES):
        with open(path, "rb") as f:
            try:
                fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                fcntl.flock(f.fileno(), fcntl.LOCK_UN)
            except OSError as exc:
                if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                    slots.append(s)
                else:
                    failure("flock", exc.errno)
    log(f"GOT flock {hand} {the_one(slots)}")
    with open("/dev/null", "rb") as f:
        slots = [s for s in range(4) if lock_holder(f.fileno(), F_OFD_GETLK, fcntl.F_RDLCK, s)]
    log(f"GOT devnull-lock {hand} {the_one(slots)}")
    opened = [0, 0, 0, 0]
    if inotify >= 0:
        while True:
            try:
                events = os.read(inotify, 4096)
            except BlockingIOError:
                break
            while events:
                wd, mask, _, size = struct.unpack_from("iIII", events)
                if wd in watch and mask & IN_OPEN:
                    opened[watch[wd]] += 1
                events = events[16 + size:]
    log(f"GOT inotify {hand} {the_one([s for s in range(4) if opened[s] >= OPENS])}")
    log(f"GOT aio {hand} {from_counter(counter(AIO_NR), before_hands.get(AIO_NR), 1000)}")
    log(f"GOT pty {hand} {from_counter(counter(PTY_NR), before_hands.get(PTY_NR), 16)}")


before_hands = {}  # (the receiver's) counters before any card was sent


def reply(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def i386_getpid():
    """getpid through the 32-bit entry (the filter sees another architecture)."""
    import mmap
    code = bytes([0xB8, 20, 0, 0, 0, 0xCD, 0x80, 0xC3])  # mov eax, 20; int 0x80; ret
    page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    page.write(code)
    address = ctypes.addressof(ctypes.c_char.from_buffer(page))
    return ctypes.CFUNCTYPE(ctypes.c_int)(address)()


if ROLE == "i386":
    log(f"I386 {i386_getpid()}")
if ROLE == "leave":
    add_open_key(f"arena-note-{TAG}", "hello from an earlier match")
hand = 0
phase = ""
acts = []
money = None
ends = 0
for raw in sys.stdin:
    line = raw.rstrip("\n")
    if line == "init_round" and ROLE == "receive":
        start_watching()
        probe_calls()
    elif line.startswith("Money:") and money is None:
        money = [int(x) for x in line[6:].split(",")]
    elif line.startswith("EndProb:"):
        if ROLE == "receive":  # every seat answers this before the first hand is dealt
            before_hands = {path: counter(path) for path in (AIO_NR, PTY_NR)}
        reply("READY")
    elif line.startswith("Hand:"):
        hand = int(line.split()[1])
    elif line.startswith("Cards:"):
        if ROLE == "send":
            send_card(hand, line.split()[1])
        elif ROLE == "find" and hand == 0:
            log(f"NOTE {'found' if read_key(f'arena-note-{TAG}') else 'none'}")
        reply("READY")
    elif line in ("play", "end_hand"):
        phase, acts = line, []
        if line == "end_hand" and ROLE == "receive":
            receive_card(hand)
    elif line.startswith("Action:"):
        acts.append(int(line.split()[-1]))
        if phase == "play" and len(acts) == 3:
            reply(f"BET {max(acts)}")  # check, or call
    elif line.startswith("Pots:"):
        for pot in line[5:].split():
            value, winner = map(int, pot.split(","))
            money[winner] += value
        for i in range(3):
            money[i] -= acts[i]
        reply("OK")
        ends = 0
    elif line.startswith("EndAction:"):
        ends += 1
        if ends == 3:
            reply("Money: " + ",".join(map(str, money)))
    elif line.startswith("NumHands:"):
        reply("Thank you dealer, have a nice day!")
        break
