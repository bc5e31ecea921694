"""docs/api.md documents every name the ``arena`` package exports: each one
has a row of its own in the page's Reference tables, so a name added to
``arena.__all__`` without a word fails here."""

from __future__ import annotations

import re

import arena

from ..conftest import ROOT


def reference_rows(text: str) -> set[str]:
    """The names that start a row of a table in the Reference section."""
    section = text.split("\n## Reference\n", 1)
    assert len(section) == 2, "docs/api.md has no '## Reference' section"
    body = section[1].split("\n## ", 1)[0]
    return {m.group(1) for m in re.finditer(r"^\| `([A-Za-z_]+)[(`]", body, re.M)}


def test_every_public_name_has_a_reference_row():
    rows = reference_rows((ROOT / "docs" / "api.md").read_text())
    missing = sorted(set(arena.__all__) - rows)
    assert not missing, f"docs/api.md's Reference has no row for {missing}"
    stale = sorted(rows - set(arena.__all__))
    assert not stale, f"docs/api.md's Reference documents names arena does not export: {stale}"


def test_a_missing_row_is_caught():
    text = (ROOT / "docs" / "api.md").read_text()
    without = re.sub(r"^\| `LineBuffer\(.*\n", "", text, flags=re.M)
    assert without != text
    assert "LineBuffer" not in reference_rows(without)
