"""docs/architecture.md is held to the tree: it names every room (sub-package)
of arena/ and every module directly in arena/, every path it names under
arena/, protocols/, games/ or examples/ exists, and its drawing lists the
floors of the "rooms are layered" contract of pyproject.toml in the same
order. The ground floor (modules directly in arena/) holds at most 12
modules (issue 25). Each check is also run on a planted gap, which it must
report."""

from __future__ import annotations

import re
import shutil
import tomllib
from pathlib import Path

from ..conftest import ROOT

DOC = ROOT / "docs" / "architecture.md"
#: the most modules directly in arena/ (issue 25)
MOST_GROUND_MODULES = 12
#: top-level folders whose paths the page may name and that must exist
CHECKED = ("arena", "protocols", "games", "examples")


def rooms(arena: Path) -> list[str]:
    """Every sub-package of ``arena``, as ``play/`` (a nested one as ``a/b/``)."""
    return sorted(f"{p.parent.relative_to(arena).as_posix()}/" for p in arena.rglob("__init__.py")
                  if p.parent != arena)


def ground(arena: Path) -> list[str]:
    """Every module directly in ``arena``, as ``_faults.py``."""
    return sorted(p.name for p in arena.glob("*.py"))


def named(token: str, text: str) -> bool:
    """``token`` (``play/`` or ``_plan.py``) appears alone or right after ``arena/``,
    not as the tail of another path (``tournament/_plan.py`` does not name ``_plan.py``)."""
    tail = r"(?!\w)" if token.endswith(".py") else ""
    return re.search(rf"(?<![\w/.])(?:arena/)?{re.escape(token)}{tail}", text) is not None


def unnamed(arena: Path, text: str) -> list[str]:
    return [token for token in rooms(arena) + ground(arena) if not named(token, text)]


def dangling(root: Path, text: str) -> list[str]:
    """Paths the page names under the checked folders that do not exist in ``root``."""
    pattern = rf"(?<![\w/.])(?:{'|'.join(CHECKED)})/[\w./-]*"
    paths = {path.rstrip(".") for path in re.findall(pattern, text)}
    return sorted(path for path in paths if not (root / path).exists())


def diagram(text: str) -> list[str]:
    """The lines of the first ``text`` block under "## The rooms"."""
    section = text.split("\n## The rooms", 1)[1]
    return re.search(r"^```text\n(.*?)^```", section, re.S | re.M).group(1).splitlines()


def floors(root: Path) -> list[list[str]]:
    """The layers of the contract whose container is arena, top first, as tokens."""
    contracts = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    layered = next(c for c in contracts if c["type"] == "layers" and c.get("containers") == ["arena"])
    return [[f"{name}/" if (root / "arena" / name).is_dir() else f"{name}.py"
             for name in (part.strip() for part in re.split(r"[|:]", layer))]
            for layer in layered["layers"]]


def out_of_order(root: Path, text: str) -> list[str]:
    """What the drawing gets wrong about the floors: a member missing, a floor
    split over lines, or a floor drawn above one it sits below."""
    lines = diagram(text)
    wrong, last = [], -1
    for floor in floors(root):
        where = {token: next((i for i, line in enumerate(lines) if named(token, line)), None) for token in floor}
        if None in where.values() or len(set(where.values())) > 1:
            wrong.append(f"floor {' '.join(floor)} is not drawn on one line: {where}")
            continue
        at = where[floor[0]]
        if at <= last:
            wrong.append(f"floor {' '.join(floor)} is drawn above the floor before it in the contract")
        last = at
    return wrong


def test_the_page_names_every_room_and_ground_module():
    assert rooms(ROOT / "arena"), "no sub-package found: wrong root?"
    assert unnamed(ROOT / "arena", DOC.read_text()) == []


def test_every_path_the_page_names_exists():
    assert dangling(ROOT, DOC.read_text()) == []


def test_the_drawing_follows_the_layers_contract():
    assert out_of_order(ROOT, DOC.read_text()) == []


def test_the_ground_floor_holds_at_most_12_modules():
    modules = ground(ROOT / "arena")
    assert "_faults.py" in modules, "wrong root?"
    assert len(modules) <= MOST_GROUND_MODULES, modules


# --- each check catches a planted gap -----------------------------------------


def test_a_module_the_page_leaves_out_is_reported(tmp_path):
    text = DOC.read_text()
    assert "_seeds.py" in unnamed(ROOT / "arena", text.replace("_seeds.py", "seeds"))
    assert "sandbox/" in unnamed(ROOT / "arena", text.replace("sandbox/", "sandbox"))
    arena = tmp_path / "arena"
    shutil.copytree(ROOT / "arena", arena, ignore=shutil.ignore_patterns("__pycache__"))
    (arena / "_newcomer.py").write_text("")
    (arena / "attic").mkdir()
    (arena / "attic" / "__init__.py").write_text("")
    assert {"attic/", "_newcomer.py"} <= set(unnamed(arena, text))


def test_a_path_that_is_gone_is_reported():
    text = DOC.read_text() + "\nSee `arena/play/_gone.py` and arena/lost/, and games/kuhn3/_rules.py.\n"
    found = dangling(ROOT, text)
    assert {"arena/lost/", "arena/play/_gone.py"} <= set(found)
    assert "games/kuhn3/_rules.py" not in found


def test_a_floor_drawn_out_of_order_is_reported():
    text = DOC.read_text()
    lines = diagram(text)
    cluster = next(line for line in lines if named("cluster/", line))
    league = next(line for line in lines if named("league/", line))
    swapped = text.replace(cluster, "\0").replace(league, cluster).replace("\0", league)
    assert out_of_order(ROOT, swapped)
    split = text.replace("_spec.py : _faults.py", "_spec.py\n  _faults.py")
    assert out_of_order(ROOT, split)


def test_a_crowded_ground_floor_is_reported(tmp_path):
    for n in range(MOST_GROUND_MODULES + 1):
        (tmp_path / f"_m{n}.py").write_text("")
    assert len(ground(tmp_path)) > MOST_GROUND_MODULES
