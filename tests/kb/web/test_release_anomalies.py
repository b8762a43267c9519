"""The releases table explains its Anomalies column and links each count to its list, on the
real archive (issue 15)."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from kb.models import Anomaly

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


@pytest.fixture
def client(archive) -> Client:
    return Client()


def test_each_anomaly_count_links_to_its_list(client: Client) -> None:
    html = client.get("/en/releases/").content.decode()
    assert "Anomalies are defects of the official document" in html
    links = re.findall(r'href="/en/([\d-]+)/anomalies/">(\d+)</a>', html)
    assert links, "no anomaly count is linked"
    for date, count in links:
        assert int(count) == Anomaly.objects.filter(release__effective_date=date).count()
    listed = client.get(f"/en/{links[0][0]}/anomalies/").content.decode()
    assert listed.count('<tr><td class="n">') == int(links[0][1])
    # A release without anomalies shows 0, not a link.
    clean = {str(d) for d in Anomaly.objects.values_list("release__effective_date", flat=True)}
    assert len(links) == len(clean)


def test_a_dangling_reference_says_what_it_is_and_where(client: Client) -> None:
    anomaly = Anomaly.objects.filter(kind="dangling_reference").order_by("id").first()
    date = anomaly.release.effective_date.isoformat()
    page = client.get(f"/fr/{date}/anomalies/").content.decode()
    assert f'href="/fr/{date}/rules/{anomaly.number}/"' in page
    assert "Une règle ou une entrée du glossaire cite un numéro" in page
    assert anomaly.detail in page
