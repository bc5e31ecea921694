"""tests/ mirrors the rooms, so the tests of a module are found by its path.

A test file is ``tests/ROOM/test_*.py``. ROOM is a sub-package of ``arena/``
(``tests/play`` holds the tests of ``arena/play``) or one of the rooms outside
it: ``games`` (the rules of each game), ``protocols`` (what goes over the
wire), ``project`` (the checkout as a whole). Each room folder is a package
with an empty ``__init__.py``: two rooms may then hold test files of the same
name (``games/test_rpsdraft.py``, ``protocols/test_rpsdraft.py``), and
identical empty files merge cleanly between branches.

The folders that hold what tests use (bots, attack tools, golden files) are
named here too, so that a folder of tests cannot pass for one of those.
"""

from __future__ import annotations

from pathlib import Path

from ..conftest import ROOT

TESTS = ROOT / "tests"

#: Rooms that are not a sub-package of arena/ (cli is one too; named for clarity).
ROOMS_OUTSIDE_ARENA = frozenset({"games", "protocols", "project", "cli"})

#: Folders of tests/ that hold no tests: what the tests run or compare against.
HELPER_FOLDERS = frozenset({"bots", "adversarial", "golden"})

#: Test files allowed flat in tests/: none (kept as the one place to name an
#: exception while a change moves files, so the check itself never changes).
STILL_FLAT_UNTIL_REPLACED: frozenset[str] = frozenset()


def rooms(root: Path = ROOT) -> frozenset[str]:
    """The folder names tests/ may have: arena's sub-packages and the rooms outside it."""
    packages = {init.parent.name for init in (root / "arena").glob("*/__init__.py")}
    return frozenset(packages) | ROOMS_OUTSIDE_ARENA


def misplaced(tests: Path, rooms: frozenset[str], still_flat: frozenset[str] = frozenset()) -> list[str]:
    """Each way ``tests`` breaks the mirror, one line each; empty when it holds."""
    problems = []
    for path in sorted(tests.rglob("test_*.py")):
        where = path.relative_to(tests)
        if "def test_" not in path.read_text(errors="replace"):
            continue  # a program named so (OpenSpiel's HIGC test bots), not a test module
        if len(where.parts) == 1:
            if where.name not in still_flat:
                problems.append(f"{where}: flat in tests/; move it into the folder of the room it tests")
        elif len(where.parts) > 2 or where.parts[0] not in rooms:
            problems.append(f"{where}: not in a room folder (tests/ROOM/test_*.py, ROOM one of {sorted(rooms)})")
    for folder in sorted(p for p in tests.iterdir() if p.is_dir()):
        if folder.name.startswith((".", "__")) or folder.name in HELPER_FOLDERS:
            continue
        if folder.name not in rooms:
            problems.append(f"{folder.name}/: neither a room nor a folder of test helpers")
            continue
        init = folder / "__init__.py"
        if not init.is_file() or init.stat().st_size != 0:
            problems.append(f"{folder.name}/__init__.py: missing or not empty (every room is an empty package)")
    return problems


def test_every_test_file_is_in_the_folder_of_its_room():
    assert misplaced(TESTS, rooms(), STILL_FLAT_UNTIL_REPLACED) == []


def test_the_rooms_are_arenas_sub_packages_and_the_ones_outside_it():
    found = rooms()
    assert {"play", "sandbox", "results", "tournament", "quarantine", "league", "cluster", "cli"} <= found
    # modules directly in arena/ are not rooms: their tests go to a room that uses them
    assert not {"_checks", "_spec", "_plan", "__pycache__"} & found


def test_a_test_file_out_of_place_is_named(tmp_path):
    tests = tmp_path / "tests"
    for folder in ("play", "widgets", "league", "bots", "play/deeper"):
        (tests / folder).mkdir(parents=True)
    for init in ("play", "widgets"):
        (tests / init / "__init__.py").write_bytes(b"")
    for name in ("play/test_fine.py", "test_flat.py", "test_fuzz.py", "widgets/test_unknown_room.py",
                 "league/test_no_package.py", "play/deeper/test_too_deep.py", "bots/test_among_bots.py",
                 "play/helper.py"):
        (tests / name).write_text("def test_nothing():\n    pass\n")
    (tests / "sandbox").mkdir()
    (tests / "sandbox" / "__init__.py").write_text('"""not empty"""\n')

    problems = misplaced(tests, rooms(), frozenset({"test_fuzz.py"}))
    named = sorted(problem.split(":")[0] for problem in problems)

    assert named == [
        "bots/test_among_bots.py",
        "league/__init__.py",
        "play/deeper/test_too_deep.py",
        "sandbox/__init__.py",
        "test_flat.py",
        "widgets/",
        "widgets/test_unknown_room.py",
    ]
    # without the exception, the flat file of another change is named too
    assert "test_fuzz.py" in [p.split(":")[0] for p in misplaced(tests, rooms())]
