"""No import cycles between our modules.

Every module of the product (tests.layout) is read with `ast` (nothing is imported);
an import anywhere in a module counts, at module level or inside a function, except under
`if TYPE_CHECKING:`. `from pkg import name` is an edge to `pkg.name` when that is a module,
else to `pkg`. A cycle fails the test with the modules in import order, `a -> b -> a`, so
whoever reads it sees which import to cut.
"""

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

from tests.layout import product_packages

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = product_packages()

ImportGraph = dict[str, set[str]]


def module_files(root: Path, packages: tuple[str, ...]) -> dict[str, Path]:
    """Every module of `packages` under `root`, by dotted name (a package by its __init__)."""
    modules = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join(parts)] = path
    return modules


def is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def runtime_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """The import statements that run at some point: all but those under TYPE_CHECKING."""
    found: list[ast.Import | ast.ImportFrom] = []
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif isinstance(node, ast.If) and is_type_checking(node.test):
            pending.extend(node.orelse)
        else:
            pending.extend(ast.iter_child_nodes(node))
    return found


def imported_module(name: str, node: ast.ImportFrom, is_package: bool) -> str:
    """The absolute module a `from ... import` names, resolving leading dots."""
    if not node.level:
        return node.module or ""
    base = name.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def import_graph(root: Path, packages: tuple[str, ...]) -> ImportGraph:
    """Each of our modules and the modules of ours it imports."""
    modules = module_files(root, packages)
    graph: ImportGraph = {name: set() for name in modules}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        for node in runtime_imports(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                source = imported_module(name, node, is_package)
                targets = [
                    f"{source}.{alias.name}" if f"{source}.{alias.name}" in modules else source
                    for alias in node.names
                ]
            graph[name].update(t for t in targets if t in modules and t != name)
    return graph


def find_cycle(graph: ImportGraph) -> list[str] | None:
    """One import cycle as `[a, b, ..., a]`, each module importing the next; None if none."""
    try:
        TopologicalSorter(graph).prepare()
    except CycleError as error:
        # graphlib lists each node before the one that depends on it, i.e. is imported by it.
        return list(reversed(error.args[1]))
    return None


def test_our_modules_import_each_other_without_cycles():
    cycle = find_cycle(import_graph(ROOT, PACKAGES))
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_a_cycle_between_two_modules_is_found_and_named(tmp_path):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "a.py").write_text("from app import b\n")
    (tmp_path / "app" / "b.py").write_text("def late():\n    from app.a import thing\n")
    cycle = find_cycle(import_graph(tmp_path, ("app",)))
    assert cycle is not None
    assert " -> ".join(cycle) in ("app.a -> app.b -> app.a", "app.b -> app.a -> app.b")


def test_imports_for_type_checking_only_are_not_a_cycle(tmp_path):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "a.py").write_text("from app.b import B\n")
    (tmp_path / "app" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from app.a import A\nB = 1\n"
    )
    graph = import_graph(tmp_path, ("app",))
    assert graph == {"app": set(), "app.a": {"app.b"}, "app.b": set()}
    assert find_cycle(graph) is None


def test_a_cycle_reads_in_import_order():
    cycle = find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}})
    assert cycle is not None
    start = cycle.index("a")
    assert cycle[start:] + cycle[1 : start + 1] == ["a", "b", "c", "a"]


# The layers, lowest first: a module imports only from its own layer or those below.
# language (understanding text) is below every app: they call it, it calls none of them.
# tenancy is the floor of the apps. memory never imports facts: what facts does with memories
# goes through memory's signals and registries (memory.signals, memory.learned,
# memory.policy_extensions, memory.quotas.count_in_quotas). knowledge reads memory and facts
# together (a person, a turn's context, the one search box). dewee, the project shell,
# assembles them all (URLs, the API, the CLI, the MCP server).
LAYERS = {
    "language": 0,
    "tenancy": 1,
    "privacy": 2,
    "memory": 2,
    "facts": 3,
    "knowledge": 4,
    "dewee": 5,
}
# What the shell offers every app's interfaces (the one error shape, API auth and schemas,
# paging and the lists' orders, the dashboard's shared view helpers and forms, exports,
# times, metrics, logs, the migration operations): modules the apps may import though dewee
# is above them.
SHELL_SHARED = (
    "dewee.errors",
    "dewee.api_auth",
    "dewee.schemas",
    "dewee.pagination",
    "dewee.sorting",
    "dewee.dashboard",
    "dewee.forms",
    "dewee.export",
    "dewee.timeparse",
    "dewee.metrics",
    "dewee.logs",
    "dewee.migration_ops",
)
# One step up, named: tenancy's admin edits an agent's memory policy through memory's service.
ALLOWED_UPWARD = {
    "tenancy.admin": {"memory.exceptions", "memory.services.policy"},
}
# Within the layers, reads only: facts reads memory's models and queries, never its writes.
FORBIDDEN = {
    "facts": ("memory.services",),
}


def _under(target: str, prefixes: tuple[str, ...]) -> bool:
    return any(target == p or target.startswith(p + ".") for p in prefixes)


def _allowed(module: str, target: str) -> bool:
    app, target_app = module.split(".")[0], target.split(".")[0]
    if target in ALLOWED_UPWARD.get(module, set()):
        return True
    if _under(target, FORBIDDEN.get(app, ())):
        return False
    if app != "language" and _under(target, SHELL_SHARED):
        return True
    return LAYERS[target_app] <= LAYERS[app]


def layering_breaches(graph: ImportGraph) -> list[str]:
    return [
        f"{module} -> {target}"
        for module, targets in graph.items()
        for target in sorted(targets)
        if not _allowed(module, target)
    ]


def test_every_package_has_its_layer():
    assert set(LAYERS) == set(PACKAGES)


def test_apps_import_only_downwards():
    assert layering_breaches(import_graph(ROOT, PACKAGES)) == []


def test_an_upward_import_is_a_breach():
    graph = {
        "tenancy.models": {"memory.models", "dewee.errors"},
        "memory.recall": {"facts.services.erasure", "tenancy.models"},
        "memory.views": {"facts", "dewee.dashboard"},
        "memory.cli": {"dewee.cli.progress"},
        "facts.queries": {"knowledge.people", "memory.models"},
        "facts.views": {"memory.services.storing"},
        "language.parse": {"dewee.errors"},
    }
    assert layering_breaches(graph) == [
        "tenancy.models -> memory.models",
        "memory.recall -> facts.services.erasure",
        "memory.views -> facts",
        "memory.cli -> dewee.cli.progress",
        "facts.queries -> knowledge.people",
        "facts.views -> memory.services.storing",
        "language.parse -> dewee.errors",
    ]
