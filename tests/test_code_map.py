"""The README's code map names every top-level package of the repository, so that whoever
reads it finds where a change goes; a new package that is not in it fails here."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def code_map(readme: str) -> str:
    """The text block under "How the code is laid out"."""
    section = readme.split("## How the code is laid out", 1)[1]
    return section.split("```text", 1)[1].split("```", 1)[0]


def mapped_names(block: str) -> set[str]:
    """The top-level names the map lists: each line that starts with "name/"."""
    return {match.group(1) for match in re.finditer(r"^([\w.-]+)/", block, re.MULTILINE)}


def packages(root: Path) -> set[str]:
    return {path.parent.name for path in root.glob("*/__init__.py")}


def test_every_top_level_package_is_in_the_code_map():
    listed = mapped_names(code_map((ROOT / "README.md").read_text()))
    assert packages(ROOT) - listed == set()


def test_a_package_missing_from_the_map_is_found(tmp_path):
    (tmp_path / "listed").mkdir()
    (tmp_path / "listed" / "__init__.py").write_text("")
    (tmp_path / "newcomer").mkdir()
    (tmp_path / "newcomer" / "__init__.py").write_text("")
    (tmp_path / "notes").mkdir()  # not a package
    block = code_map("## How the code is laid out\n\n```text\nlisted/   what it owns\n```\n")
    assert packages(tmp_path) - mapped_names(block) == {"newcomer"}
