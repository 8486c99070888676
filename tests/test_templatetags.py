"""The template tags that replace per-row template loops: the same HTML, escaped."""

import uuid
from types import SimpleNamespace

import pytest
from django.template import engines
from django.urls import reverse

pytestmark = pytest.mark.presentation

CID = uuid.UUID("19191919-1919-4919-9191-191919191919")


def render(source: str, **context) -> str:
    return engines["django"].from_string("{% load refit %}" + source).render(context)


def test_an_action_form_opens_with_its_url_token_and_stamp():
    html = render(
        '{% action_form "buy" class="inline" confirm=ask %}',
        view=SimpleNamespace(campaign_id=CID),
        p=SimpleNamespace(at="3.601:2"),
        csrf_token="tok",
        ask='Buy "I4"? <now>',
    )
    url = reverse("act", args=[CID, "buy"])
    assert html == (
        f'\n<form method="post" action="{url}" hx-post="{url}" hx-swap="none" class="inline"'
        ' hx-confirm="Buy &quot;I4&quot;? &lt;now&gt;">\n'
        '  <input type="hidden" name="csrfmiddlewaretoken" value="tok">\n'
        '  <input type="hidden" name="at" value="3.601:2">\n'
    )


def test_an_action_form_defaults_and_takes_the_panel_it_is_given():
    html = render(
        '{% action_form "finish" %}|{% action_form "rg-state" p=other %}',
        view=SimpleNamespace(campaign_id=CID),
        other=SimpleNamespace(at="elsewhere"),
    )
    first, second = html.split("|")
    assert 'class="action"' in first and "hx-confirm" not in first
    assert 'name="at" value=""' in first and 'name="csrfmiddlewaretoken" value=""' in first
    assert reverse("act", args=[CID, "rg-state"]) in second and 'value="elsewhere"' in second


def test_an_action_form_may_carry_an_id_for_buttons_outside_it():
    html = render(
        '{% for n in cols %}{% action_form "buy" id="buy-col-"|add:n %}|{% endfor %}',
        view=SimpleNamespace(campaign_id=CID),
        p=SimpleNamespace(at="1"),
        cols=["1", "2", '"x'],
    )
    first, second, odd = html.split("|")[:3]
    assert 'class="action" id="buy-col-1">' in first and 'id="buy-col-2"' in second
    assert 'id="buy-col-&quot;x"' in odd  # escaped
    assert "id=" not in render('{% action_form "buy" %}', view=SimpleNamespace(campaign_id=CID))


def test_options_mark_the_selected_value_and_escape_labels():
    html = render(
        "{% options choices chosen %}/{% options choices %}",
        choices=[("ok", "OK"), ("<b>", 'A & "B"')],
        chosen="<b>",
    )
    assert html == (
        '<option value="ok">OK</option><option value="&lt;b&gt;" selected>A &amp; &quot;B&quot;'
        '</option>/<option value="ok">OK</option><option value="&lt;b&gt;">A &amp; &quot;B&quot;'
        "</option>"
    )


def test_an_action_forms_tag_is_built_once_per_render_but_each_keeps_its_own_stamp():
    html = render(
        '{% for p in panels %}{% action_form "buy" p=p %}{% action_form "cancel" p=p %}|'
        "{% endfor %}",
        view=SimpleNamespace(campaign_id=CID),
        panels=[SimpleNamespace(at="1"), SimpleNamespace(at="1"), SimpleNamespace(at="2")],
        csrf_token="tok",
    )
    rows = html.split("|")[:3]
    buy, cancel = reverse("act", args=[CID, "buy"]), reverse("act", args=[CID, "cancel"])
    assert rows[0] == rows[1]  # the same action and stamp: the same tag
    for row, at in zip(rows, ("1", "1", "2"), strict=True):
        assert row.count('name="csrfmiddlewaretoken" value="tok"') == 2
        assert row.index(buy) < row.index(cancel)
        assert row.count(f'name="at" value="{at}"') == 2


def test_option_lists_reused_within_a_render_stay_apart_by_their_pairs_and_choice():
    kinds, statuses = [("a", "A"), ("b", "B")], [("a", "Able"), ("x", "X")]
    html = render(
        "{% for u in units %}{% options kinds u %}{% options statuses u %}|{% endfor %}",
        kinds=kinds,
        statuses=statuses,
        units=["a", "a", "b"],
    )
    rows = html.split("|")[:3]
    assert rows[0] == rows[1]
    assert rows[0] == (
        '<option value="a" selected>A</option><option value="b">B</option>'
        '<option value="a" selected>Able</option><option value="x">X</option>'
    )
    assert rows[2].startswith('<option value="a">A</option><option value="b" selected>B</option>')
