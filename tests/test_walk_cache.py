"""The walk cache (tests/walk_cache.py): a campaign state copied from an earlier walk
equals the state the same walk, made through the services, leaves (row for row, the
keys as ordinals), and the cache stands aside wherever a copy could differ."""

from __future__ import annotations

import pytest

from campaign.models import Campaign, Event, Seat
from campaign.selectors import module_of
from rules import dice as rules_dice
from tests import walk_cache
from tests.purchase_helpers import campaign_at, set_points
from tests.walk import host_game, players_of

pytestmark = [pytest.mark.django_db]


@pytest.fixture
def empty_cache(monkeypatch):
    """The process's cache emptied for the test (and given back after it); the dice
    unpatched: the gate reads this test's patches."""
    saved, shared = dict(walk_cache._WALKS), list(walk_cache.SHARED)
    walk_cache._WALKS.clear()
    walk_cache.SHARED.clear()
    yield walk_cache._WALKS
    walk_cache._WALKS.clear()
    walk_cache._WALKS.update(saved)
    walk_cache.SHARED[:] = shared


def state(players, *, seed=True, refs=False):
    users = [players.users[s] for s in sorted(players.users)]
    names = [u.get_username() for u in users]
    snap = walk_cache.snapshot(players.campaign_id, users)
    return walk_cache.normalized(snap, names, seed=seed, refs=refs)


def zero_results(players):
    """Both sides enter and confirm the scenario's result, every field 0 (or No)."""
    module = module_of(players.campaign)
    players.results(
        **{
            f"{f.id}.{s.id}": (False if f.kind == "bool" else 0)
            for f in module.result_fields
            for s in module.sides
        }
    )


def seeded(players, seed_of):
    """Campaign ``players`` given the dice seed of campaign ``seed_of`` (the seed is
    random per campaign: a fresh walk that rolls matches a copy from the same seed)."""
    source = Campaign.objects.get(pk=seed_of.campaign_id)
    target = Campaign.objects.get(pk=players.campaign_id)
    Campaign.objects.filter(pk=target.pk).update(
        dice_seed=source.dice_seed, dice_seed_hash=source.dice_seed_hash
    )
    for event in Event.objects.filter(campaign=target, text__contains=target.dice_seed_hash):
        event.text = event.text.replace(target.dice_seed_hash, source.dice_seed_hash)
        event.save(update_fields=["text"])


@pytest.mark.parametrize(
    ("module_id", "variant", "date", "step", "kind"),
    [
        ("sicily", "i", "jul15am", "3.614", None),  # Sicily 3.6xx: the repair rolls walked
        ("purple-heart-draw", "tm", "t0930", None, "recon"),  # PHD C5.3
        ("pleasant-diversion", "cg", "dec6midday", None, "purchase"),
    ],
)
def test_a_copied_walk_equals_a_fresh_walk_row_for_row(
    modules, make_user, empty_cache, module_id, variant, date, step, kind
):
    """Three walks to the same step from the same state: the first walks through the
    services and is kept; the second is copied from it; the third walks through the
    services again with the cache off, from the first one's dice seed.  The three
    campaigns' rows are equal (keys as ordinals, timestamps as set or not), and the
    copy's timestamps are as recent as a walk's."""
    users = make_user("first"), make_user("second")

    def walk():
        return campaign_at(module_id, variant, date, users, step=step, kind=kind or "purchase")[0]

    first = walk()
    assert walk_cache.STATS["misses"] and len(empty_cache) == 2  # the start, the walk
    hits = walk_cache.STATS["hits"]
    second = walk()
    assert walk_cache.STATS["hits"] == hits + 2
    walk_cache.GATE.open = False
    third_campaign = host_game(module_id, variant, *users, name="buy", through_start=False)
    third = players_of(third_campaign, *users)
    seeded(third, first)
    walk_cache.GATE.open = False
    while third.step.start:
        third.finish()
    module = module_of(third.campaign)
    from rules import machine

    Campaign.objects.filter(pk=third.campaign_id).update(
        date_index=machine.date_index(module, date) - 1
    )
    zero_results(third)
    if step is None:
        third.until(kind)
    else:
        third.until_step(step)
    set_points(Campaign.objects.get(pk=third.campaign_id), 200)  # as campaign_at does

    assert state(first) == state(second) == state(third)
    assert Event.objects.filter(campaign_id=second.campaign_id).exists()
    assert second.campaign.step_index == first.campaign.step_index


