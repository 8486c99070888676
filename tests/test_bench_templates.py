"""Issue 49: the hot parts Jinja2 renders in the app (``fragments.JINJA2_TEMPLATES``)
give the very HTML their Django templates gave (``tests/fixtures/django_templates/``,
kept for this comparison and for ``bench/profiling.py --templates``), autoescape
included.  When a Jinja2 template changes on purpose, its reference changes with it.
The RG chart's rows are those of Sicily 3.617 (Purchasing RGs), with the reasons a row
cannot be bought; the CG Roster after a purchase."""

from __future__ import annotations

import pytest
from django.template import engines
from django.utils.html import escape

from bench import templates
from campaign.fragments import JINJA2_TEMPLATES
from campaign.services import purchases
from tests.purchase_helpers import campaign_at


@pytest.mark.django_db
def test_jinja2_renders_the_hot_parts_as_django_did(modules, make_user):
    players, _ = campaign_at("sicily", "i", "jul14pm", (make_user("axis_j"), make_user("brit_j")))
    axis = players.users["axis"]
    purchases.purchase_rg(campaign_id=players.campaign_id, user=axis, group_id="I4")
    parts = templates.hot_parts(axis, players.campaign_id, players.campaign_id)
    for name, (template, context) in parts.items():
        assert template in JINJA2_TEMPLATES
        django_html, jinja_html = templates.render_both(template, context)
        assert django_html == jinja_html, name
    chart = parts["RG chart rows"][1]
    assert any(row.reasons for row in chart["rows"]), "a row with its reasons is compared"


@pytest.mark.presentation
def test_jinja2_escapes_as_django_does():
    """Autoescape stays on: a player's text with quotes and markup is escaped, and as
    Django escapes it, in a value and in a joined list."""
    engine = engines["jinja2"]
    text = '<b>"Jim\'s" & co</b>'
    assert engine.from_string("{{ t }}").render({"t": text}) == escape(text)
    joined = engine.from_string("{{ xs|join(', ') }}").render({"xs": [text, "<i>"]})
    assert joined == f"{escape(text)}, &lt;i&gt;"
