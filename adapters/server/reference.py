"""docs/rest.md's tables, generated from the app itself: the routes from its OpenAPI schema and
the error codes from :data:`~hlmem.adapters.server.errors.ERROR_TABLE` (a test keeps the page
equal to them; ``python -m hlmem.adapters.server.reference`` prints them)."""

from __future__ import annotations

from typing import Any

from hlmem.adapters.server.errors import APP_CODES, ERROR_TABLE

_METHODS = ("get", "post", "put", "patch", "delete")


def route_rows(schema: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(method, path, tag, summary) of every operation in an OpenAPI ``schema``, in path order."""
    rows = []
    for path, item in schema["paths"].items():
        for method in _METHODS:
            op = item.get(method)
            if op is not None:
                rows.append((method.upper(), path, ", ".join(op.get("tags", [])), op.get("summary", "")))
    return rows


def route_table(schema: dict[str, Any]) -> str:
    """The route table of docs/rest.md (Markdown)."""
    lines = ["| method | path | area | what |", "| --- | --- | --- | --- |"]
    lines += [f"| {m} | `{p}` | {t} | {s} |" for m, p, t, s in route_rows(schema)]
    return "\n".join(lines)


def error_table() -> str:
    """The error-code table of docs/rest.md (Markdown): hlmem errors, then the app's own codes."""
    lines = ["| status | code | raised for |", "| --- | --- | --- |"]
    lines += [f"| {status} | `{code}` | `{cls.__name__}` |" for cls, (status, code) in ERROR_TABLE.items()]
    lines += [f"| {status} | `{code}` | {what} |" for code, (status, what) in APP_CODES.items()]
    return "\n".join(lines)


def openapi_schema() -> dict[str, Any]:
    """The schema of an app over an in-process store (routes do not depend on the store)."""
    from hlmem import Memory
    from hlmem.adapters.server.app import create_app

    with Memory(":memory:", embedder="none") as mem:
        return create_app(mem).state_app.openapi()


if __name__ == "__main__":
    print(route_table(openapi_schema()))
    print()
    print(error_table())
