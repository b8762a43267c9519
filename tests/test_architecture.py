"""The import rules (README: "Layout"), read from the source: dependencies point one way and no
module imports itself back through others.

Imports inside functions count too: a function-level import is how a cycle hides.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("config", "kb", "rulings", "search", "bench", "audit")


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


MODULES = _modules()

#: kb's rooms that serve people (pages and API, search, the admin) and run commands.
TOP_ROOMS = ("kb.web", "kb.sitesearch", "kb.admin", "kb.templatetags", "kb.management")
#: kb's rooms below them: the archive and its reads, which any of the above may use.
LOWER_ROOMS = (
    "kb.models", "kb.crtext", "kb.archive", "kb.selectors", "kb.french", "kb.export",
    "kb.history", "kb.diffing", "kb.documents", "kb.stamps", "kb.dbutil", "kb.signals",
    "kb.hooks", "kb.stats",
)  # fmt: skip


def _imported(module: str, path: Path) -> Iterator[tuple[str, int]]:
    """Every module `module` imports (absolute names), with the line."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            for alias in node.names:
                submodule = f"{target}.{alias.name}"
                yield (submodule if submodule in MODULES else target), node.lineno


def _project_edges() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {m: set() for m in MODULES}
    for module, path in MODULES.items():
        for target, _ in _imported(module, path):
            while target and target not in MODULES:  # `import kb.models.rules as r` etc.
                target = target.rpartition(".")[0]
            if target and target != module:
                edges[module].add(target)
    return edges


def _violations(source: str, forbidden: tuple[str, ...]) -> list[str]:
    out = []
    for module, path in MODULES.items():
        if module != source and not module.startswith(f"{source}."):
            continue
        for target, line in _imported(module, path):
            top = target.split(".")[0]
            if any(target == f or target.startswith(f"{f}.") for f in forbidden) or (
                top in forbidden
            ):
                out.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    return out


@pytest.mark.parametrize(
    ("source", "forbidden"),
    [
        ("search", ("kb", "rulings", "bench", "config")),  # the engine knows documents only
        ("kb", ("rulings", "bench")),  # rulings plugs into kb through registries and signals
        ("rulings", ("bench",)),
        ("kb.crtext", ("django", "search", "kb.models", "kb.archive", "rulings")),  # pure text
        ("config.languages", ("django",)),  # settings read it before Django is set up
        ("audit", ("kb", "rulings", "bench")),  # generic history and edit conflicts, any app's
        # kb's rooms: what serves HTTP (web, the site search), the admin, template tags and
        # commands sit on top; the rooms below never import them.
        *((room, TOP_ROOMS) for room in LOWER_ROOMS),
        ("kb.web", ("kb.admin", "kb.management")),
        ("kb.admin", ("kb.web", "kb.sitesearch", "kb.management")),
        (
            "kb.french",
            ("kb.selectors", "kb.history", "kb.archive"),
        ),  # French status is read by them
        ("kb.selectors", ("kb.archive", "kb.history", "kb.export")),
        ("kb.models", ("kb.archive", "kb.selectors", "kb.french", "kb.history", "kb.stamps")),
    ],
)
def test_dependencies_point_one_way(source: str, forbidden: tuple[str, ...]) -> None:
    assert _violations(source, forbidden) == []


def test_no_import_cycles() -> None:
    """Tarjan's strongly connected components of the module graph: each must be one module."""
    edges = _project_edges()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in edges[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    assert cycles == []


def test_the_scan_sees_what_it_checks() -> None:
    """The rules above would pass on an empty scan: the scan must find the known edges."""
    edges = _project_edges()
    assert len(MODULES) > 80
    assert "search.registry" in edges["search.indexing"]
    assert "search.backend" in edges["kb.sitesearch.service"]
    assert "kb.crtext.numbers" in MODULES


#: Names that repeat because each app has one of the same job: Django's conventions, and the
#: apps' own (documents: what an app indexes; rendering: its texts as HTML; sources: where
#: its imports read from; backend: the search interface and each implementation; limits: what
#: its imports accept).
SAME_JOB = {
    "__init__", "admin", "api", "apps", "models", "urls", "views", "signals", "translation",
    "management", "commands", "selectors", "hooks", "documents", "rendering", "sources",
    "backend", "limits", "templatetags",
}  # fmt: skip


def test_no_two_modules_share_a_name_for_different_jobs() -> None:
    """A name used twice for different jobs hides what each holds (models and selectors are
    named for their subject, and benchmarks for what they measure: all are exempt)."""
    seen: dict[str, list[str]] = {}
    for module in MODULES:
        name = module.rsplit(".", 1)[-1]
        if name in SAME_JOB or module.startswith("bench."):
            continue
        if ".models." in module or ".selectors." in module:
            continue
        seen.setdefault(name, []).append(module)
    assert {n: ms for n, ms in seen.items() if len(ms) > 1} == {}


def test_the_engine_migrations_depend_on_no_app() -> None:
    """The search app installs without kb or rulings: its migrations depend on neither."""
    found = []
    for path in sorted((ROOT / "search" / "migrations").glob("0*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "dependencies" for t in node.targets
            ):
                found += [(path.name, app) for app, _ in ast.literal_eval(node.value)]
    assert [f for f in found if f[1] in ("kb", "rulings")] == []
    assert (ROOT / "search" / "migrations" / "0001_initial.py").is_file()


@pytest.mark.django_db
def test_every_model_change_has_its_migration() -> None:
    """A field added to a model without its migration (or to a tracked model without the
    audit app's history migration) breaks `migrate` on a database made before it: the
    audit app's history of ruling links once lagged a new link kind this way."""
    from django.core.management import call_command

    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


#: Private names of other libraries that are imported on purpose, each with its reason.
FOREIGN_PRIVATE = {
    # The regex parser of the standard library: reading a pattern's required literals has no
    # public API (sre_parse is the same module, deprecated).
    ("rulings.linking.literals", "re"),
    # Whoosh's posting format is patched (docs/search.md: what switching engines costs).
    ("search.backends.whoosh.postings", "whoosh.codec.whoosh3"),
}


def _private_imports() -> list[str]:
    out = []
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if not isinstance(node, ast.ImportFrom):
                continue
            names = [a.name for a in node.names if a.name.startswith("_")]
            names = [n for n in names if not n.startswith("__")]
            if names and (module, node.module) not in FOREIGN_PRIVATE:
                out.append(
                    f"{path.relative_to(ROOT)}:{node.lineno} imports {names} from {node.module}"
                )
    return out


def test_no_module_imports_another_modules_private_names() -> None:
    """What two modules share is public in one of them: a private name imported elsewhere is
    a contract nobody sees (it breaks when its owner renames it)."""
    assert _private_imports() == []
