"""Each entrant's data folder (``arena tournament --data-mb MB``): the one place a
bot keeps files from one match to the next, as OpenSpiel's competition gave
its bots a ``/data`` folder.

Each entrant gets a tmpfs of its own of at most MB megabytes, mounted by the
arena for the tournament's life under its private folder and shown writable
at ``/data`` in that entrant's sandbox only (``BotSpec.data``), never to
another entrant. Its processes run under uids of their own, one after another
(``--jobs 1``), so the folder is handed to each in turn (the launcher) and
taken back at its end. At the tournament's end each folder is copied to
``--keep-data DIR/NAME`` if asked, then unmounted: nothing is left behind.
Needs root (a tmpfs is what caps the size) and a sandbox level other than
none; refused with a duplicate deal, which a folder would carry from one
seating to the next.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from .._checks import UsageError
from .._spec import BotSpec

#: the largest data folder, MB (each is memory: a tmpfs)
MOST_MB = 4096


def check_data(data_mb: int | None, keep_data: str | None, *, level: str, duplicate: bool, jobs: int,
               cluster: str | None) -> None:
    """Refuse, in words, data folders this run cannot give."""
    if data_mb is None:
        if keep_data is not None:
            raise UsageError("--keep-data keeps the data folders that --data-mb gives: give --data-mb too")
        return
    if not 1 <= data_mb <= MOST_MB:
        raise UsageError(f"--data-mb is each entrant's folder in MB, 1 to {MOST_MB}, not {data_mb}")
    if os.geteuid() != 0:
        raise UsageError("--data-mb needs root: each entrant's folder is a tmpfs of its own, which is what caps "
                         "its size")
    if level == "none":
        raise UsageError("--data-mb shows each entrant its folder at /data inside its sandbox, and --sandbox none "
                         "has none")
    if duplicate:
        raise UsageError("--data-mb cannot go with --duplicate: a data folder would carry each deal from one "
                         "seating to the next")
    if cluster is not None:
        raise UsageError("--data-mb cannot go with --cluster: the data folders stay on this machine")
    if jobs != 1:
        raise UsageError(f"--data-mb plays one match at a time (--jobs 1, not {jobs}): an entrant's folder is "
                         "one of its processes' at a time")
    if keep_data is not None and Path(keep_data).exists() and (
            not Path(keep_data).is_dir() or any(Path(keep_data).iterdir())):
        raise UsageError(f"--keep-data {keep_data}: expected a new or empty folder")


@contextlib.contextmanager
def entrant_data(bots: list[BotSpec], folder: Path, data_mb: int, keep: str | None) -> Iterator[list[BotSpec]]:
    """``bots`` each with its data folder (a tmpfs under ``folder``), for the block's length;
    then each copied to ``keep/NAME`` when given, and all unmounted and removed."""
    root = folder / "entrant-data"
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    mounted: list[Path] = []
    try:
        for i in range(len(bots)):
            path = root / str(i)
            path.mkdir(mode=0o700, exist_ok=True)
            _mount(path, data_mb)
            mounted.append(path)
        yield [replace(bot, data=str(path)) for bot, path in zip(bots, mounted)]
    finally:
        for bot, path in zip(bots, mounted):
            if keep is not None:
                shutil.copytree(path, Path(keep) / bot.name, symlinks=True, dirs_exist_ok=True)
            _unmount(path)
        shutil.rmtree(root, ignore_errors=True)


def _mount(path: Path, data_mb: int) -> None:
    # As many files as a folder of small files that size would hold, and no more (inodes are memory too).
    options = f"size={data_mb}m,nr_inodes={max(1024, data_mb * 256)},mode=0700,nosuid,nodev"
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "arena-data", str(path)], capture_output=True,
                          text=True)
    if done.returncode != 0:
        raise UsageError(f"--data-mb: could not mount a {data_mb} MB tmpfs at {path}: "
                         f"{done.stderr.strip() or done.returncode}")


def _unmount(path: Path) -> None:
    if subprocess.run(["umount", str(path)], capture_output=True).returncode != 0:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)  # busy: detached, freed when let go
