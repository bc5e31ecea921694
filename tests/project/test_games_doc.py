"""docs/games.md is enough to write a game: every public name of the game
contract (``protocols``) and of the JSON framing (``protocols.jsonlines``)
is described there."""

from __future__ import annotations

import ast
import re

import protocols

from ..conftest import ROOT

DOC = ROOT / "docs" / "games.md"


def _public_names(path) -> set[str]:
    """Names a module defines at its top level (not what it imports), but _private ones."""
    names = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return {n for n in names if not n.startswith("_")}


def _undescribed(names: set[str], text: str) -> list[str]:
    return sorted(n for n in names if not re.search(rf"\b{re.escape(n)}\b", text))


def test_every_public_name_of_the_contract_and_the_framing_is_in_the_doc():
    text = DOC.read_text()
    assert _undescribed(set(protocols.__all__), text) == []
    framing = _public_names(ROOT / "protocols" / "jsonlines.py") - {"R"}  # R: a type variable
    assert {"ask_all", "decode", "start_match"} <= framing
    assert _undescribed(framing, text) == []


def test_a_name_left_out_of_the_doc_is_reported():
    text = DOC.read_text().replace("series_position", "where it sits")
    assert _undescribed({"series_position", "ask_all"}, text) == ["series_position"]
