"""Write builder/schemas/pack-artifact.schema.json from the PackArtifact's types (builder.research.schema).

Usage: `python -m scripts.artifact_schema` after a change to the artifact's types; `--check` writes nothing and
exits 1 when the file differs from what the types generate (tests/test_artifact_schema.py checks the same).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from builder.research.schema import SCHEMA_FILE, schema_file_text

TARGET = Path(__file__).resolve().parents[1] / "builder" / "schemas" / SCHEMA_FILE


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    args = parser.parse_args(argv)
    text = schema_file_text()
    if args.check:
        same = TARGET.read_text(encoding="utf-8") == text
        print(
            f"{TARGET.name}: {'as generated' if same else 'differs from the types: python -m scripts.artifact_schema'}"
        )
        return 0 if same else 1
    TARGET.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
