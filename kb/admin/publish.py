"""Publishing a release from the Release admin: upload the official file, preview, confirm.

Why these pages: maintainers publish a new Comprehensive Rules text when Wizards releases it,
and should not need a shell for it. The pages are thin: `kb.archive.publishing` runs the same
import as `import_rules` (a rolled-back one for the preview).

The uploaded file waits for its confirmation in a private folder (settings.KB_PUBLISH_DIR,
default VAR_DIR/publish), named by a random id. The confirmation form carries only a signed
token (django.core.signing, with a max age) naming that id and the uploader: the file, its
name and the preview are never read back from the form. Cancelling deletes the stored upload:
no release, no import record, no admin log entry is left.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from pathlib import Path
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.core import signing
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from kb.archive.publishing import (
    MAX_UPLOAD_BYTES,
    PublishError,
    ReleasePreview,
    confirms,
    preview_release,
    publish_release,
)
from kb.models import Release

SALT = "kb.admin.publish"
#: How long an upload waits for its confirmation (seconds).
MAX_AGE = 2 * 60 * 60
_ID_RE = re.compile(r"^[0-9a-f]{32}$")


def upload_dir() -> Path:
    folder = Path(getattr(settings, "KB_PUBLISH_DIR", Path(settings.VAR_DIR) / "publish"))
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return folder


class UploadForm(forms.Form):
    file = forms.FileField(
        label=gettext_lazy("Official file"),
        help_text=gettext_lazy(
            "The English Comprehensive Rules as a .txt file (any line ends: CRLF, LF or CR)."
        ),
    )
    set_name = forms.CharField(
        label=gettext_lazy("Set name"),
        max_length=200,
        required=False,
        help_text=gettext_lazy("The set the release comes with, if known."),
    )
    set_code = forms.CharField(label=gettext_lazy("Set code"), max_length=12, required=False)

    def clean_file(self) -> Any:
        upload = self.cleaned_data["file"]
        if not upload.name.lower().endswith(".txt"):
            raise forms.ValidationError(_("Upload the official text file (.txt)."))
        if upload.size > MAX_UPLOAD_BYTES:
            raise forms.ValidationError(
                _("The file is larger than %(mb)d MB: not a rules document.")
                % {"mb": MAX_UPLOAD_BYTES // (1024 * 1024)}
            )
        return upload


class ConfirmForm(forms.Form):
    token = forms.CharField(widget=forms.HiddenInput)
    typed = forms.CharField(
        label=gettext_lazy("Type the set name (or the effective date) to confirm"),
        required=False,
        max_length=200,
    )


# -- the stored upload ----------------------------------------------------------------------


class Stored:
    """An upload waiting for its confirmation: the file and its preview, by id."""

    def __init__(self, upload_id: str) -> None:
        if not _ID_RE.match(upload_id):
            raise signing.BadSignature("bad upload id")
        self.id = upload_id
        self.file = upload_dir() / f"{upload_id}.txt"
        self.meta = upload_dir() / f"{upload_id}.json"

    @classmethod
    def create(cls, data: bytes, preview: ReleasePreview, user_id: Any) -> Stored:
        _sweep()
        stored = cls(uuid.uuid4().hex)
        stored.file.touch(mode=0o600)
        stored.file.write_bytes(data)
        stored.meta.write_text(
            json.dumps({"user": user_id, "preview": preview.to_json()}), encoding="utf-8"
        )
        return stored

    def token(self, user_id: Any) -> str:
        return signing.dumps({"id": self.id, "user": user_id}, salt=SALT)

    @classmethod
    def from_token(cls, token: str, user_id: Any) -> Stored:
        """The upload a token names, if the token is genuine, recent and this user's."""
        found = signing.loads(token, salt=SALT, max_age=MAX_AGE)
        if not isinstance(found, dict) or found.get("user") != user_id:
            raise signing.BadSignature("not this user's upload")
        stored = cls(str(found.get("id", "")))
        if not (stored.file.is_file() and stored.meta.is_file()):
            raise signing.BadSignature("the upload is gone")
        return stored

    def preview(self) -> ReleasePreview:
        return ReleasePreview.from_json(json.loads(self.meta.read_text("utf-8"))["preview"])

    def delete(self) -> None:
        for p in (self.file, self.meta):
            p.unlink(missing_ok=True)


def _sweep() -> None:
    """Uploads nobody confirmed or cancelled go once their token has expired."""
    limit = time.time() - MAX_AGE
    for p in upload_dir().glob("*.*"):
        try:
            if p.stat().st_mtime < limit:
                p.unlink(missing_ok=True)
        except OSError:
            continue


# -- the views (a mixin for ReleaseAdmin) -----------------------------------------------------


def can_publish(request: HttpRequest) -> bool:
    return request.user.has_perm("kb.add_release") or request.user.has_perm("kb.change_release")


