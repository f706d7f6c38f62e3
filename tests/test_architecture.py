"""docs/architecture.md is true: its module table lists exactly the modules of the tree, and
the code keeps the import rules it states (no circle wider than two modules, imports inside
functions only for optional dependencies and lazy renderers)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"

# What an import inside a function may name: an optional dependency, or a renderer a value
# draws itself with (docs/architecture.md, "Modules, layer by layer").
LAZY_ALLOWED = {"matplotlib", "matplotlib.pyplot", "uvicorn", "fevga.report", "fevga.svg", "fevga.service.ubgi",
                "fevga.service.http"}
MAX_FUNCTION_IMPORTS = 15


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT / "src").with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _python_modules() -> dict[str, Path]:
    return {_module_name(p): p for p in (ROOT / "src" / "fevga").rglob("*.py") if "data" not in p.parts}


def _documented() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## Modules, layer by layer", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `([^`]+\.(?:py|pyx))` \|", section, re.MULTILINE)


def test_the_module_table_lists_exactly_the_modules_of_the_tree() -> None:
    documented = _documented()
    assert len(documented) == len(set(documented)), "a module is listed twice"
    python = {str(p.relative_to(ROOT)) for p in _python_modules().values()}
    core = {str(p.relative_to(ROOT)) for p in (ROOT / "fevga_core").glob("*.pyx")}
    assert set(documented) == python | core, (
        f"missing from docs/architecture.md: {sorted((python | core) - set(documented))}; "
        f"listed but not in the tree: {sorted(set(documented) - python - core)}")


def _imports(modules: dict[str, Path]) -> tuple[dict[str, set[str]], list[tuple[str, str, str]]]:
    """(every runtime import between the package's modules, the imports made inside functions);
    imports under ``if TYPE_CHECKING:`` are for the type checker only and do not count."""
    graph: dict[str, set[str]] = {name: set() for name in modules}
    inside: list[tuple[str, str, str]] = []

    def target(name: str, node: ast.ImportFrom | ast.Import) -> list[str]:
        if isinstance(node, ast.Import):
            return [a.name for a in node.names]
        base = node.module or ""
        if node.level:
            package = name.split(".")[: len(name.split(".")) - node.level + (modules[name].name == "__init__.py")]
            base = ".".join(package + ([base] if base else []))
        return [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]

    def visit(name: str, node: ast.AST, function: str | None) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            inner = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                for imported in target(name, child):
                    if function is not None:
                        inside.append((name, function, imported))
                    module = imported
                    while module and module not in modules:
                        module = module.rpartition(".")[0]
                    if module and module != name:
                        graph[name].add(module)
            visit(name, child, inner)

    for name, path in modules.items():
        visit(name, ast.parse(path.read_text(encoding="utf-8")), None)
    return graph, inside


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            connect(v)
    return found


def test_no_import_circle_is_wider_than_two_modules() -> None:
    graph, _ = _imports(_python_modules())
    wide = [c for c in _circles(graph) if len(c) > 2]
    assert not wide, f"import circles wider than two modules: {wide}"


def test_imports_inside_functions_are_only_optional_dependencies_and_renderers() -> None:
    _, inside = _imports(_python_modules())
    assert len(inside) <= MAX_FUNCTION_IMPORTS, f"{len(inside)} imports inside functions: {inside}"
    other = [i for i in inside if i[2] not in LAZY_ALLOWED]
    assert not other, f"imports inside functions that should be at the top of their module: {other}"


def test_the_checks_see_a_circle_and_a_lazy_import() -> None:
    """The helpers above find what they are meant to find (so the tests cannot pass vacuously)."""
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]
    graph, inside = _imports(_python_modules())
    assert "fevga.position" in graph["fevga.gioul"]
    assert ("fevga.position", "_repr_svg_", "fevga.svg") in inside
