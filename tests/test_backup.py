"""Issue 5: export a whole campaign, import it into an empty database, export again:
identical."""

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from campaign.models import Campaign, ModuleRecord
from campaign.services.backup import export_campaign, import_campaign
from campaign.services.errors import ActionRefused

pytestmark = pytest.mark.django_db


def _wipe():
    Campaign.objects.all().delete()
    ModuleRecord.objects.all().delete()
    get_user_model().objects.all().delete()


def test_round_trip_loses_nothing(hosted):
    campaign, *_ = hosted
    first = export_campaign(campaign_id=campaign.pk)
    assert campaign.dice_seed.encode() in first  # all secrets travel
    _wipe()
    imported = import_campaign(data=first)
    assert imported.pk == campaign.pk
    assert export_campaign(campaign_id=campaign.pk) == first


def test_round_trip_through_the_management_commands(hosted, tmp_path):
    campaign, *_ = hosted
    path = tmp_path / "c.json"
    call_command("exportcampaign", str(campaign.pk), "-o", str(path))
    first = path.read_bytes()
    _wipe()
    call_command("importcampaign", str(path))
    assert export_campaign(campaign_id=campaign.pk) == first
    # New rows after an import do not collide with imported ids.
    from campaign.models import EventKind
    from campaign.services.events import record_event

    record_event(Campaign.objects.get(), kind=EventKind.UNIT, text="after import")


def test_importing_twice_is_refused(hosted):
    campaign, *_ = hosted
    data = export_campaign(campaign_id=campaign.pk)
    with pytest.raises(ActionRefused, match="already in this installation"):
        import_campaign(data=data)


@pytest.mark.parametrize("data", [b"not json", b'{"format": "other"}', b"[]"])
def test_importing_garbage_is_refused(db, data):
    with pytest.raises(ActionRefused):
        import_campaign(data=data)


def test_a_seats_revision_stays_out_of_the_file_and_an_import_draws_new_ones(hosted):
    """A seat's revision names what this installation's memos hold of it, not game
    data: the file leaves it out, an imported campaign's seats draw new ones, and a
    file of the version that kept it on the campaign still imports."""
    import json
    import uuid

    from campaign.models import Seat

    campaign, *_ = hosted
    before = set(Seat.objects.filter(campaign=campaign).values_list("revision", flat=True))
    data = export_campaign(campaign_id=campaign.pk)
    assert not any(str(r) in data.decode() for r in before)
    payload = json.loads(data)
    for obj in payload["objects"]:
        if obj["model"] == "campaign.campaign":
            obj["fields"]["revision"] = str(uuid.uuid4())
    _wipe()
    import_campaign(data=json.dumps(payload).encode())
    after = set(Seat.objects.filter(campaign=campaign).values_list("revision", flat=True))
    assert after and not after & before
    assert export_campaign(campaign_id=campaign.pk) == data
