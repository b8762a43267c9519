"""The JSON API: /api/v1/…, OpenAPI docs at /api/docs."""

from django.http import HttpRequest, HttpResponse
from ninja import NinjaAPI
from ninja.errors import ValidationError

from kb.api import router as kb_router
from kb.sitesearch.api import router as search_router
from rulings.api import router as rulings_router

api = NinjaAPI(
    title="MTG Comprehensive Rules knowledge base",
    version="1",
    description="Every release of the Comprehensive Rules, rules resolved in any release.",
    docs_url="/docs",
    openapi_url="/openapi.json",
    urls_namespace="api",
)


@api.exception_handler(ValidationError)
def bad_parameters(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    """Malformed parameters answer 400 with a readable message (not ninja's default 422)."""
    where = "; ".join(
        f"{'.'.join(str(p) for p in e.get('loc', []))}: {e.get('msg', '')}" for e in exc.errors
    )
    return api.create_response(request, {"detail": f"bad parameters: {where}"}, status=400)


api.add_router("/v1", kb_router)
api.add_router("/v1", rulings_router)
api.add_router("/v1", search_router)
