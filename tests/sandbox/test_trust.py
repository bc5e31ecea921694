"""Trust: a hostile bot can neither escape, nor see others, nor get an innocent
bot faulted. Attacks across seats and matches, the filesystem view, verdicts
that are the same at every level, one owner of bot processes, bounded memory.

The single-bot attacks are in test_adversarial.py, the framing attacks
(a bot that does not read) in tests/play/test_fair_deadlines.py.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
import trio

from arena._spec import BotSpec
from arena.play._host import open_host
from arena.play._match import MatchSettings, run_match, run_series
from arena.sandbox import probe
from arena import load_game

from ..conftest import PY, ROOT, TEST_BOTS, assert_completed, clean_env, processes_with, replay_key, run_in_process

# real processes, many matches: left out of `make test-fast`
pytestmark = pytest.mark.slow

ATTACK = ROOT / "tests" / "adversarial" / "attack_bot.py"
RULE_BOT = ROOT / "sample_bots" / "kuhn3" / "build" / "rule_bot"
MISBEHAVE = TEST_BOTS / "misbehave.py"
KUHN3 = load_game("kuhn3")
SHARED = ("/tmp", "/dev/shm", "/var/tmp", "/run/lock", "/dev/mqueue")


def _level(level: str | None) -> str | None:
    """The level to open (None: the default), or skip when it does not work here."""
    info = probe()
    wanted = info.best_default if level is None else level
    if not info.works(wanted) or (level is None and wanted == "none"):
        pytest.skip(f"{wanted} unavailable: {info.errors.get(wanted)}")
    return level


#: the default level (strict where bubblewrap works) and basic: both builds of the view
SANDBOXED = [pytest.param(None, id="default"), pytest.param("basic", id="basic")]
EVERY_LEVEL = [pytest.param("none", marks=pytest.mark.unsandboxed), "basic", "strict", "gvisor"]


def _gone(tag: str, within: float = 5.0) -> list:
    deadline = time.monotonic() + within
    while (left := processes_with(tag)) and time.monotonic() < deadline:
        time.sleep(0.01)
    return left


def _report(log_dir: Path, seat: int, attack: str) -> str:
    text = (log_dir / f"seat{seat}.stderr.log").read_text(errors="replace")
    lines = [ln for ln in text.splitlines() if ln.startswith(f"ATTACK-RESULT {attack} ")]
    assert lines, f"no report from seat {seat}: {text[-400:]}"
    return lines[0].split(" ", 2)[2]


def _kuhn3(host, specs, log_dir: Path, hands: int = 3, **settings):
    settings = MatchSettings(host=host, log_dir=log_dir, grace=0.5, **settings)
    return trio.run(run_match, KUHN3, specs, KUHN3.Params(hands=hands), 11, settings)


def _attacker(attack: str, tag: str, target: str = "-") -> BotSpec:
    return BotSpec.parse(f"{PY} {ATTACK} {attack} at:{target} {tag}")


# -- nothing shared between seats, nothing carried to the next match ------------------


@pytest.mark.parametrize("level", SANDBOXED)
def test_seats_share_no_place_and_no_socket(level, tag, tmp_path):
    """One seat plants files in every world-writable place and listens on unix
    sockets (a path and an abstract name); another seat looks for them."""
    with open_host(_level(level), warn=lambda t: None) as host:
        specs = [_attacker("plant", tag), _attacker("harvest", tag), _attacker("none", tag)]
        result = _kuhn3(host, specs, tmp_path, hands=3)
    assert_completed(result)
    planted = _report(tmp_path, 0, "plant")
    assert "/tmp" in planted and "/dev/shm" in planted and "socket" in planted  # its own, private ones
    assert _report(tmp_path, 1, "harvest") == "FAILED nothing"
    plant = f"arena-plant-{tag}"
    assert [d for d in SHARED if os.path.exists(os.path.join(d, plant))] == []  # nothing reached the host
    assert _gone(tag) == []


@pytest.mark.parametrize("level", SANDBOXED)
def test_what_a_bot_leaves_does_not_count_against_the_next_one(level, tag, tmp_path):
    """Match 1: the bots fill /dev/shm and /tmp as far as they may. Match 2, same
    seats: a bot that needs most of its memory limit is not killed for it."""
    with open_host(_level(level), warn=lambda t: None) as host:
        first = _kuhn3(host, [_attacker("fill-shm", tag), _attacker("fill-tmp", tag), _attacker("none", tag)],
                       tmp_path / "m1")
        assert first.completed, [f.describe() for f in first.faults]
        policy = host.launcher.policy
        shm, tmp = _report(tmp_path / "m1", 0, "fill-shm"), _report(tmp_path / "m1", 1, "fill-tmp")
        # every write is capped in total, not only per file
        for text, cap in ((shm, policy.shm_mb), (tmp, policy.file_mb)):
            assert text.startswith("FAILED"), text
            assert int(text.split(" at ")[1].split()[0]) <= cap, text
        # With a memory cgroup, nearly all of it; under RLIMIT_AS alone (not
        # root) every mapping of the interpreter counts too.
        heavy = policy.memory_mb - 60 if getattr(host.launcher, "cg_layout", None) else policy.memory_mb // 2
        # (touching that much memory takes a while on a busy machine: this is about memory, not speed)
        second = _kuhn3(host, [_attacker(f"hold-{heavy}", tag), _attacker(f"hold-{heavy}", tag),
                               _attacker("none", tag)], tmp_path / "m2", timeout=30.0)
    assert second.completed, "\n".join(f.describe() for f in second.faults)
    assert _report(tmp_path / "m2", 0, f"hold-{heavy}") == f"SUCCEEDED {heavy} MiB"
    plant = f"arena-plant-{tag}"
    assert not any(p.startswith(plant) for d in ("/dev/shm", "/tmp") for p in os.listdir(d))
    assert _gone(tag) == []


# -- the view: decided by the command line, never by the bot's files ------------------


def _league(tmp_path: Path) -> Path:
    """A world-readable folder as an organiser might lay one out."""
    league = tmp_path / "league"
    for d in ("bin", "bots/evil", "bots/other"):
        (league / d).mkdir(parents=True)
    (league / "results.db").write_bytes(b"SQLite format 3\x00 the results")
    (league / "bots" / "other" / "secret.py").write_text("print('my secret strategy')\n")
    os.symlink(PY, league / "bin" / "python3")
    for path in [tmp_path, *league.rglob("*"), league]:
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)
    return league


def _copy_attacker(dest: Path, shebang: str | None = None) -> Path:
    text = ATTACK.read_text()
    if shebang is not None:
        text = f"#!{shebang}\n" + text.split("\n", 1)[1]
    dest.write_text(text)
    dest.chmod(0o755)
    return dest


@pytest.mark.parametrize("level", SANDBOXED)
def test_a_bots_files_cannot_widen_its_view(level, tag, tmp_path):
    """A ``#!`` line naming the league's folder, a program under ``league/bin``,
    an opponent's live stderr log, the results: nothing of it is visible."""
    league = _league(tmp_path)
    evil = _copy_attacker(league / "bots" / "evil" / "attack.py", shebang=f"{league}/bin/python3")
    in_bin = _copy_attacker(league / "bin" / "attack.py")
    logs = tmp_path / "logs"
    targets = ":".join([str(league / "results.db"), str(league / "bots" / "other" / "secret.py"),
                        str(logs / "seat2.stderr.log"), "/etc/shadow", str(ROOT / "sample_bots")])
    with open_host(_level(level), warn=lambda t: None) as host:
        specs = [BotSpec.parse(f"{PY} {evil} read-list at:{targets} {tag}"),
                 BotSpec.parse(f"{PY} {in_bin} read-list at:{targets} {tag}"),
                 BotSpec.parse(f"{PY} {MISBEHAVE} stderr_flood {tag}")]
        result = _kuhn3(host, specs, logs)
        assert_completed(result)
        for seat in (0, 1):
            text = (logs / f"seat{seat}.stderr.log").read_text()
            reads = [ln for ln in text.splitlines() if ln.startswith("ATTACK-RESULT read-list")]
            assert len(reads) == 5 and all(" FAILED ENOENT " in ln for ln in reads), reads
        # Run as a program, its #! interpreter is simply not there, and it is said so.
        specs[0] = BotSpec.parse(f"{evil} none - {tag}")
        result = _kuhn3(host, specs, tmp_path / "logs2")
    (fault,) = result.faults
    assert fault.seat == 0 and fault.kind == "failed_to_start"
    assert "its #! line names" in fault.detail and f"{league}/bin/python3" in fault.detail
    assert _gone(tag) == []


