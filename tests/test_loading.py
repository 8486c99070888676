"""Model instances built at once from a read's row (``campaign.loading``, issue 49):
the same state as Django's ``__init__`` gives them, through the gate's annotated
reads too; a partial row, or a model someone listens to ``post_init`` for, is built
by Django as before."""

from __future__ import annotations

import pickle

import pytest
from django.db import models
from django.db.models.signals import post_init
from django.utils import timezone

from campaign.models import Campaign, Event, Purchase, Seat, Unit
from campaign.seat_views.common import visible_purchases
from tests.purchase_helpers import campaign_at


@pytest.fixture
def bought(modules, make_user):
    """Sicily at 3.617: the Axis has bought I1 and G3 (G3 revealed), the British V5."""
    from campaign.services import purchases

    users = make_user("axis_l"), make_user("brit_l")
    players, _ = campaign_at("sicily", "i", "jul14n", users, policy="owner")
    for side, group in (("axis", "I1"), ("axis", "G3"), ("british", "V5")):
        purchases.purchase_rg(
            campaign_id=players.campaign_id, user=players.users[side], group_id=group
        )
    Purchase.objects.filter(side="axis", group_id="G3").update(revealed_at=timezone.now())
    campaign = Campaign.objects.get(pk=players.campaign_id)
    Unit.objects.bulk_create(Unit(campaign=campaign, side="axis", name=f"unit {i}") for i in (1, 2))
    return players


def _by_django(instance: models.Model) -> models.Model:
    """``instance`` as Django's own ``from_db`` builds it from the same values."""
    model = type(instance)
    values = [getattr(instance, f.attname) for f in model._meta.concrete_fields]
    built = models.Model.from_db.__func__(model, instance._state.db, None, values)  # type: ignore[attr-defined]
    for name, value in instance.__dict__.items():  # the read's annotations, in order
        if name not in built.__dict__:
            setattr(built, name, value)
    if instance._state.__dict__.get("fields_cache"):  # the objects ``select_related`` read
        built._state.fields_cache.update(instance._state.fields_cache)
    return built


def _state(instance: models.Model) -> tuple:
    """All an instance holds: its attributes in order (``pickle`` keeps that order)
    and its state."""
    attributes = {k: v for k, v in instance.__dict__.items() if k != "_state"}
    return list(attributes.items()), list(instance._state.__dict__.items())


@pytest.mark.django_db
def test_instances_read_are_what_djangos_init_builds_issue_49(bought):
    """Every model a page reads, through plain reads and the gate's annotated ones:
    the same attributes in the same order, not adding, from the same database, equal
    and pickled alike (the memos digest pickled views)."""
    cid = bought.campaign_id
    reads = [
        list(Campaign.objects.filter(pk=cid)),
        list(Seat.objects.filter(campaign_id=cid).select_related("user", "campaign")),
        list(Event.objects.filter(campaign_id=cid)),
        list(Unit.objects.filter(campaign_id=cid)),
        visible_purchases(Campaign.objects.get(pk=cid), "british"),
        list(Purchase.objects.visible_to("axis").filter(campaign_id=cid)),
    ]
    assert all(reads), "every read returns rows"
    for rows in reads:
        for row in rows:
            twin = _by_django(row)
            assert _state(row) == _state(twin)
            assert row == twin
            assert pickle.dumps(row) == pickle.dumps(twin), type(row)
    seat = reads[1][0]
    assert seat.campaign.pk == cid and seat.user.pk  # select_related objects too
    seat.points += 1
    seat.save(update_fields=["points"])  # saved as an existing row, not inserted
    assert Seat.objects.get(pk=seat.pk).points == seat.points


@pytest.mark.django_db
def test_partial_rows_and_listened_models_are_built_by_django_issue_49(bought):
    """``only()`` defers the other fields (read on access, as Django does); a model with
    a ``post_init`` receiver gets its signal."""
    purchase = Purchase.objects.only("id", "group_id").filter(campaign_id=bought.campaign_id)[0]
    assert purchase.get_deferred_fields() >= {"cost", "details"}
    assert purchase.cost == Purchase.objects.get(pk=purchase.pk).cost

    seen: list[object] = []

    def receiver(sender: object, instance: object, **kwargs: object) -> None:
        seen.append(instance)

    post_init.connect(receiver, sender=Unit)
    try:
        units = list(Unit.objects.filter(campaign_id=bought.campaign_id))
    finally:
        post_init.disconnect(receiver, sender=Unit)
    assert units and seen == units


@pytest.mark.django_db
def test_partial_rows_are_built_at_once_as_django_builds_them_issue_49(bought, monkeypatch):
    """A read of some fields (``only``: the owed rolls' and held caps' units) is built
    in one step too, with Django's state: the fields read, in order, the others
    deferred (read on access); ``Model.__init__`` is not run for it."""
    inits: list[object] = []
    init = models.Model.__init__

    def counted(self: models.Model, *args: object, **kwargs: object) -> None:
        inits.append(self)
        init(self, *args, **kwargs)

    monkeypatch.setattr(models.Model, "__init__", counted)
    cid = bought.campaign_id
    reads = [
        list(Unit.objects.filter(campaign_id=cid).only("ref", "name", "kind", "markers")),
        list(Purchase.objects.only("id", "campaign_id", "group_id").filter(campaign_id=cid)),
        list(Seat.objects.filter(campaign_id=cid).only("side", "user_id")),
    ]
    assert all(reads) and inits == []
    monkeypatch.setattr(models.Model, "__init__", init)
    for rows in reads:
        for row in rows:
            model = type(row)
            names = [f.attname for f in model._meta.concrete_fields if f.attname in row.__dict__]
            values = [row.__dict__[n] for n in names]
            twin = models.Model.from_db.__func__(model, row._state.db, names, values)  # type: ignore[attr-defined]
            assert _state(row) == _state(twin)
            assert row.get_deferred_fields() == twin.get_deferred_fields()
            assert pickle.dumps(row) == pickle.dumps(twin), model
    unit = reads[0][0]
    assert "count" in unit.get_deferred_fields()
    assert unit.count == Unit.objects.get(pk=unit.pk).count  # read on access
