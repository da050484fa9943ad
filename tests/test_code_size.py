"""Rooms a newcomer can read: no product module over 400 lines, no function over 60.

Every module of the product's packages is read with `ast` (migrations aside: Django writes
them). A function's length runs from its first decorator to its last line, nested functions
included. A module or function over the limit fails the test with its place and length, so
whoever reads it knows what to split (along meaning: the limits are a smell, not a design).
"""

import ast
from pathlib import Path

from tests.layout import product_packages

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = product_packages()
MODULE_LINES = 400
FUNCTION_LINES = 60


def product_modules(root: Path, packages: tuple[str, ...]) -> list[Path]:
    return [
        path
        for package in packages
        for path in sorted((root / package).rglob("*.py"))
        if "migrations" not in path.relative_to(root).parts
    ]


def oversized(root: Path, packages: tuple[str, ...]) -> list[str]:
    """Each module over MODULE_LINES and each function over FUNCTION_LINES, with its length."""
    found = []
    for path in product_modules(root, packages):
        text = path.read_text()
        where = path.relative_to(root)
        lines = len(text.splitlines())
        if lines > MODULE_LINES:
            found.append(f"{where}: {lines} lines")
        for node in ast.walk(ast.parse(text, filename=str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                length = (node.end_lineno or node.lineno) - start + 1
                if length > FUNCTION_LINES:
                    found.append(f"{where}:{node.lineno} {node.name}(): {length} lines")
    return found


def test_no_product_module_or_function_is_over_the_limit():
    assert oversized(ROOT, PACKAGES) == []


def test_a_long_module_and_a_long_function_are_named(tmp_path):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    body = "".join(f"    x{i} = {i}\n" for i in range(FUNCTION_LINES))
    (tmp_path / "app" / "long.py").write_text(f"@staticmethod\ndef long():\n{body}")
    (tmp_path / "app" / "short.py").write_text("def short():\n    return 1\n")
    (tmp_path / "app" / "big.py").write_text("x = 1\n" * (MODULE_LINES + 1))
    (tmp_path / "app" / "migrations").mkdir()
    (tmp_path / "app" / "migrations" / "0001.py").write_text("x = 1\n" * (MODULE_LINES + 1))
    assert oversized(tmp_path, ("app",)) == [
        f"app/big.py: {MODULE_LINES + 1} lines",
        f"app/long.py:2 long(): {FUNCTION_LINES + 2} lines",
    ]
