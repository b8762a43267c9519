"""What a browser would submit from a page's form: every input, textarea and select of the form
with a given id, as rendered (hidden stamps and hidden initial values included). Tests then
post exactly what a maintainer's page held, with their change on top."""

from __future__ import annotations

from html import unescape
from html.parser import HTMLParser

from django.test import Client


class _FormReader(HTMLParser):
    def __init__(self, form_id: str) -> None:
        super().__init__(convert_charrefs=True)
        self.form_id = form_id
        self.depth = 0  # >0 inside the wanted form
        self.data: dict[str, list[str]] = {}
        self._textarea: str | None = None
        self._select: str | None = None
        self._option: dict[str, str | None] | None = None
        self._selected: dict[str, str] = {}
        self._first_option: dict[str, str] = {}
        self._text: list[str] = []

    def _add(self, name: str, value: str) -> None:
        self.data.setdefault(name, []).append(value)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "form":
            if self.depth or a.get("id") == self.form_id:
                self.depth += 1
            return
        if not self.depth:
            return
        name = a.get("name")
        if tag == "input" and name and "disabled" not in a:
            kind = (a.get("type") or "text").lower()
            if kind in ("checkbox", "radio"):
                if "checked" in a:
                    self._add(name, a.get("value") or "on")
            elif kind not in ("submit", "button", "file", "image", "reset"):
                self._add(name, a.get("value") or "")
        elif tag == "textarea" and name:
            self._textarea, self._text = name, []
        elif tag == "select" and name:
            self._select = name
        elif tag == "option" and self._select:
            value = a.get("value")
            self._option = {"value": value, "selected": "selected" if "selected" in a else None}
            self._text = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "form" and self.depth:
            self.depth -= 1
        elif tag == "textarea" and self._textarea:
            text = "".join(self._text)
            self._add(self._textarea, text[1:] if text.startswith("\n") else text)
            self._textarea = None
        elif tag == "option" and self._option is not None and self._select:
            value = self._option["value"]
            value = "".join(self._text).strip() if value is None else value
            self._first_option.setdefault(self._select, value)
            if self._option["selected"]:
                self._selected[self._select] = value
            self._option = None
        elif tag == "select" and self._select:
            name = self._select
            self._add(name, self._selected.get(name, self._first_option.get(name, "")))
            self._select = None

    def handle_data(self, data: str) -> None:
        if self._textarea is not None or self._option is not None:
            self._text.append(data)


def form_values(html: str, form_id: str) -> dict[str, str | list[str]]:
    """The submitted values of the form `form_id` (one value per name, a list where a name
    repeats)."""
    reader = _FormReader(form_id)
    reader.feed(html)
    assert reader.data, f"no form #{form_id} on the page"
    return {k: v[0] if len(v) == 1 else v for k, v in reader.data.items()}


def post_refused(client: Client, url: str, form_id: str, changes: dict, message: str) -> str:
    """Post the form `form_id` as the page at `url` shows it, with `changes` on top: the page
    comes back (no redirect, no 500) with `message` and a field's error list. Returns the page,
    unescaped (the admins' refusal tests: nothing past an import's limits is saved)."""
    data = form_values(client.get(url).content.decode(), form_id)
    response = client.post(url, {**data, **changes})
    html = unescape(response.content.decode())
    assert response.status_code == 200, html[:2000]
    assert message in html
    assert 'class="errorlist' in html
    return html