def test_the_cache_stands_aside_in_a_committing_test_or_with_queued_dice(
    modules, make_user, empty_cache, monkeypatch
):
    """A queued fixed face (rules.dice patched with a non-empty queue) would be taken by
    the walk: the walk is made, nothing copied; with the queue empty it is copied."""
    import rules.dice

    queue: list[list[int]] = []
    real = rules.dice.faces

    def faces(seed, seq, dice, stream=""):
        return queue.pop(0) if queue else real(seed, seq, dice, stream)

    monkeypatch.setattr(rules.dice, "faces", faces)
    a, b = make_user("a"), make_user("b")
    assert walk_cache.usable()
    host_game("sicily", "i", a, b)
    host_game("sicily", "i", a, b)
    assert walk_cache.STATS["hits"] >= 1
    queue.append([6])
    assert not walk_cache.usable()
    monkeypatch.setattr(Seat, "__str__", lambda self: "patched")
    queue.clear()
    assert not walk_cache.usable()  # another patch: the walk might read it


def test_a_copied_walk_keeps_the_keys_of_the_rows_it_started_with(modules, make_user, empty_cache):
    """A test holds rows from before its walk (a seat, a purchase) and refreshes them
    after it: a copied walk keeps their keys, as a walk through the services does."""
    a, b = make_user("a"), make_user("b")
    first = players_of(host_game("sicily", "i", a, b), a, b)
    zero_results(first)
    first.until("purchase")
    copied = players_of(host_game("sicily", "i", a, b), a, b)
    zero_results(copied)
    seat = Seat.objects.get(campaign_id=copied.campaign_id, side="axis")
    revision = seat.revision
    hits = walk_cache.STATS["hits"]
    copied.until("purchase")
    assert walk_cache.STATS["hits"] == hits + 1
    seat.refresh_from_db()
    assert seat.revision != revision
    assert state(first) == state(copied)


def test_a_walk_rolls_the_same_dice_whichever_test_made_it(modules, make_user, empty_cache):
    """Each campaign a test hosts gets a seed of the test's own (``dice_of_the_test``),
    and a copy carries the seed of the walk it copies: a walk from a campaign that has
    drawn no dice is made from a seed derived from where it starts and goes, so the
    dice a test sees after a walk (Sicily 3.614's repair rolls, RePh 3.6142) are the
    same whether it made the walk or copied it from whichever test ran first."""
    import os

    from campaign.models import Roll

    if os.environ.get("REFIT_TEST_DICE") == "random":
        pytest.skip("REFIT_TEST_DICE=random: each campaign's seed is random, as asked")
    users = make_user("first"), make_user("second")

    def walk():
        players = campaign_at("sicily", "i", "jul15am", users, step="3.614")[0]
        c = Campaign.objects.get(pk=players.campaign_id)
        rolls = list(Roll.objects.filter(campaign=c).order_by("seq").values_list("faces"))
        return c, rolls

    made, made_rolls = walk()
    copied, copied_rolls = walk()  # copied from the first walk
    walk_cache._WALKS.clear()
    remade, remade_rolls = walk()  # made again, by a campaign with another seed at hosting
    assert walk_cache.STATS["hits"] >= 2 and walk_cache.STATS["misses"] >= 4
    assert made.dice_seed == copied.dice_seed == remade.dice_seed
    assert made_rolls == copied_rolls == remade_rolls
    # The seed's published SHA-256 is the one the hosting event quotes.
    for c in (made, copied, remade):
        assert c.dice_seed_hash == rules_dice.seed_hash(c.dice_seed)
        hosted = Event.objects.filter(campaign=c).order_by("pk").first()
        assert hosted is not None and c.dice_seed_hash in hosted.text


