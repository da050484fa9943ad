"""The product's packages, named once for the checks that read the whole code base (import
layers, sizes, error codes): every top-level package of the repository but those that are
not the server (tests, benchmarks, examples). A new app is checked without being listed."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOT_THE_SERVER = frozenset({"tests", "bench", "examples"})


def product_packages(root: Path = ROOT) -> tuple[str, ...]:
    return tuple(
        sorted(
            path.parent.name
            for path in root.glob("*/__init__.py")
            if path.parent.name not in NOT_THE_SERVER
        )
    )
