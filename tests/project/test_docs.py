"""The docs run. Every command block of README.md and docs/**/*.md is a
``console`` block, and each is executed here, in order, page by page, in a
scratch folder that links the checkout's ``sample_bots``, ``shims`` and
``examples``; a ``python file=NAME`` block is written there first as an
executable NAME. Each line a block shows after a ``$ command`` must appear
in what the command printed, in order; ``...`` stands for lines left out, or
for any text inside a line. The sandbox level a line names is whatever this
machine's default is. Blocks of syntax or sample output are ``text``.
A plain ``arena ...`` line (no pipe, redirection or variable) runs through
the command's entry point inside the test process, as ``run_arena`` does, and
so does the ``arena ...`` that starts a line before one `` > FILE``, `` | ...``
or `` || ...`` (its output is written to FILE or given to the rest, which runs
in ``sh``, as the shell would: a fresh ``arena`` process costs ~0.35 CPU-s of
imports); any other line runs in ``sh``.

The README's first block is the two commands of a fresh machine: ``make
demo`` is run here, and ``make test`` is what CI runs (``.ci/run``).
"""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest

from ..conftest import PY, ROOT, clean_env, run_in_process

# real processes, many matches: left out of `make test-fast`
pytestmark = pytest.mark.slow

PAGES = ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").rglob("*.md"))]
_FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```", re.S | re.M)
_LEVEL = re.compile(r"sandbox (none|basic|strict)\b")
#: what a command block must be tagged; other tags are code, data, syntax or output
_SHELLS = {"", "sh", "bash", "shell", "zsh"}
#: what makes a line the shell's rather than the arena's alone
_SHELL_SYNTAX = re.compile(r"[|&;<>$`*?]|^\w+=")
#: a plain ``arena`` command, then its output to a file, a pipe, or what runs if it fails
_ARENA_THEN = re.compile(r"(arena [^|&;<>$`*?]*?) (>|\|\||\|) (.+)", re.S)
_OPERATOR = re.compile(r"[();<>|&]+")


def blocks(page: str) -> list[tuple[str, str]]:
    return [(info.strip(), body) for info, body in _FENCE.findall((ROOT / page).read_text())]


def examples(page: str) -> list[tuple[str, list[str]]]:
    """(command, expected lines) for every ``$`` line of the page's console blocks."""
    found = []
    for info, body in blocks(page):
        if info != "console":
            continue
        for chunk in re.split(r"^\$ ", body, flags=re.M)[1:]:
            command, *expected = chunk.rstrip("\n").split("\n")
            found.append((command, [line for line in expected if line and line != "..."]))
    return found


def _pattern(line: str) -> re.Pattern:
    parts = [re.escape(_normal(part)) for part in line.split("...")]
    return re.compile(".*".join(parts))


def _normal(line: str) -> str:
    return _LEVEL.sub("sandbox LEVEL", line.rstrip())


def _sh(command: str, cwd: Path, env: dict[str, str], stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["sh", "-c", command], cwd=cwd, env=env, input=stdin, capture_output=True, text=True,
                          timeout=300)


def _arena_then(command: str) -> tuple[list[str], str, str] | None:
    """(the arena's arguments, ``>``, ``|`` or ``||``, the rest) of a line that
    starts with a plain ``arena`` command and has one operator after it, else None."""
    found = _ARENA_THEN.fullmatch(command)
    if not found:
        return None
    head, op, rest = found.groups()
    try:
        words = shlex.split(head)  # fails where the operator was inside quotes
        tokens = list(shlex.shlex(rest, posix=True, punctuation_chars=True))
    except ValueError:
        return None
    if op == ">" and not re.fullmatch(r"[\w./-]+", rest):
        return None
    if any(_OPERATOR.fullmatch(t) for t in tokens):
        return None  # a second operator: the shell's grouping, not ours
    return words[1:], op, rest


def run_line(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    """One ``$`` line: its ``arena`` command in this process where it can be, the rest in ``sh``."""
    words = shlex.split(command)
    if words[0] == "arena" and not _SHELL_SYNTAX.search(command):
        return run_in_process(words[1:], cwd=cwd, env=env)
    split = _arena_then(command)
    if split is None:
        return _sh(command, cwd, env)
    args, op, rest = split
    arena = run_in_process(args, cwd=cwd, env=env)
    if op == ">":
        (cwd / rest).write_text(arena.stdout)
        return subprocess.CompletedProcess(command, arena.returncode, "", arena.stderr)
    if op == "|":  # the pipeline's status is its last command's
        after = _sh(rest, cwd, env, stdin=arena.stdout)
        return subprocess.CompletedProcess(command, after.returncode, after.stdout, arena.stderr + after.stderr)
    if arena.returncode == 0:  # ||
        return arena
    after = _sh(f"(exit {arena.returncode}) || {rest}", cwd, env)  # the rest sees the arena's $?
    return subprocess.CompletedProcess(command, after.returncode, arena.stdout + after.stdout,
                                       arena.stderr + after.stderr)


def test_every_command_block_is_a_console_block():
    for page in PAGES:
        for n, (info, body) in enumerate(blocks(page)):
            if page == "README.md" and n == 0:
                continue  # the two commands of a fresh machine, below
            tag = info.split()[0] if info else ""
            assert tag not in _SHELLS, (
                f"{page}: a ```{info} block is not run by this test; make it ```console with "
                f"$ lines, or ```text if it shows syntax or output:\n{body[:200]}")


def test_the_readme_starts_with_the_two_commands():
    info, body = blocks("README.md")[0]
    assert (ROOT / "README.md").read_text().startswith("```")
    assert body.split() == ["make", "demo", "make", "test"]
    assert "make test" in (ROOT / ".ci" / "run").read_text()
    demo = subprocess.run(["make", "demo"], cwd=ROOT, env=clean_env(), capture_output=True, text=True,
                          timeout=600)
    assert demo.returncode == 0, demo.stdout + demo.stderr
    assert re.search(r"Finished kuhn3 seed 2026:[0-9a-f]{32}: completed", demo.stderr), demo.stderr


@pytest.mark.parametrize("page", [p for p in PAGES if examples(p)])
def test_the_examples_of_a_page_print_what_it_shows(page, tmp_path):
    for folder in ("sample_bots", "shims", "examples"):
        (tmp_path / folder).symlink_to(ROOT / folder)
    for info, body in blocks(page):
        name = re.fullmatch(r"python file=(\S+)", info)
        if name:
            (tmp_path / name.group(1)).write_text(body)
            (tmp_path / name.group(1)).chmod(0o755)
    env = clean_env()
    env.pop("ARENA_SANDBOX", None)  # the page shows the default level
    env["PATH"] = f"{PY.rsplit('/', 1)[0]}:{env.get('PATH', '/usr/bin:/bin')}"
    for command, expected in examples(page):
        proc = run_line(command, tmp_path, env)
        assert proc.returncode == 0, f"$ {command}\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
        printed = [_normal(line) for line in (proc.stderr + proc.stdout).splitlines()]
        at = 0
        for line in expected:
            pattern = _pattern(line)
            hit = next((i for i in range(at, len(printed)) if pattern.fullmatch(printed[i])), None)
            assert hit is not None, (f"{page}: `$ {command}` did not print\n  {line}\nIt printed:\n"
                                     + "\n".join(printed[:60]))
            at = hit + 1