@pytest.mark.parametrize("level", SANDBOXED)
def test_a_bot_in_a_private_folder_runs(level, tag):
    """A ``mktemp -d`` folder (0700): its own uid could not read it, so the
    arena stages a readable copy for it."""
    private = Path(tempfile.mkdtemp(prefix="arena-private-bot-"))
    try:
        for name in ("misbehave.py", "io_faults.py"):
            shutil.copy(TEST_BOTS / name, private / name)
        (private / "misbehave.py").chmod(0o700)
        assert private.stat().st_mode & 0o077 == 0
        bot = BotSpec.parse(f"{PY} {private / 'misbehave.py'} none {tag}")
        with open_host(_level(level), warn=lambda t: None) as host:
            result = _kuhn3(host, [bot, bot, bot], private / "logs")
        assert_completed(result)
    finally:
        shutil.rmtree(private, ignore_errors=True)
    assert _gone(tag) == []


# -- verdicts: how a bot ended is reported the same way at every level ----------------

VERDICTS = {
    "abort": ("crashed", "killed by SIGABRT while waiting for its reply"),
    "signal": ("crashed", "killed by SIGSEGV while waiting for its reply"),
    "exit127": ("crashed", "exited with code 127 while waiting for its reply"),
    "crash": ("crashed", "exited with code 3 while waiting for its reply"),
    "exit_mid": ("disconnected", "exited (code 0) while waiting for its reply"),
    "close_stdout": ("disconnected", "closed its stdout while waiting for its reply but is still running"),
}


