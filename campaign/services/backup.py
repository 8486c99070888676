"""Backup: one file with the whole campaign (both sides, all secrets, every roll and
event), and its import into another installation.  Host-only: it holds both sides'
secrets."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any
from uuid import UUID

from django.apps import apps
from django.contrib.auth import get_user_model
from django.core import serializers
from django.core.management.color import no_style
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, transaction

from campaign.models import Campaign, ModuleRecord
from campaign.services.errors import ActionRefused
from campaign.services.units import ordered

FORMAT = "refit-campaign"
VERSION = 1
# Fields older files carry that the records no longer have (issue 18: presence is a
# heartbeat now, not a counter on the seat; issue 19: the campaign's revision, now
# each seat's).
OBSOLETE_FIELDS = {"campaign.seat": {"connections"}, "campaign.campaign": {"revision"}}
# What a backup leaves out: not game data.  A seat's revision names what this
# installation's memos hold of it (and its renewals, which revisions it renewed);
# an imported campaign's seats draw new ones.
# A module's uploader is a user of this installation only: an imported private
# module arrives private and without one, shown to the players of its campaign.
NOT_EXPORTED = {"campaign.seat": {"revision", "renewed_by"}, "campaign.modulerecord": {"owner"}}


def _child_models() -> list:
    """Every model that belongs to a campaign (a ``campaign`` foreign key), so a record
    added later is in the backup without touching this file; a model that says it is
    not part of the game (``in_backup = False``: e-mail delivery records) is left out."""
    out = []
    for model in apps.get_app_config("campaign").get_models():
        field = next((f for f in model._meta.fields if f.name == "campaign"), None)
        if not getattr(model, "in_backup", True):
            continue
        if field is not None and field.related_model is Campaign:
            out.append(model)
    return sorted(out, key=lambda m: m._meta.label)


def _unit_state(fields: dict[str, Any]) -> None:
    """A unit of a file written before issue 45 gave its state as a ``status`` besides
    its markers: that status is one of its markers now ("ok": none)."""
    if "status" in fields:
        status = fields.pop("status")
        fields["markers"] = ordered([str(status), *(fields.get("markers") or ())])


class _FullTimes(DjangoJSONEncoder):
    """Times with all their microseconds: Django's encoder cuts them to milliseconds,
    so a time of 12:00:00.000456 came back from an import as 12:00:00 and a second
    export differed from the first."""

    def default(self, o: Any) -> Any:
        if isinstance(o, dt.datetime):
            text = o.isoformat()
            return text[:-6] + "Z" if text.endswith("+00:00") else text
        return super().default(o)


def export_campaign(*, campaign_id: UUID) -> bytes:
    campaign = Campaign.objects.select_related("module").get(pk=campaign_id)
    objects: list[Any] = [campaign.module, campaign]
    for model in _child_models():
        objects.extend(model.objects.filter(campaign=campaign).order_by("pk"))
    python = serializers.serialize("python", objects, use_natural_foreign_keys=True)
    serialized = json.loads(json.dumps(python, cls=_FullTimes))
    for obj in serialized:
        for name in NOT_EXPORTED.get(obj["model"], ()):
            del obj["fields"][name]
    user_fields = {
        (m._meta.label_lower, f.name)
        for m in [Campaign, *_child_models()]
        for f in m._meta.fields
        if f.is_relation and f.related_model is get_user_model()
    }
    users = sorted(
        {
            obj["fields"][name][0]
            for obj in serialized
            for (label, name) in user_fields
            if obj["model"] == label and obj["fields"].get(name)
        }
    )
    payload = {"format": FORMAT, "version": VERSION, "users": users, "objects": serialized}
    return json.dumps(payload, indent=1, sort_keys=True, ensure_ascii=False).encode()


@transaction.atomic
def import_campaign(*, data: bytes) -> Campaign:
    try:
        payload = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        raise ActionRefused("This is not a Refit campaign file (not JSON).") from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise ActionRefused("This is not a Refit campaign file.")
    if payload.get("version") != VERSION:
        raise ActionRefused(f"This file is version {payload.get('version')}; expected {VERSION}.")
    user_model = get_user_model()
    for username in payload["users"]:
        if not user_model.objects.filter(username=username).exists():
            user = user_model(username=username)
            user.set_unusable_password()  # the player sets a password through an admin reset
            user.save()
    for obj in payload["objects"]:
        for name in OBSOLETE_FIELDS.get(obj.get("model", ""), ()):
            obj.get("fields", {}).pop(name, None)
        if obj.get("model") == "campaign.unit":
            _unit_state(obj.get("fields", {}))
    objects = list(serializers.deserialize("json", json.dumps(payload["objects"])))
    models_seen = set()
    for obj in objects:
        instance = obj.object
        if isinstance(instance, ModuleRecord):
            if ModuleRecord.objects.filter(pk=instance.pk).exists():
                continue  # the campaign carries its own copy of the module data
        elif isinstance(instance, Campaign) and Campaign.objects.filter(pk=instance.pk).exists():
            raise ActionRefused("This campaign is already in this installation.", status=409)
        obj.save()
        models_seen.add(type(instance))
    with connection.cursor() as cursor:
        for sql in connection.ops.sequence_reset_sql(no_style(), list(models_seen)):
            cursor.execute(sql)
    return next(o.object for o in objects if isinstance(o.object, Campaign))
