"""Issue 50: a fourth module, written only from the authors' guide (docs/modules.md)
and the published schema, for an invented two-date CG
(``tests/fixtures/authored/``): it validates, its RULES.md section is generated from
its ledger, and a campaign of it walks from its start to the CG's end — with a date
window, a DRM applied by itself, a secret strength roll and a datum the rules lack."""

from __future__ import annotations

from pathlib import Path

import pytest

from campaign.models import Purchase, Roll
from campaign.selectors import module_of
from campaign.services import modules as module_service
from campaign.services import purchases
from campaign.services.errors import ActionRefused
from rules import ledger
from tests.walk import host_game, players_of

pytestmark = pytest.mark.rules
AUTHORED = Path(__file__).parent / "fixtures" / "authored"


def test_the_authored_module_validates_and_its_rules_section_is_generated():
    (system,) = ledger.load_systems(AUTHORED / "modules", AUTHORED / "ledger")
    section = ledger.render(system.module, system.ledger)
    assert section.startswith("## Hill 621 (invented)")
    assert "**13 rules: 11 automated, 1 recorded, 1 left to the map**" in section
    assert "| H3.4 a | The StuG Section not before August 2 | automated |" in section
    missing = [m.supply for m in system.module.missing]
    assert missing == ["tables.booby_traps"]  # declared, never a silent zero


@pytest.mark.django_db
def test_the_authored_module_walks_from_its_start_to_cg_end(make_user):
    module_service.load_modules(directory=AUTHORED / "modules")
    german, russian = make_user("hg"), make_user("hr")
    campaign = host_game("hill-621", "cg", german, russian)
    players = players_of(campaign, german, russian)
    module = module_of(campaign)
    assert [s.points for s in campaign.seats.order_by("side")] == [12, 15]
    result = {f"{f.id}.{s.id}": 1 for f in module.result_fields for s in module.sides}
    players.results(**result)
    players.until("purchase")
    c = players.campaign
    assert module.dates[c.date_index].id == "aug2"
    bought = purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="A1")
    with pytest.raises(ActionRefused):  # CG max 1 (H3.4)
        purchases.purchase_rg(campaign_id=c.pk, user=german, group_id="A1")
    players.until("strength")
    purchases.roll_for_purchase(campaign_id=c.pk, user=german, purchase_id=bought.ref)
    strength = Roll.objects.get(campaign=c, table_id="strength")
    assert strength.secret and any(d["value"] == -1 for d in strength.drms)  # H3.5a
    assert Purchase.objects.get(pk=bought.pk).strength in ("full", "depleted")
    players.until("initiative")
    players.chits(german="attack", russian="idle")
    players.until("results")
    players.results(**result)
    c = players.campaign
    assert c.ended_at is not None and "The CG ends after its last date" in c.outcome