def _check(request: HttpRequest, preview: ReleasePreview) -> None:
    """A new release needs kb.add_release, a replacement kb.change_release."""
    needed = "kb.change_release" if preview.replaces else "kb.add_release"
    if not request.user.has_perm(needed):
        raise PermissionDenied


class PublishAdminMixin:
    """Adds "Publish a release" (upload, preview, confirm) to a ModelAdmin of Release."""

    def get_urls(self) -> list:
        view = self.admin_site.admin_view
        return [
            path("publish/", view(self.publish_view), name="kb_release_publish"),
            path(
                "publish/confirm/",
                view(self.publish_confirm_view),
                name="kb_release_publish_confirm",
            ),
            *super().get_urls(),
        ]

    def changelist_view(self, request: HttpRequest, extra_context: dict | None = None):
        extra_context = {**(extra_context or {}), "can_publish": can_publish(request)}
        return super().changelist_view(request, extra_context)

    def _page(self, request: HttpRequest, template: str, **context: Any) -> TemplateResponse:
        return TemplateResponse(
            request,
            f"admin/kb/release/{template}",
            {
                **self.admin_site.each_context(request),
                "opts": Release._meta,
                "title": _("Publish a release"),
                **context,
            },
        )

    def publish_view(self, request: HttpRequest) -> HttpResponse:
        """Upload form; on a valid upload, the preview (the real import, rolled back)."""
        if not can_publish(request):
            raise PermissionDenied
        form = UploadForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            upload = form.cleaned_data["file"]
            data = b"".join(upload.chunks())
            try:
                preview = preview_release(
                    data=data,
                    source=Path(upload.name).name,
                    set_name=form.cleaned_data["set_name"].strip(),
                    set_code=form.cleaned_data["set_code"].strip(),
                    user=request.user.get_username(),
                )
            except PublishError as exc:
                form.add_error("file", str(exc))
            else:
                if preview.unchanged:
                    form.add_error(
                        "file",
                        _(
                            "The release effective %(date)s is already loaded with this very "
                            "text: there is nothing to publish."
                        )
                        % {"date": preview.effective_date.isoformat()},
                    )
                else:
                    _check(request, preview)
                    stored = Stored.create(data, preview, request.user.pk)
                    confirm = ConfirmForm(initial={"token": stored.token(request.user.pk)})
                    return self._preview_page(request, preview, confirm)
        return self._page(request, "publish_upload.html", form=form)

    def _preview_page(
        self, request: HttpRequest, preview: ReleasePreview, confirm: ConfirmForm, **extra: Any
    ) -> TemplateResponse:
        existing = Release.objects.filter(effective_date=preview.effective_date).first()
        return self._page(
            request,
            "publish_preview.html",
            preview=preview,
            summary=preview.summary(),
            confirm=confirm,
            existing=existing,
            **extra,
        )

    def publish_confirm_view(self, request: HttpRequest) -> HttpResponse:
        """Publish (or cancel) the upload a signed token names."""
        if request.method != "POST":
            return HttpResponseRedirect(reverse("admin:kb_release_publish"))
        if not can_publish(request):
            raise PermissionDenied
        form = ConfirmForm(request.POST)
        try:
            if not form.is_valid():
                raise signing.BadSignature("no token")
            stored = Stored.from_token(form.cleaned_data["token"], request.user.pk)
        except signing.BadSignature:
            messages.error(
                request,
                _("This upload has expired or is unknown: upload the file again."),
            )
            return HttpResponseRedirect(reverse("admin:kb_release_publish"))
        preview = stored.preview()
        action = request.POST.get("action", "publish")
        if action == "cancel":
            stored.delete()
            messages.info(request, _("Publishing cancelled: nothing was changed."))
            return HttpResponseRedirect(reverse("admin:kb_release_changelist"))
        _check(request, preview)
        if not confirms(form.cleaned_data["typed"], preview):
            form.add_error(
                "typed",
                _("Type “%(name)s” to publish this release.") % {"name": preview.confirmation},
            )
            return self._preview_page(request, preview, form)
        force = action == "force" and preview.replaces
        try:
            result = publish_release(
                path=stored.file,
                source=preview.source,
                set_name=preview.set_name,
                set_code=preview.set_code,
                user=request.user.get_username(),
                replace=preview.replaces,
                force=force,
            )
        except PublishError as exc:
            form.add_error(None, str(exc))
            return self._preview_page(request, preview, form, refused=True)
        stored.delete()
        release = Release.objects.get(effective_date=result.effective_date)
        if result.action == "created":
            self.log_addition(request, release, [{"added": {}}])
        elif result.action == "replaced":
            self.log_change(request, release, [{"changed": {"fields": ["text"]}}])
        messages.success(
            request,
            _("Published the release effective %(date)s (%(action)s, %(rules)s rules).")
            % {
                "date": result.effective_date.isoformat(),
                "action": _(result.action),
                "rules": result.counts.get("rules", 0),
            },
        )
        return HttpResponseRedirect(reverse("admin:kb_release_changelist"))
