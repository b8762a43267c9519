"""The JSON API: /api/v1/…, OpenAPI docs at /api/docs."""

from typing import Any

from django.core.exceptions import BadRequest, PermissionDenied, SuspiciousOperation
from django.http import HttpRequest, HttpResponse
from django.http.multipartparser import MultiPartParserError
from ninja import NinjaAPI
from ninja.errors import ValidationError
from ninja.openapi.schema import OpenAPISchema

from kb.sitesearch.api import router as search_router
from kb.web import error_pages, page_cache
from kb.web.api import router as kb_router
from rulings.api import router as rulings_router

#: The JSON of every error answer (400, 404, 429): what went wrong, in words.
ERROR = {
    "title": "Error",
    "type": "object",
    "properties": {"detail": {"title": "Detail", "type": "string"}},
    "required": ["detail"],
}


class API(NinjaAPI):
    """The site's API: its OpenAPI schema documents the 400 that `bad_parameters` answers for
    any operation taking parameters (a malformed date or number, a `lang` outside the enum),
    with its JSON shape, beside the 404s the operations declare."""

    def get_openapi_schema(self, **kwargs: Any) -> OpenAPISchema:
        schema = super().get_openapi_schema(**kwargs)
        schema.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR
        for path in schema["paths"].values():
            for operation in path.values():
                # ninja keys the codes an operation declares by number (400), JSON by text:
                # both count, or the schema would hold "400" twice (Swagger UI then refuses it).
                declared = {str(code) for code in operation["responses"]}
                if operation.get("parameters") and "400" not in declared:
                    operation["responses"]["400"] = {
                        "description": "Bad Request: a malformed parameter",
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Error"}}
                        },
                    }
        return schema


api = API(
    title="MTG Comprehensive Rules knowledge base",
    version="1",
    description="Every release of the Comprehensive Rules, rules resolved in any release.",
    docs_url="/docs",
    openapi_url="/openapi.json",
    urls_namespace="api",
)
# The page cache keys an API answer on the query parameters the schema declares.
page_cache.declare_api(api.get_openapi_schema)


@api.exception_handler(ValidationError)
def bad_parameters(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    """Malformed parameters answer 400 with a readable message (not ninja's default 422)."""
    where = "; ".join(
        f"{'.'.join(str(p) for p in e.get('loc', []))}: {_message(e, request)}" for e in exc.errors
    )
    return api.create_response(request, {"detail": f"bad parameters: {where}"}, status=400)


@api.exception_handler(PermissionDenied)
@api.exception_handler(BadRequest)
@api.exception_handler(SuspiciousOperation)
@api.exception_handler(MultiPartParserError)
def client_error(request: HttpRequest, exc: Exception) -> HttpResponse:
    """A request Django refuses (too many parameters, a body too large) or a permission denied
    answers 400 or 403 JSON, DEBUG or not: ninja's catch-all answers 500 under DEBUG."""
    if isinstance(exc, PermissionDenied):
        return error_pages.forbidden(request, exc)
    return error_pages.bad_request(request, exc)


def _message(error: dict[str, Any], request: HttpRequest) -> str:
    """Pydantic's message, or for a value outside an enum one naming what was given."""
    loc = tuple(error.get("loc", ()))
    if error.get("type") == "enum":
        given = error.get("input", request.GET.get(str(loc[-1])) if loc[:1] == ("query",) else "")
        what = "language" if loc[-1:] == ("lang",) else "value"
        return f"unknown {what} {given!r}: use {error.get('ctx', {}).get('expected', '')}"
    return error.get("msg", "")


api.add_router("/v1", kb_router)
api.add_router("/v1", rulings_router)
api.add_router("/v1", search_router)
