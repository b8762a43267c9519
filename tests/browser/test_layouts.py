"""Every page type fits its screen: at 375 px (a phone) and 1280 px (a laptop), in English
and French, nothing pushes the page sideways, and at 1280 px no table is clipped into a
scrolling box (issue 35: the releases table at 1280, the glossary, search help and downloads
pages at 375)."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

#: One page of each type (the longest of its kind where it matters: the far diff, a chapter
#: of 1,250 entries, a glossary of 700 terms).
PAGES = (
    "/{l}/",
    "/{l}/releases/",
    "/{l}/current/rules/",
    "/{l}/rules/7/",
    "/{l}/rules/702/",
    "/{l}/rules/702.19c/",
    "/{l}/rules/602.2a/history/",
    "/{l}/diff/2026-06-19..2026-08-07/",
    "/{l}/diff/2010-02-01..2026-08-07/",
    "/{l}/current/glossary/",
    "/{l}/current/glossary/trample/",
    "/{l}/glossary/trample/history/",
    "/{l}/search/?q=trample",
    "/{l}/search/help/",
    "/{l}/downloads/",
    "/{l}/cards/",
    "/{l}/cards/lightning-bolt/",
    "/{l}/translation/",
    "/{l}/2026-08-07/anomalies/",
)

#: How far the page reaches past the screen's right edge, and the scrolling boxes (tables'
#: wrappers) whose content is wider than they are.
MEASURE = """() => {
  const d = document.documentElement;
  const clipped = [...document.querySelectorAll('.table-wrap')]
    .filter(e => e.scrollWidth > e.clientWidth + 1)
    .map(e => e.className + ' ' + e.scrollWidth + '>' + e.clientWidth);
  const past = [...document.querySelectorAll('main *')]
    .filter(e => e.getBoundingClientRect().right > d.clientWidth + 1)
    .slice(0, 3).map(e => e.tagName + '.' + e.className);
  return [d.scrollWidth - d.clientWidth, clipped, past];
}"""


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("width", [375, 1280])
def test_every_page_type_fits_the_screen(browser, server_url, width: int, lang: str) -> None:
    context = browser.new_context(viewport={"width": width, "height": 800})
    page = context.new_page()
    problems = []
    try:
        for template in PAGES:
            path = template.format(l=lang)
            response = page.goto(server_url + path)
            assert response is not None and response.status == 200, path
            overflow, clipped, past = page.evaluate(MEASURE)
            if overflow > 0:
                problems.append(f"{path}: {overflow} px past the right edge ({past})")
            if width >= 1280 and clipped:
                problems.append(f"{path}: clipped {clipped}")
    finally:
        context.close()
    assert problems == []


def test_the_worklist_s_release_selector_is_styled_and_fits(browser, server_url) -> None:
    context = browser.new_context(viewport={"width": 375, "height": 800})
    page = context.new_page()
    try:
        page.goto(server_url + "/en/translation/")
        select = page.locator("#worklist-release")
        style = select.evaluate(
            "e => [getComputedStyle(e).borderRadius, e.getBoundingClientRect().right]"
        )
        assert style[0] == "6px" and style[1] <= 375
    finally:
        context.close()