@pytest.mark.parametrize("level", EVERY_LEVEL)
@pytest.mark.parametrize("mode", sorted(VERDICTS))
def test_a_verdict_is_the_same_at_every_level(mode, level, tag, tmp_path):
    good = BotSpec.parse(f"{RULE_BOT} {tag}")  # compiled: no interpreter to start in each sandbox
    bad = BotSpec.parse(f"{PY} {MISBEHAVE} {mode} {tag}")
    with open_host(_level(level), warn=lambda t: None) as host:
        result = _kuhn3(host, [good, bad, good], tmp_path, timeout=5.0)
    (fault,) = result.faults
    kind, detail = VERDICTS[mode]
    assert (fault.seat, str(fault.kind), fault.detail) == (1, kind, detail)
    assert _gone(tag) == []


QUARANTINE = """
import sys
from pathlib import Path
from arena.cli._quarantine import quarantine
sys.exit(quarantine("kuhn3", sys.argv[1], matches=3, seed=3, timeout=1.0, sandbox=sys.argv[2],
                    opponents=Path(sys.argv[3])))
"""


def _c_opponents(folder: Path) -> Path:
    """A manifest of kuhn3's compiled sample bots only: what is checked is the candidate's
    leftovers, and a Python or node opponent's start under gVisor's ptrace platform costs
    more CPU than the rest of such a quarantine."""
    build = ROOT / "sample_bots" / "kuhn3" / "build"
    path = folder / "c-opponents.json"
    path.write_text(json.dumps({"params": {"hands": 300}, "opponents": [
        {"name": "rule_bot_c", "command": str(build / "rule_bot")},
        {"name": "rule_bot_rs", "command": str(build / "rule_bot_rs")}]}))
    return path


@pytest.mark.parametrize("level", EVERY_LEVEL)
@pytest.mark.parametrize("attack", ["escape", "outlive"])
def test_quarantine_finds_what_a_bot_left_running_at_every_level(attack, level, tag, tmp_path):
    """A child that left the bot's session (double fork, setsid) or ignores
    SIGTERM is found and counted, at ``none`` too, and killed."""
    _level(level)
    proc = subprocess.run([PY, "-c", QUARANTINE, f"{PY} {ATTACK} {attack} - {tag}", level, str(_c_opponents(tmp_path))],
                          capture_output=True, text=True, timeout=120, cwd=ROOT, env=clean_env())
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert re.search(r"step 7/8 FAIL .*1 process\(es\) it started were still running", proc.stdout), proc.stdout
    assert _gone(tag) == []


