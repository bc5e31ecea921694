"""The docs' examples run: every ``console`` block of a page is executed, in
order, in a scratch folder where ``sample_bots`` is the project's; each line
a block shows after a ``$ command`` must appear in what the command printed
(in order; ``...`` stands for lines left out). The sandbox level a line
names is whatever this machine's default is."""

from __future__ import annotations

import re
import subprocess

import pytest

from .conftest import PY, ROOT, clean_env

# real processes, many matches: left out of `make test-fast`
pytestmark = pytest.mark.slow

PAGES = ["docs/tournaments.md"]
_BLOCK = re.compile(r"^```console\n(.*?)^```", re.S | re.M)
_LEVEL = re.compile(r"sandbox (none|basic|strict)\b")


def examples(page: str) -> list[tuple[str, list[str]]]:
    """(command, expected lines) for every ``$`` line of the page's console blocks."""
    found = []
    for block in _BLOCK.findall((ROOT / page).read_text()):
        for chunk in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, *expected = chunk.rstrip("\n").split("\n")
            found.append((command, [line for line in expected if line and line != "..."]))
    return found


def _normal(line: str) -> str:
    return _LEVEL.sub("sandbox LEVEL", line.rstrip())


def test_every_documented_page_has_examples():
    for page in PAGES:
        assert examples(page), f"{page} has no console example"


@pytest.mark.parametrize("page", PAGES)
def test_the_examples_of_a_page_print_what_it_shows(page, tmp_path):
    (tmp_path / "sample_bots").symlink_to(ROOT / "sample_bots")
    env = clean_env()
    env.pop("ARENA_SANDBOX", None)  # the page shows the default level
    shell = f'arena() {{ "{PY}" -m arena "$@"; }}\n'
    for command, expected in examples(page):
        proc = subprocess.run(["sh", "-c", shell + command], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=300)
        assert proc.returncode == 0, f"$ {command}\n{proc.stderr}"
        printed = [_normal(line) for line in (proc.stderr + proc.stdout).splitlines()]
        at = 0
        for line in expected:
            want = _normal(line)
            try:
                at = printed.index(want, at) + 1
            except ValueError:
                raise AssertionError(f"{page}: `$ {command}` did not print\n  {line}\nIt printed:\n"
                                     + "\n".join(printed[:60])) from None
