"""The PostgreSQL backend's own tests need a PostgreSQL database: collected in `make test`'s
PostgreSQL pass only (the contract, tests/search/test_contract.py, picks its backends itself)."""

from django.db import connection

collect_ignore = (
    []
    if connection.vendor == "postgresql"
    else ["test_postgres_search.py", "test_postgres_backend.py"]
)
