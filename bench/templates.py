"""Django's template engine against Jinja2 on the hot parts (issue 49): the RG chart's
rows and the CG Roster.  Jinja2 renders them in the app (``campaign.fragments
.JINJA2_TEMPLATES``, engine ``jinja2``: Django's own ``Jinja2`` backend, autoescape on,
escaping as Django does); their Django templates, as they were when the parts moved,
are kept in ``tests/fixtures/django_templates/`` to hold the Jinja2 ones to the same
HTML (``tests/test_bench_templates.py``) and to measure against.
``python bench/profiling.py --templates`` prints the CPU time of each render, p50,
by both engines and their ratio.

(The RG Purchase Records' lines stay on Django's engine: their forms come from the
``action_form`` and ``options`` tags, which read Django's template ``Context``.)
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.template import Context, Engine, engines

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "tests" / "fixtures" / "django_templates"


def django_engine() -> Engine:
    """Django's engine over the parts' Django templates (the reference)."""
    return Engine(dirs=[str(REFERENCE)])


def render_both(template: str, context: dict[str, Any]) -> tuple[str, str]:
    """The same part rendered by Django's engine and by Jinja2 (the app's engine)."""
    return (
        django_engine().get_template(template).render(Context(context)),
        engines["jinja2"].get_template(template).render(context),
    )


def cpu_p50(fn: Callable[[], Any], n: int) -> float:
    """The CPU time of one call, p50, in ms."""
    times = []
    for _ in range(n):
        began = time.process_time()
        fn()
        times.append((time.process_time() - began) * 1000)
    return statistics.median(times)


def compare(parts: dict[str, tuple[str, dict[str, Any]]], n: int = 200) -> list[str]:
    """For each part (name -> template, context): the HTML compared, then the CPU p50
    of a render by each engine, alternating, and Django / Jinja2."""
    lines = []
    for name, (template, context) in parts.items():
        django_html, jinja_html = render_both(template, context)
        same = "same HTML" if django_html == jinja_html else "HTML DIFFERS"
        django_template = django_engine().get_template(template)
        jinja_template = engines["jinja2"].get_template(template)
        d = cpu_p50(lambda t=django_template, c=context: t.render(Context(c)), n)
        j = cpu_p50(lambda t=jinja_template, c=context: t.render(c), n)
        lines.append(
            f"{name}: Django {d:.3f} ms, Jinja2 {j:.3f} ms (CPU p50 of {n}); "
            f"Django / Jinja2 {d / j:.1f}x; {same} ({len(django_html)} characters)"
        )
    return lines


def hot_parts(user: Any, purchase_campaign: object, roster_campaign: object) -> dict[str, Any]:
    """The hot parts as ``user``'s pages render them: the RG chart's rows of a campaign
    at a purchase step, and the CG Roster of a campaign with a long history."""
    from campaign.fragments import _ROW_END
    from campaign.models import Seat
    from campaign.seat_views.campaign_page import campaign_view
    from campaign.seat_views.roster import roster_view

    panel = campaign_view(user, purchase_campaign).panel
    assert panel is not None and panel.chart, "a purchase step's chart"
    chart = {
        "rows": list(panel.chart),
        "span": len(panel.price_columns),
        "can_act": panel.can_act,
        "currency": campaign_view(user, purchase_campaign).currency,
        "row_end": _ROW_END,
    }
    seat = Seat.objects.select_related("campaign").get(campaign_id=roster_campaign, user=user)
    roster = {"roster": roster_view(seat), "oob": True}
    return {
        "RG chart rows": ("campaign/steps/_chart_rows.html", chart),
        "CG Roster": ("campaign/_roster.html", roster),
    }
