"""Issue 50: the module format as a JSON Schema, generated from the models
(``manage.py moduleschema``), kept in the repository (``rules/module.schema.json``)
and checked here to match them: an author's editor checks a module as it is typed."""

from __future__ import annotations

import copy
import re

import jsonschema
import pytest
import yaml
from django.core.management import CommandError, call_command

from campaign.management.commands.moduleschema import SCHEMA_FILE, published_schema
from rules.loader import MODULE_DIR

pytestmark = pytest.mark.rules

SEEDS = ["sicily", "purple-heart-draw", "pleasant-diversion"]


def schema() -> dict:
    import json

    return json.loads(SCHEMA_FILE.read_text())


@pytest.fixture(scope="module")
def validator() -> jsonschema.protocols.Validator:
    """The published schema's validator, the schema itself checked against its
    metaschema once (``jsonschema.validate`` checks it at every call, ~0.4 CPU-s)."""
    found = schema()
    cls = jsonschema.validators.validator_for(found)
    cls.check_schema(found)
    return cls(found)


def validate(validator: jsonschema.protocols.Validator, data: dict) -> None:
    """``jsonschema.validate``'s error (the best match of all), the schema checked."""
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is not None:
        raise error


def test_the_published_schema_matches_the_models(capsys):
    assert SCHEMA_FILE.read_text() == published_schema()
    call_command("moduleschema", "--check")
    assert "up to date" in capsys.readouterr().out


def test_every_field_says_what_it_means_and_what_reads_it():
    """Issue 50: each field's description says what it means in the rules (its
    comment in rules/schema.py) and which mechanism reads it."""
    found = schema()
    models = [("Module", found), *found["$defs"].items()]
    undescribed = [
        f"{name}.{field}"
        for name, model in models
        for field, prop in model.get("properties", {}).items()
        if not prop.get("description")
    ]
    unread = [
        f"{name}.{field}"
        for name, model in models
        for field, prop in model.get("properties", {}).items()
        if not re.search(r"Read by|reads|Documentation", prop.get("description", ""))
    ]
    assert undescribed == [], undescribed
    assert unread == [], unread
    strength = found["$defs"]["Table"]["properties"]["once"]["description"]
    assert "Read by" in strength


@pytest.mark.parametrize("name", SEEDS)
def test_the_schema_validates_the_three_seed_modules(name, validator):
    data = yaml.safe_load((MODULE_DIR / f"{name}.yaml").read_text())
    validate(validator, data)


@pytest.mark.parametrize(
    "break_it, where",
    [
        (lambda d: d["tables"][0].update(dice="d20"), "dice"),
        (lambda d: d["tables"][0].update(colour="red"), "colour"),
        (lambda d: d["steps"][0].pop("title"), "title"),
        (lambda d: d.update(format=2), "format"),
    ],
)
def test_the_schema_refuses_a_broken_module(break_it, where, validator):
    data = yaml.safe_load((MODULE_DIR / "sicily.yaml").read_text())
    broken = copy.deepcopy(data)
    break_it(broken)
    with pytest.raises(jsonschema.ValidationError) as refused:
        validate(validator, broken)
    assert where in str(refused.value)
    # validatemodule names the same place (the schema's path, or the field under it).
    from rules.loader import _loc, validate_data

    at = _loc(refused.value.absolute_path)
    _, errors = validate_data(broken, "sicily.yaml")
    assert any(e.path.startswith(at) and where in e.path + e.message for e in errors), (
        at,
        [str(e) for e in errors],
    )


def test_a_stale_schema_fails_the_check(tmp_path, monkeypatch):
    from campaign.management.commands import moduleschema

    stale = tmp_path / "module.schema.json"
    stale.write_text("{}\n")
    monkeypatch.setattr(moduleschema, "SCHEMA_FILE", stale)
    with pytest.raises(CommandError, match="stale"):
        call_command("moduleschema", "--check")