@pytest.mark.parametrize("level", ["basic", "strict", "gvisor"])
def test_a_bot_that_blinds_its_supervisor_is_still_caught_leaving_a_process(level, tag, tmp_path):
    """The supervisor runs under the bot's uid. The bot leaves an escapee, then
    tries to blind it: no descriptors (it could read no /proc and counted
    nothing, and step 7 passed), no CPU, the lowest priority, a stop. Each is
    refused, and what the bot left is counted all the same (as root, by the
    arena, in the bot's cgroup)."""
    _level(level)
    logs = tmp_path / "logs"
    proc = subprocess.run([PY, "-c", QUARANTINE_LOGS, f"{PY} {ATTACK} blind - {tag}", level, str(logs),
                           str(_c_opponents(tmp_path))],
                          capture_output=True, text=True, timeout=120, cwd=ROOT, env=clean_env())
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert re.search(r"step 7/8 FAIL .*1 process\(es\) it started were still running", proc.stdout), proc.stdout
    tried = [line for p in logs.rglob("*.stderr.log") for line in p.read_text().splitlines()
             if line.startswith("ATTACK-RESULT blind TRIED")]
    assert tried, list(logs.rglob("*"))
    for line in tried:
        outcomes = dict(word.split("=") for word in line.split()[3:])
        # Refused, or (signals to PID 1 of its namespace) sent and ignored.
        assert {k: v for k, v in outcomes.items() if k not in ("stop", "term")} == {
            "nofile": "EPERM", "nproc": "EPERM", "cpu": "EPERM", "nice": "EPERM", "nice-uid": "EPERM",
            "idle": "EPERM"}, line
    assert _gone(tag) == []


QUARANTINE_LOGS = """
import sys
import trio
from arena.play._host import open_host
from arena.quarantine._run import make_plan, run_quarantine
from pathlib import Path
plan = make_plan("kuhn3", sys.argv[1], matches=3, timeout=1.0, opponents=Path(sys.argv[4]))
with open_host(sys.argv[2], untrusted=True) as host:
    report = trio.run(run_quarantine, plan, Path(sys.argv[3]), lambda step: print(step.line(), flush=True), host)
sys.exit(0 if report.passed else 1)
"""


# -- one owner: every path starts bots the same way ---------------------------------

PROBE = TEST_BOTS / "probe_bot.py"
MINIMAL = ROOT / "sample_bots" / "rpsdraft" / "minimal_bot.py"


def _run_arena(*args: str, env_level: str | None = None) -> subprocess.CompletedProcess:
    """The command, in this process (its bots and workers are started as ever)."""
    env = clean_env()
    env.pop("ARENA_SANDBOX", None)
    if env_level is not None:
        env["ARENA_SANDBOX"] = env_level
    return run_in_process(list(args), env=env)


def _probes(text: str) -> list[dict]:
    """The probe bot's reports in ``text``: one dict per process."""
    reports: dict[str, dict] = {}
    for line in text.splitlines():
        if "PROBE " in line:
            pid, key, value = line.split("PROBE ", 1)[1].split(" ", 2)
            reports.setdefault(pid, {})[key] = json.loads(value)
    return list(reports.values())


def _normalised(report: dict) -> dict:
    """What must be equal in every path (pids and uids differ per process)."""
    mine = {n: os.readlink(f"/proc/self/ns/{n}") for n in report["ns"]}
    return {
        "uid": report["uid"],
        "CapEff": report["CapEff"], "CapBnd": report["CapBnd"], "NoNewPrivs": report["NoNewPrivs"],
        "new namespaces": sorted(n for n, v in report["ns"].items() if v != mine[n]),
        "root": report["root"], "shadow": report["shadow"], "leaks": report["leaks"],
    }


