"""Issue 44, pass 6, A Pleasant Diversion (seed 002): what pass 5 left (3.2 EXC
"Fanatic status is NA"), and the ledger's enforced, offered and computed claims tried
again in play, where pass 5 had not tried them — twice, at the wrong step, for the
wrong side, for another kind of unit.  Each test cites the sentence it tries
(rules/ledger/sentences/pleasant-diversion.yaml); docs/rules-audit/pass-6-apd.md lists
what was found."""

from __future__ import annotations

import pytest

from campaign.models import Event
from campaign.services import steps
from campaign.services.errors import ActionRefused
from tests import test_rule_mechanisms
from tests.test_rule_mechanisms import _M4_ARMOR_TYPE, add, apd_at, exchange, unit_names

pytestmark = [pytest.mark.django_db, pytest.mark.rules]

users = test_rule_mechanisms.users
fixed_dice = test_rule_mechanisms.fixed_dice


def done(players, side, **kw):
    steps.finish_step(campaign_id=players.campaign_id, user=players.users[side], **kw)


# --------------------------------------------------------------------------- 3.2 EXC


def test_3_2_exc_fanatic_is_na_an_elite_mmc_is_not_battle_hardened(users, modules):
    """3.2: "the owning player may Battle Harden [EXC: Fanatic status is NA] any one
    MMC": an Elite MMC would become Fanatic (A15.3), so a Hero cannot harden it; a Line
    squad beside it can."""
    players, _ = apd_at(users, "3.2")
    hero = add(players, "american", "1-4-9 Hero", "hero")
    elite = add(players, "american", "6-6-7", "squad", markers=["elite"])
    line = add(players, "american", "6-6-6", "squad")
    with pytest.raises(
        ActionRefused, match=r"6-6-7 is not one of your squads or half-squads \(not captured or "
    ):
        exchange(players, "american", hero, elite)
    assert unit_names(players, "american", kind="squad") == [
        ("6-6-6", "squad", "ok", 1),
        ("6-6-7", "squad", "ok", 1),
    ]
    exchange(players, "american", hero, line)
    assert ("6-6-6", "squad", "battle_hardened", 1) in unit_names(players, "american")


def test_3_2_exc_with_only_elite_mmc_the_hero_remains_onboard_unwounded(users, modules):
    """3.2: "[EXC: Fanatic status is NA] ... [EXC: If unable to Battle Harden any MMC,
    the Hero remains onboard unwounded instead]": a side whose only MMC are Elite is
    unable to Battle Harden any, so its wounded Hero stays, unwounded, at Done."""
    players, _ = apd_at(users, "3.2")
    add(players, "american", "1-4-9 Hero", "hero", "wounded")
    add(players, "american", "7-4-7", "squad", number=2, markers=["elite"])
    done(players, "american")
    assert unit_names(players, "american") == [
        ("1-4-9 Hero", "hero", "ok", 1),
        ("7-4-7", "squad", "ok", 2),
    ]
    said = Event.objects.filter(kind="unit").order_by("-id").first().text
    assert "1-4-9 Hero stays, now in good order: no squads or half-squads (not captured" in said


# ------------------------------------------------------------- 3.4 note 4, 3.5 notes 3-4


def test_3_5_notes_3_4_the_players_chart_marks_its_groups_he_smoke_or_he_only(
    users, modules, client
):
    """3.5 notes "3. HE/Smoke." and "4. HE (only).", 3.4 note "4. HE/SMOKE.": notes of
    the (lost) reinforcement tables, each attached to the groups the table marks with
    it.  The module keeps their words as the charts' footnotes, so the players' chart
    marks a group with "3" or "4" (refused before: the chart knew no such note), and
    the American's purchase chart shows the note with his group."""
    from campaign.selectors import module_of
    from tests.test_rule_mechanisms import GERMAN_CHART, _armor_group, supply

    players, module = apd_at(users, "3.4")
    assert module.chart("german").footnotes == {"3": "HE/Smoke.", "4": "HE (only)."}
    assert module.chart("american").footnotes == {"4": "HE/SMOKE."}
    supply(players, "rg_charts.german", GERMAN_CHART | {"row-1-footnotes": "3"})
    german = module_of(players.campaign).chart("german")
    assert [g.footnotes for g in german.groups] == [[], ["3"]]
    rows = [{"range": "1-6", "result": "M4", "effect": _M4_ARMOR_TYPE}]
    _armor_group(players, rows, footnotes=["4"])
    client.force_login(players.users["american"])
    shown = client.get(f"/campaigns/{players.campaign_id}/").content.decode()
    assert 'aria-label="chart notes 4">4</a>' in shown
    assert "Chart notes" in shown and "4: HE/SMOKE." in shown
