"""WSGI entry point (runserver uses it too)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
application = get_wsgi_application()

from kb.sitesearch.service import start_warm_up  # noqa: E402 - needs Django set up

# A thread in this process: a server that imports the application and then forks its workers
# (gunicorn --preload) should set KB_SEARCH_WARM_UP=0, or workers inherit a half-warmed index.
start_warm_up()
