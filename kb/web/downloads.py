"""The downloads page and the files of the bulk export (made by `manage.py export_data`).

Views stay thin: kb.export.bulk lists and resolves the files; only names the export's
manifest lists are served (no path from the URL ever reaches the file system).
"""

from __future__ import annotations

import datetime as dt

from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from kb.export.bulk import download_path, downloads


def downloads_page(request: HttpRequest) -> HttpResponse:
    files, latest = downloads()
    releases = [f for f in files if f.name.startswith("releases/")]
    others = [f for f in files if not f.name.startswith("releases/")]
    return render(
        request,
        "kb/downloads.html",
        {
            "releases": list(reversed(releases)),
            "others": others,
            "latest": dt.date.fromisoformat(latest) if latest else None,
        },
    )


def download_file(request: HttpRequest, name: str) -> FileResponse:
    found = download_path(name)
    if found is None:
        raise Http404(name)
    path, content_type = found
    return FileResponse(
        path.open("rb"),
        as_attachment=content_type == "application/gzip",
        filename=path.name,
        content_type=content_type,
    )
