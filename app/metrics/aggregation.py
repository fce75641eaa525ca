"""`aggregator_unavailable_apiservice`: 1 for each APIService that is not Available, 0 for the others (as the
reference's gauge), read at scrape time from this process's view of the aggregation layer."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

HELP = "Gauge of APIServices which are marked as unavailable broken down by APIService name."


class UnavailableAPIServicesCollector:
    def __init__(self, states: Callable[[], dict[str, bool]]) -> None:
        self.states = states  # APIService name -> available

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import GaugeMetricFamily

        family = GaugeMetricFamily("aggregator_unavailable_apiservice", HELP, labels=["name"])
        for name, available in sorted(self.states().items()):
            family.add_metric([name], 0 if available else 1)
        yield family
