"""Issue 49: one disclosure policy per kind of secret (``campaign.visibility.SECRETS``).

Each kind declares once what the opponent sees before its reveal and what reveals it;
the gate of its model, the log's public wording and each push's audience derive from
that declaration.  These tests hold the declarations to one answer per model, the
services to the declarations (no hand-written public text or audience), and the seat
views to the gate (no secret model read but through ``visible_to``/``readable_by``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.apps import apps

from campaign import visibility
from campaign.visibility import SECRETS, Before, gate_of

ROOT = Path(__file__).resolve().parent.parent
GATES = ("visible_to", "readable_by")


def _secret_models() -> set[str]:
    """The models whose rows hold a kind of secret (their manager is the gate)."""
    return {
        m.__name__
        for m in apps.get_app_config("campaign").get_models()
        if hasattr(m.objects, "visible_to")
    }


def test_every_gated_model_declares_its_secrets():
    """Each model with a gate holds at least one declared kind of secret, and each
    declaration names a model that has the gate."""
    declared = {d.model for d in SECRETS}
    assert declared == _secret_models()


def test_a_models_kinds_agree_on_one_gate():
    """The kinds of secret one model holds are read by one gate (``gate_of``)."""
    for d in SECRETS:
        gate = gate_of(d.model)
        assert (d.owner, d.revealed, d.open) == (gate.owner, gate.revealed, gate.open), d.name


def test_what_the_opponent_sees_before_the_reveal_is_the_declared_wording():
    """``Before.NOTHING``: no public line; ``Before.EXISTS``: the declared line, filled."""
    for d in SECRETS:
        words = {
            "side": "Axis",
            "table": "Weather",
            "code": "CPP",
            "rule": "3.6",
            "where": "July 14 AM",
        }
        kept = d.kept("axis", **(words if d.before is Before.EXISTS else {}))
        assert kept is not None and kept.side == "axis"
        if d.before is Before.NOTHING:
            assert kept.public_text == ""
        else:
            assert kept.public_text and "{" not in kept.public_text, d.name
        assert d.kept("axis", secret=False) is None
    with pytest.raises(ValueError):
        visibility.Disclosure("x", "Purchase", Before.EXISTS, "never")


def test_the_chit_is_told_to_exist_and_the_purchase_is_not():
    """Sicily 3.6xx / PHD C5.4: the opponent learns that a chit is chosen; of a secret
    purchase he learns nothing before its reveal."""
    assert visibility.CHIT.before is Before.EXISTS
    kept = visibility.CHIT.kept("axis", side="Axis")
    assert kept is not None and kept.public_text == "Axis has chosen its initiative chit."
    assert visibility.PURCHASE.before is Before.NOTHING


# ----------------------------------------------------------------- the code follows them


def _calls(path: Path):
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Call):
            yield node


def _name(call: ast.Call) -> str:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def test_services_declare_each_secret_once():
    """No service writes a public line or a push's audience by hand: a secret log line
    is recorded with the ``Kept`` its kind declares (``secret=KIND.kept(...)``), and a
    push kept to one side is given that same value.  (To fold an older call:
    ``secret=True, public_text=...`` becomes ``secret=KIND.kept(turn.side, ...)`` and
    ``secret_of=turn.side`` the same ``Kept``.)"""
    wrong = []
    for path in sorted((ROOT / "campaign" / "services").glob("*.py")):
        if path.name in ("events.py", "turns.py", "push.py"):
            continue
        for call in _calls(path):
            name = _name(call)
            for kw in call.keywords:
                by_hand = (
                    (
                        kw.arg in ("public_text", "secret_side")
                        and name in ("record", "record_event")
                    )
                    or (
                        kw.arg == "secret"
                        and name == "record"
                        and isinstance(kw.value, ast.Constant | ast.BoolOp | ast.Compare)
                    )
                    or (
                        kw.arg == "secret_of"
                        and isinstance(kw.value, ast.Attribute | ast.IfExp | ast.Constant)
                    )
                )
                if by_hand:
                    wrong.append(f"{path.name}:{call.lineno} {name}({kw.arg}=...)")
    assert wrong == []


EDGE = [
    *(ROOT / "campaign" / "seat_views").glob("*.py"),
    ROOT / "campaign" / "fragments.py",
    ROOT / "campaign" / "consumers.py",
    *(ROOT / "campaign" / "views").glob("*.py"),
]


def test_seat_views_read_secret_models_through_the_gate_only():
    """A seat view (and the edge that renders for a seat) reads a model that holds a
    secret only as ``Model.objects.visible_to(side)`` or ``.readable_by(side)``."""
    secret = _secret_models()
    wrong = []
    for path in sorted(EDGE):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not (isinstance(node, ast.Attribute) and node.attr != "objects"):
                continue
            manager = node.value
            if (
                isinstance(manager, ast.Attribute)
                and manager.attr in ("objects", "_default_manager", "_base_manager")
                and isinstance(manager.value, ast.Name)
                and manager.value.id in secret
                and node.attr not in GATES
            ):
                wrong.append(
                    f"{path.relative_to(ROOT)}:{node.lineno} {manager.value.id}.objects.{node.attr}"
                )
    assert wrong == []
