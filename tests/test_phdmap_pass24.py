"""Purple Heart Draw, pass 24 (issue 44, "no sentence is map or recorded where the app
records the facts it needs"): each PHD sentence classed map or recorded weighed against
what the app records (docs/rules-audit/pass-24-phdmap.md); those whose facts the app
holds, played through each side's page (tests/page_play.py)."""

from __future__ import annotations

import pytest

from campaign.models import Roll
from tests.test_phdb17_pass17 import plain
from tests.test_phdb18_pass18 import seats
from tests.test_rule_mechanisms import fixed_dice, users

pytestmark = [pytest.mark.django_db, pytest.mark.rules]
__all__ = ["fixed_dice", "users"]

BAZ = "Roll dr: BAZ/PSK/FT/DC Repair Table"


def test_c5_26b_non_qualified_is_refused_for_an_ft_or_dc_and_ticked_for_a_psk(
    users, modules, fixed_dice
):
    """C5.26b "+2 If only Non-Qualified (A21.13) use is possible", read with MSR8 "only
    Assault Engineers may use FTs and DCs without the Non-Qualified Use Penalty (A21.13)
    applying" and C5.26b's own "The total number of FT/DC (each) after the repair phase
    may not exceed the total number of (non-isolated) Assault Engineer squad-equivalents
    ... An Assault Engineer MMC must possess any repaired FT/DC": a roll for an FT or a
    DC is made only while the side holds a non-isolated Assault Engineer MMC to possess
    it (the cap), so qualified use of a repaired FT/DC is always possible and the +2
    never applies to it.  The ledger had it as "the player ticks it: who possesses the
    weapon is the map's"; the app holds the Assault Engineers (RG footnote e) and gives
    the repaired FT/DC to one.  On the German's page (one Pionier squad of an RG marked
    e) the FT with the +2 ticked is refused in words citing MSR8 and C5.26b, nothing
    rolled; the FT without it, dr 3, is Repaired; a Psk with the +2 ticked (who may use
    a Psk qualified is ASL's A21.13, not in the rules text) is accepted: dr 2 +2 = 4
    Eliminated."""
    from tests.test_phd_pass6 import with_pioneers

    players, c = with_pioneers(users, 1, "C5.26")
    de = seats(players)["german"]
    assert "non_qualified" in de.form_of(BAZ).choices.get("tick", []), de.form_of(BAZ).choices
    fixed_dice.append([1])
    refused = de.press(BAZ, item="FT in 23K4", tick="non_qualified")
    assert refused.refused, (refused.status, refused.text[:300])
    plain(refused.text)
    assert "MSR8" in refused.text and "C5.26b" in refused.text, refused.text[:400]
    assert "Assault Engineer" in refused.text, refused.text[:400]
    assert not Roll.objects.filter(campaign=c, table_id="baz_psk_ft_dc_repair").exists()
    fixed_dice.clear()
    fixed_dice.append([3])
    assert de.press(BAZ, item="FT in 23K4").status == 200
    fixed_dice.append([2])
    assert de.press(BAZ, item="Psk in 23K5", tick="non_qualified").status == 200
    made = [
        (r.item, r.final, r.result.split(" (")[0])
        for r in Roll.objects.filter(campaign=c, table_id="baz_psk_ft_dc_repair").order_by("seq")
    ]
    assert made == [("FT in 23K4", 3, "Repaired"), ("Psk in 23K5", 4, "Eliminated")], made


REPAIR = "Roll dr: Weapon Repair Table"


def test_c5_26a_non_qualified_is_refused_for_an_ft_an_assault_engineer_possesses(
    users, modules, fixed_dice
):
    """C5.26a "+1 If only Non-Qualified (A21.13) use is possible", read with MSR8 "only
    Assault Engineers may use FTs and DCs without the Non-Qualified Use Penalty (A21.13)
    applying": a malfunctioned FT possessed by an Assault Engineer MMC (of an RG marked
    e) is in qualified hands, so the +1 is refused on its roll in words citing MSR8 and
    C5.26a, nothing rolled.  The ledger had it as "the player ticks it: whether only
    Non-Qualified use is possible depends on who possesses the weapon on the map"; the
    app holds the possessor (the roster's 'possessed by') and the RG it came with.  The
    same +1 on an FT a squad of no engineer RG possesses, and on an LMG the Pionier
    squad possesses (who may use an LMG qualified is ASL's A21.13, not in the rules
    text), is the player's tick and is accepted: dr 1 +1 = 2 Repaired, dr 2 +1 = 3
    Eliminated; the FT without it, dr 2, Repaired."""
    from campaign.models import Unit
    from tests.test_phd_pass6 import with_pioneers
    from tests.test_rule_mechanisms import add

    players, c = with_pioneers(users, 1, "C5.26")
    pioneer = Unit.objects.get(campaign=c, side="german", kind="squad")
    other = add(players, "german", "4-4-7", "squad")
    engineers_ft = add(players, "german", "FT", "sw", markers=("malfunctioned",))
    others_ft = add(players, "german", "FT", "sw", markers=("malfunctioned",))
    lmg = add(players, "german", "LMG", "sw", markers=("malfunctioned",))
    Unit.objects.filter(pk__in=[engineers_ft.pk, lmg.pk]).update(possessor=pioneer)
    Unit.objects.filter(pk=others_ft.pk).update(possessor=other)
    de = seats(players)["german"]
    assert "non_qualified" in de.form_of(REPAIR).choices.get("tick", []), de.form_of(REPAIR)
    fixed_dice.append([1])
    refused = de.press(REPAIR, unit=engineers_ft.ref, tick="non_qualified")
    assert refused.refused, (refused.status, refused.text[:300])
    plain(refused.text)
    assert "MSR8" in refused.text and "C5.26a" in refused.text, refused.text[:400]
    assert not Roll.objects.filter(campaign=c, table_id="weapon_repair").exists()
    fixed_dice.clear()
    for unit, face, tick in ((others_ft, 1, "non_qualified"), (lmg, 2, "non_qualified")):
        fixed_dice.append([face])
        answer = de.press(REPAIR, unit=unit.ref, tick=tick)
        assert answer.status == 200, answer.text[:300]
    fixed_dice.append([2])
    assert de.press(REPAIR, unit=engineers_ft.ref).status == 200
    made = [
        (r.final, r.result.split(" (")[0])
        for r in Roll.objects.filter(campaign=c, table_id="weapon_repair").order_by("seq")
    ]
    assert made == [(2, "Repaired"), (3, "Eliminated"), (2, "Repaired")], made