@pytest.mark.parametrize("level", SANDBOXED)
def test_every_path_starts_bots_the_same_way(level, tmp_path):
    """Single match, series, tournament (workers), tournament with one process
    per bot, quarantine: the same uid kind, capabilities, namespaces and view."""
    level = _level(level)
    bot, other = f"{PY} {PROBE}", f"{PY} {MINIMAL}"

    def _arena(*args: str) -> subprocess.CompletedProcess:
        return _run_arena(*args, env_level=level)

    seen: dict[str, list[dict]] = {}
    logs = tmp_path / "single"
    assert _arena("rpsdraft", bot, other, "--seed", replay_key("1"), "--log-dir", str(logs)).returncode == 0
    seen["single match"] = _probes((logs / "seat0.stderr.log").read_text())
    for lifetime in ("match", "tournament"):
        logs = tmp_path / f"series-{lifetime}"
        proc = _arena("rpsdraft", bot, other, "--seed", replay_key("1"), "--matches", "2", "--lifetime", lifetime,
                      "--log-dir", str(logs))
        assert proc.returncode == 0, proc.stderr
        seen[f"series, lifetime {lifetime}"] = [p for f in sorted(logs.rglob("seat0.stderr.log"))
                                                for p in _probes(f.read_text())]
        db = tmp_path / f"t-{lifetime}.db"
        proc = _arena("tournament", "rpsdraft", bot, other, "--seed", replay_key("1"), "--lifetime", lifetime, "--db", str(db))
        assert proc.returncode == 0, proc.stderr
        seen[f"tournament, lifetime {lifetime}"] = [
            p for f in sorted((tmp_path / f"t-{lifetime}-data").rglob("*stderr.log")) for p in _probes(f.read_text())
        ]
    proc = _arena("quarantine", "rpsdraft", f"{bot} fail", "--seed", replay_key("1"), "--matches", "2")
    assert proc.returncode == 1
    seen["quarantine"] = _probes(proc.stdout)
    normal = {path: [_normalised(r) for r in reports] for path, reports in seen.items()}
    assert all(normal.values()), {k: len(v) for k, v in normal.items()}
    first = normal["single match"][0]
    assert first["uid"] in ("own uid", "user namespace") and first["CapEff"] == "0000000000000000" and first["NoNewPrivs"] == "1"
    assert first["new namespaces"] == ["cgroup", "ipc", "mnt", "net", "pid", "uts"] and first["shadow"] is False
    # no host path or run token: no OLDPWD, mounts and cgroups shown as the sandbox's own
    assert first["leaks"] == [], first["leaks"]
    # the system's links, its own folder's and its interpreter's paths, private places; no /home, /var, /srv
    assert not {"home", "var", "srv", "opt", "mnt", "media", "boot"} & set(first["root"]), first["root"]
    for path, reports in normal.items():
        for report in reports:
            assert report == first, (path, report, first)
    # and the level recorded is the one applied
    with __import__("sqlite3").connect(tmp_path / "t-tournament.db") as conn:
        levels = {json.loads(t)["sandbox"]["level"] for (t,) in conn.execute("SELECT timings FROM matches")}
    assert levels == {level or probe().best_default}


# -- the arena's own memory ---------------------------------------------------------


@pytest.mark.unsandboxed
def test_a_reply_longer_than_any_valid_one_is_malformed(tag, tmp_path):
    good = BotSpec.parse(f"{PY} {MISBEHAVE} none {tag}")
    padded = BotSpec.parse(f"{PY} {MISBEHAVE} pad:{KUHN3.max_reply_bytes + 1} {tag}")
    with open_host("none") as host:
        result = _kuhn3(host, [good, padded, good], tmp_path)
    (fault,) = result.faults
    assert fault.seat == 1 and fault.kind == "malformed_reply" and "longer than" in fault.detail


WORKER_CEILING_MB = 150


@pytest.mark.unsandboxed
def test_a_worker_stays_under_a_fixed_memory_ceiling(tag, tmp_path):
    """Replies padded to the longest valid length, over a long match: the
    worker's peak memory stays under a fixed ceiling (transcripts stream to disk)."""
    bot = {"name": "padder", "command": f"{PY} {MISBEHAVE} pad:{KUHN3.max_reply_bytes - 1} {tag}"}
    job = {"key": [0, 0], "game": "kuhn3", "params": KUHN3.Params(hands=2500).model_dump(mode="json"),
           "seed": 5, "bots": [bot, bot, bot], "timeout": 5.0,
           "transcript": str(tmp_path / "t.log.gz"), "log_dir": str(tmp_path / "logs"),
           "sandbox": {"level": "none"}}
    worker = subprocess.Popen([PY, "-m", "arena.play._worker", "0"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              cwd=ROOT, env=clean_env())
    try:
        worker.stdin.write((json.dumps(job) + "\n").encode())
        worker.stdin.flush()
        reply = json.loads(worker.stdout.readline())
        status = Path(f"/proc/{worker.pid}/status").read_text()
    finally:
        worker.stdin.close()
        worker.wait(timeout=30)
        worker.stdout.close()
    assert reply["result"]["completed"] and reply["result"]["hands"] == 2500
    peak_kb = int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1))
    assert peak_kb < WORKER_CEILING_MB * 1024, f"worker peaked at {peak_kb // 1024} MB"
    assert (tmp_path / "t.log.gz").stat().st_size > 0
    assert _gone(tag) == []


@pytest.mark.unsandboxed
def test_the_last_notification_reaches_a_slow_reader(tag, tmp_path):
    """A notification still waiting in a bot's outbox when the match ends is
    delivered (within the bot's own deadline) before the bot is stopped."""
    plugin = load_game("rpsdraft")
    spec = BotSpec.parse(f"{PY} {ROOT / 'tests' / 'bots' / 'pid_bot.py'} {tag}")
    with open_host("none") as host:
        results = trio.run(lambda: run_series(plugin, [spec, spec], [(plugin.Params(), 1)],
                                              MatchSettings(host=host, log_dir=tmp_path)))
    assert results[0].completed
