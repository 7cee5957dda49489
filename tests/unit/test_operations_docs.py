"""docs/operations/: the example alert rules pass promtool, and the dashboard and the rules ask only for figures
GET /metrics exports."""
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from observability.metrics import PrometheusMetrics
from tests.support.http import make_client

OPERATIONS = Path(__file__).parents[2] / "docs" / "operations"
PROMTOOL = shutil.which("promtool")  # Debian's prometheus package (make promtool)


@pytest.mark.skipif(PROMTOOL is None, reason="promtool is not installed: make promtool")
def test_promtool_accepts_the_alert_rules():
    checked = subprocess.run([PROMTOOL, "check", "rules", str(OPERATIONS / "alerts.yml")], capture_output=True,
                             text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_every_panel_of_the_dashboard_has_a_query_and_a_place_of_its_own():
    panels = json.loads((OPERATIONS / "grafana-dashboard.json").read_text())["panels"]
    assert all(panel["targets"] and all(target["expr"] for target in panel["targets"]) for panel in panels)
    places = [(panel["gridPos"]["x"], panel["gridPos"]["y"]) for panel in panels]
    assert len(set(places)) == len(places) and len({panel["id"] for panel in panels}) == len(panels)


def test_the_dashboard_and_the_alerts_ask_only_for_figures_the_service_exports():
    client = make_client(metrics=PrometheusMetrics())
    exported = {family.name for family in text_string_to_metric_families(client.get("/metrics").get_data(as_text=True))}
    exported |= {"cardroom_queue_jobs", "cardroom_queue_oldest_job_age_seconds"}  # read from RQ at a real scrape
    for document in ("grafana-dashboard.json", "alerts.yml"):
        asked = set(re.findall(r"cardroom_[a-z_]+", (OPERATIONS / document).read_text()))
        assert asked, document
        unknown = {name for name in asked if re.sub(r"_(total|bucket|count|sum)$", "", name) not in exported}
        assert not unknown, f"{document} asks for {unknown}"
