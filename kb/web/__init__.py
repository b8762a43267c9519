"""What the site serves over HTTP: pages, the JSON API, feeds, downloads, error pages, the HTTP
and page caches, and the HTML rendering of rule texts.

Web imports the archive, selectors and French packages below it; nothing below imports web
(tests/test_architecture.py).
"""