def test_a_walk_goes_on_from_a_shorter_walk_from_the_same_state(modules, make_user, empty_cache):
    """A walk to Sicily's purchase step (RePh 3.617) from the same state as a walk made
    to the repair step before it (3.614) is that walk walked on: the state left equals,
    row for row, the same walk made whole, and it carries the same dice seed (the one
    the whole walk is made from), whichever of the two walks a test made first."""
    users = make_user("first"), make_user("second")
    campaign_at("sicily", "i", "jul15am", users, step="3.614")
    prefixes = walk_cache.STATS["prefixes"]
    on = campaign_at("sicily", "i", "jul15am", users, kind="purchase")[0]
    assert walk_cache.STATS["prefixes"] == prefixes + 1
    assert module_of(on.campaign).steps[on.campaign.step_index].kind == "purchase"
    walk_cache._WALKS.clear()
    misses = walk_cache.STATS["misses"]
    whole = campaign_at("sicily", "i", "jul15am", users, kind="purchase")[0]
    assert walk_cache.STATS["misses"] == misses + 2  # the start, the walk
    assert state(on) == state(whole)
    assert on.campaign.dice_seed == whole.campaign.dice_seed


def test_a_walk_by_other_players_is_copied_with_their_names(modules, make_user, empty_cache):
    """Two pairs of players walk Sicily from July 15 AM to the purchase step (RePh
    3.617): the second pair's walks (the start, then the walk) are copies of
    the first's, and the state left equals, row for row, the same walks made by the
    second pair through the services, the hosting and joining events quoting the
    second pair's usernames ("axis_p hosts ...", "brit_p joins as ...")."""
    from campaign.models import Roll

    first = make_user("a"), make_user("b")
    second = make_user("axis_p"), make_user("brit_p")

    def walk(users):
        return campaign_at("sicily", "i", "jul15am", users, kind="purchase")[0]

    def texts(players):
        events = Event.objects.filter(campaign_id=players.campaign_id).order_by("pk")
        return [(e.text, e.public_text) for e in events]

    def rolls(players):
        return list(
            Roll.objects.filter(campaign_id=players.campaign_id).order_by("seq").values("faces")
        )

    walk(first)
    hits = walk_cache.STATS["hits"]
    copied = walk(second)
    assert walk_cache.STATS["hits"] == hits + 2  # the start, the walk
    walk_cache._WALKS.clear()
    misses = walk_cache.STATS["misses"]
    made = walk(second)
    assert walk_cache.STATS["misses"] == misses + 2
    assert state(copied) == state(made)
    assert texts(copied) == texts(made)
    assert any(text.startswith("axis_p hosts ") for text, _ in texts(copied))
    assert any(text.startswith("brit_p joins as ") for text, _ in texts(copied))
    assert not any(t.startswith(("a hosts", "b joins")) for t, _ in texts(copied))
    assert rolls(copied) == rolls(made)
    assert copied.campaign.dice_seed == made.campaign.dice_seed  # the dice to come


def test_a_walk_from_a_state_with_its_own_references_is_copied_under_them(
    modules, make_user, empty_cache
):
    """A test proposes and accepts a supplement (APD's Midday VP required, its reference
    random) before walking from the Morning's result to 3.4: a second campaign doing the
    same copies the first's walk, keeping its own supplement's reference, and neither
    campaign's rows quote the other's; the state left equals, row for row (references
    in order), the same walk made through the services."""
    from campaign.models import Supplement
    from campaign.services import supplements

    users = make_user("first"), make_user("second")

    def walk():
        a, b = users
        players = players_of(host_game("pleasant-diversion", "cg", a, b, side="american"), a, b)
        zero_results(players)
        proposal = supplements.propose_supplement(
            campaign_id=players.campaign_id,
            user=a,
            path="dates.dec6midday.vp_required",
            form={"value": "120"},
        )
        supplements.accept_supplement(campaign_id=players.campaign_id, user=b, ref=proposal.ref)
        players.until_step("3.4")
        return players, proposal.ref

    def refs(players):
        return set(
            Supplement.objects.filter(campaign_id=players.campaign_id).values_list("ref", flat=True)
        )

    first, first_ref = walk()
    hits = walk_cache.STATS["hits"]
    copied, copied_ref = walk()
    assert walk_cache.STATS["hits"] == hits + 2  # the start, the walk to 3.4
    assert first_ref != copied_ref
    assert refs(copied) == {copied_ref} and refs(first) == {first_ref}
    assert not Event.objects.filter(campaign_id=copied.campaign_id, text__contains=first_ref)
    walk_cache._WALKS.clear()
    misses = walk_cache.STATS["misses"]
    made, _ = walk()
    assert walk_cache.STATS["misses"] == misses + 2
    assert state(first, refs=True) == state(copied, refs=True) == state(made, refs=True)
    assert state(copied) != state(first)  # each its own reference
