"""Issue 6: dice are uniform, reproducible from the seed, and tampering is detected."""

from collections import Counter

import pytest
from django.core.management import CommandError, call_command

from campaign.models import Roll
from campaign.services import steps, units
from rules import dice
from tests.walk import Players

CHI2_5DF_999 = 20.515  # χ² critical value, 5 degrees of freedom, p = 0.001
CHI2_10DF_999 = 29.588


@pytest.mark.rules
def test_dr_faces_are_uniform_over_60000_rolls():
    seed = "a" * 64
    counts = Counter(dice.faces(seed, n, "dr")[0] for n in range(1, 60_001))
    expected = 60_000 / 6
    chi2 = sum((counts[f] - expected) ** 2 / expected for f in range(1, 7))
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    assert chi2 < CHI2_5DF_999, chi2


@pytest.mark.rules
def test_DR_totals_follow_the_two_dice_distribution():
    seed = "b" * 64
    counts = Counter(sum(dice.faces(seed, n, "DR")) for n in range(1, 60_001))
    ways = {t: 6 - abs(t - 7) for t in range(2, 13)}
    chi2 = sum((counts[t] - 60_000 * w / 36) ** 2 / (60_000 * w / 36) for t, w in ways.items())
    assert chi2 < CHI2_10DF_999, chi2


@pytest.mark.rules
def test_rolls_are_reproducible_from_the_seed():
    assert dice.faces("s" * 64, 17, "DR") == dice.faces("s" * 64, 17, "DR")
    assert dice.seed_hash("x") == dice.seed_hash("x") != dice.seed_hash("y")


@pytest.mark.django_db
def test_verification_detects_a_tampered_roll(hosted):
    campaign, alice, bob = hosted
    players = Players(campaign, {"red": alice, "blue": bob})
    players.results(**{"cvp_lost.red": 20, "cvp_lost.blue": 1, "san.red": 2, "san.blue": 2})
    players.until("table")
    leader = units.add_unit(
        campaign_id=campaign.pk, user=alice, name="8-1", kind="leader", markers=["wounded"]
    )
    steps.roll_on_table(campaign_id=campaign.pk, user=alice, table_id="wounded", unit_id=leader.ref)
    campaign.refresh_from_db()
    call_command("verifydice", str(campaign.pk))
    r = Roll.objects.filter(campaign=campaign).last()
    r.faces = [r.faces[0] % 6 + 1]
    r.final = sum(r.faces) + sum(d["value"] for d in r.drms)
    r.save()
    with pytest.raises(CommandError, match="1 mismatch"):
        call_command("verifydice", str(campaign.pk))


@pytest.mark.django_db
def test_dice_page_shows_own_and_public_rolls_and_not_the_opponents_secret_ones(hosted, login):
    campaign, alice, bob = hosted
    players = Players(campaign, {"red": alice, "blue": bob})
    players.results(**{"cvp_lost.red": 20, "cvp_lost.blue": 1, "san.red": 2, "san.blue": 2})
    players.until("purchase")  # red made a secret loss-point roll at T3.5
    secret = Roll.objects.get(secret=True)
    bob_page = login(bob).get(f"/campaigns/{campaign.pk}/dice/").content.decode()
    assert "CP loss points" not in bob_page
    assert f"#{secret.seq}" not in bob_page  # no roll numbers (their gaps would count)
    alice_page = login(alice).get(f"/campaigns/{campaign.pk}/dice/").content.decode()
    assert "CP loss points" in alice_page
    assert f'<strong class="final">{secret.final}' in alice_page
