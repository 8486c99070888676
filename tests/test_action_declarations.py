"""Issue 49: every action is declared once (``campaign.views.actions.DECLARED``): its
name, its typed input and its service; no action parses its form by hand."""

from __future__ import annotations

import ast
import dataclasses
import inspect
from pathlib import Path

from django.http import QueryDict

from campaign.services.errors import ActionRefused
from campaign.views import actions, inputs
from rules.kinds import Action

ROOT = Path(__file__).resolve().parent.parent


def test_every_engine_action_and_every_name_is_declared():
    assert {str(a) for a in Action} <= set(actions.ACTIONS)
    assert set(actions.DECLARED) == set(actions.Act)
    assert set(actions.ACTIONS).isdisjoint(actions.OWN_URL)


def test_each_input_names_its_services_keywords():
    """An input's fields are its service's keywords (and ``at`` only for a step's form)."""
    for declared in actions.DECLARED.values():
        params = inspect.signature(declared.service).parameters
        given = {f.name for f in dataclasses.fields(declared.input)}
        given |= {"campaign_id", declared.player} | ({"at"} if declared.at else set())
        assert given <= set(params), declared.name
        required = {n for n, p in params.items() if p.default is inspect.Parameter.empty} - {"self"}
        assert required <= given, declared.name


def test_no_action_reads_the_post_by_hand():
    """The form is read only by the declared inputs (``inputs.read``), but for the
    position token (``at``), the page the answer is for (``page``) and the
    submission's key (``lists()``: every field, as posted)."""
    tree = ast.parse((ROOT / "campaign" / "views" / "actions.py").read_text())
    reads = [
        ast.literal_eval(node.args[0]) if node.args else None
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Attribute)
        and node.func.value.attr == "POST"
        and node.func.attr != "lists"
    ]
    assert sorted(reads) == ["at", "page"]


def test_inputs_refuse_in_the_players_words():
    """A figure that is not a whole number is refused as before, in words (4xx)."""
    post = QueryDict("count=many&item=x")
    try:
        inputs.read(actions.Fortify, post)
    except ActionRefused as exc:
        assert "How many" in exc.message and exc.status < 500
    else:
        raise AssertionError("a count that is no number was read")
    assert inputs.read(actions.Fortify, QueryDict("figure.a=2&item=x"))["figures"] == {"a": 2}
    assert inputs.read(actions.RgRoll, QueryDict("claim=t:d&claim=t:e"))["ticked"] == {
        "t": ["d", "e"]
    }
    assert inputs.read(actions.UnitSave, QueryDict("unit=u"))["markers"] is None
    assert inputs.read(actions.UnitSave, QueryDict("unit=u&markers-shown=1"))["markers"] == []


def test_services_render_nothing():
    """The write side imports no template machinery (the import contract names the
    app's own and Jinja2; Django's template modules, which it cannot name, here)."""
    rendering = ("django.template", "django.shortcuts", "django.templatetags", "jinja2")
    wrong = []
    for path in sorted((ROOT / "campaign" / "services").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            wrong += [f"{path.name}: {n}" for n in names if n.startswith(rendering)]
    assert wrong == []
