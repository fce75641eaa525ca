"""Helpers of the observability tests: parsing /metrics and anonymous test clients."""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from prometheus_client.parser import text_string_to_metric_families

MONITOR = (("Impersonate-User", "prometheus"), ("Impersonate-Group", "system:monitoring"))


def samples(text: str, name: str) -> list[Any]:
    """Samples named `name` (e.g. apiserver_request_total) of a Prometheus text page."""
    found = []
    for family in text_string_to_metric_families(text):
        found.extend(s for s in family.samples if s.name == name)
    return found


def value(text: str, name: str, **labels: str) -> float:
    """The sum of the samples of `name` whose labels include `labels` (0 when none)."""
    return sum(s.value for s in samples(text, name) if all(s.labels.get(k) == v for k, v in labels.items()))


def scrape(client: FlaskClient) -> str:
    response = client.get("/metrics")
    assert response.status_code == 200, response.data
    return response.get_data(as_text=True)


def anonymous_client(app: Flask) -> FlaskClient:
    return FlaskClient(app, use_cookies=False)
