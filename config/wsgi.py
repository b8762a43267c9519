"""WSGI entry point: gunicorn (`make serve`) and runserver.

Production settings unless told otherwise: an app server started without DJANGO_SETTINGS_MODULE
must not run with DEBUG and a development secret. manage.py (runserver, `make run`) sets the
development settings before this module is imported, so it keeps them.
"""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.prod")
application = get_wsgi_application()

from kb.sitesearch.service import start_warm_up  # noqa: E402 - needs Django set up

# A thread in this process: a server that imports the application and then forks its workers
# (gunicorn --preload) should set KB_SEARCH_WARM_UP=0, or workers inherit a half-warmed index.
start_warm_up()
