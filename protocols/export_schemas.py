"""Write the JSON Schema of every JSON-lines message to docs/protocols/schemas/.

Usage: python -m protocols.export_schemas [FOLDER]
Each JSON game's protocol module lists its pydantic models in ``MODELS``.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from .jsonlines import FRAMING_MODELS, export_schemas

JSON_GAMES = ("vonneumann", "twocarddraw", "rpsdraft", "holdem", "openspiel")
DEFAULT = Path(__file__).resolve().parent.parent / "docs" / "protocols" / "schemas"


def export_all(folder: Path = DEFAULT) -> list[Path]:
    written = export_schemas(FRAMING_MODELS, folder, "framing")
    for game in JSON_GAMES:
        module = importlib.import_module(f"protocols.{game}")
        written += export_schemas(module.MODELS, folder, game)
    return written


if __name__ == "__main__":
    if len(sys.argv) > 2 or (len(sys.argv) == 2 and sys.argv[1].startswith("-")):
        sys.exit(__doc__)
    for path in export_all(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT):
        print(path)
