"""The JSON Schemas in docs/protocols/schemas match the pydantic models."""

from __future__ import annotations

import json

from protocols.export_schemas import DEFAULT, export_all


def test_committed_schemas_are_current(tmp_path):
    fresh = {p.name: p.read_text() for p in export_all(tmp_path)}
    committed = {p.name: p.read_text() for p in DEFAULT.glob("*.schema.json")}
    assert set(fresh) == set(committed), "run: python -m protocols.export_schemas"
    for name, text in fresh.items():
        assert committed[name] == text, f"{name} is stale: run python -m protocols.export_schemas"
        schema = json.loads(text)
        assert schema["type"] == "object" and "type" in schema["properties"]
