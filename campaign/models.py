"""Campaign records.  Models are thin: fields, constraints, small properties.  Every
change goes through ``campaign.services``; every read for a player goes through the
visibility gate (``campaign.visibility``: ``Model.objects.visible_to(side)``)."""

from __future__ import annotations

import functools
import secrets
import uuid
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Cast
from django.db.models.lookups import StartsWith
from django.utils import timezone

from campaign.loading import LoadedAtOnce
from campaign.visibility import EventQuerySet, OwnedSecretQuerySet, RollQuerySet, UnitQuerySet
from rules.effects import UnitState, WeaponState
from rules.schema import UNIT_KIND_WORDS, UNIT_STATUS_WORDS, WEAPON_KIND_WORDS

# Records a page names (a purchase, a unit) are named by an opaque reference, never by
# their primary key: keys come from global sequences, and the gap between two of them
# would count the opponent's secret purchases and the units his secret rolls made.
REF_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
REF_LENGTH = 12


def new_ref() -> str:
    """A random reference, unique within its campaign (31^12 values: a clash is as
    likely as guessing a password, and the database refuses one)."""
    return "".join(secrets.choice(REF_ALPHABET) for _ in range(REF_LENGTH))


class ModuleRecord(LoadedAtOnce, models.Model):
    """A CG module as loaded from its file (and overrides), or uploaded by a player:
    campaigns are pinned to the exact data they were created with, identified by its
    checksum.  An uploaded module is private (``public`` off): its owner and the
    players of campaigns hosted from it see it, until an administrator publishes it;
    each version uploaded is a record of its own."""

    id = models.SlugField(primary_key=True, max_length=64)
    title = models.CharField(max_length=200)
    data = models.JSONField()
    checksum = models.CharField(max_length=64)
    loaded_at = models.DateTimeField(auto_now=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="who uploaded it (none: a module shipped with Refit)",
    )
    public = models.BooleanField(default=True, help_text="offered to every player")

    class Meta:
        ordering = ["title"]

    def __str__(self) -> str:
        return self.title


class RevealPolicy(models.TextChoices):
    STEP_END = "step_end", "when both sides finish the purchase step"
    SCENARIO_END = "scenario_end", "when the scenario ends"
    OWNER = "owner", "only when their owner reveals them, or the CG ends"


class Campaign(LoadedAtOnce, models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(max_length=120)
    module = models.ForeignKey(ModuleRecord, on_delete=models.PROTECT, related_name="+")
    # The module data the campaign was created with: reloading a module never changes
    # the rules of a campaign under way.
    module_data = models.JSONField()
    module_checksum = models.CharField(max_length=64)
    variant = models.SlugField(max_length=64)
    host = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    reveal_policy = models.CharField(max_length=20, choices=RevealPolicy.choices)
    # Not a column: the side setting up first this pass, as the chits' reveal has just
    # written it or ``selectors.step_attacker`` has read it in this request (read once;
    # after a reveal, not read back: that read would send its deferred writes early).
    sets_up_first_now: str | None = None
    # Where the campaign is: the CG date (index into the module's dates), the step
    # (index into its steps) and the pass through the steps (grows by one each time the
    # sequence starts again, also on an Idle/Lull loop), so records of a pass are unique.
    date_index = models.PositiveIntegerField(default=0)
    step_index = models.PositiveIntegerField(default=0)
    cycle = models.PositiveIntegerField(default=0)
    in_play = models.BooleanField(default=False)
    ended_at = models.DateTimeField(null=True, blank=True)
    outcome = models.TextField(blank=True)
    # Dice: every roll derives from this secret seed; its SHA-256 is shown from the start
    # and the seed itself is disclosed when the CG ends.
    dice_seed = models.CharField(max_length=64)
    dice_seed_hash = models.CharField(max_length=64)
    rolls_made = models.PositiveIntegerField(default=0)
    # Rolls drawn from each dice stream: "public" for open rolls, "secret-<side>" for a
    # side's secret rolls, so the dice of one stream never depend on another's count.
    draws = models.JSONField(default=dict, blank=True)
    # The first roll of a pass whose DRMs read that pass's scenario result (PHD C5.23's
    # "-1 per 10 CVP amassed"): {"cycle", "side", "step", "table"} ({}: none yet).  From
    # it the result stands as read; until then it may be amended (``selectors.result_read_by``).
    result_read = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]

    def __str__(self) -> str:
        return self.name


# How much of a seat's latest renewals it keeps (``Seat.renewed_by``): six or seven.
RENEWALS_LENGTH = 400


class Seat(LoadedAtOnce, models.Model):
    """One side of a campaign, and the player who holds it (empty until joined)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="seats")
    side = models.SlugField(max_length=64)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    points = models.IntegerField(default=0)  # CPP / TP / PP on hand
    fortification_points = models.IntegerField(default=0)  # FPP / DSP on hand
    san = models.IntegerField(null=True, blank=True)
    elr = models.IntegerField(null=True, blank=True)
    # The IDs of the side's Setup Areas it listed at the module's ``setup_areas.step``
    # (Sicily 3.605), public, kept to the next date until it lists them again.
    setup_areas = models.JSONField(default=list, blank=True)
    # The pass (``Campaign.cycle``) in which the side last listed them (null: never, the
    # app not knowing its Setup Areas: Sicily 3.6175's On-Map price is then sold).
    areas_cycle = models.PositiveIntegerField(null=True, blank=True)
    attack_chits_used = models.PositiveIntegerField(default=0)
    # The side's own declaration that it has no on-map retained units (3.6212*).
    no_on_map_units = models.BooleanField(default=False)
    # Since when the campaign waits for this side (null: it does not).  Kept by
    # ``campaign.services.waiting.update_waiting`` in the transaction that changes whom
    # the campaign waits for; a seat going from null to a time is a "your move" transition.
    waiting_since = models.DateTimeField(null=True, blank=True)
    # When the player last reminded the opponent that the campaign waits for him (one
    # reminder a day per campaign: ``services.messages.nudge_opponent``).
    nudged_at = models.DateTimeField(null=True, blank=True)
    # The side's open request to take back its Done ("done@<pass>.<step>": the position
    # it was asked at; lapsed once the campaign has moved on): ``services.takebacks``.
    takeback_asked = models.CharField(max_length=40, blank=True)
    # The seat's player last opened the campaign page: its digest counts from here.
    visited_at = models.DateTimeField(null=True, blank=True)
    # That page load (its browser's own id) and the visit before it: the page asking
    # again is told the same (a digest fetched twice never reads "nothing new").
    visit_page = models.CharField(max_length=40, blank=True)
    visit_since = models.DateTimeField(null=True, blank=True)
    # How many of the opponent's messages the seat's player has not seen yet: one more
    # with each he is sent (``services.messages.send_message``), none once the
    # messages are in sight on his campaign page (``mark_messages_seen``).  Kept here
    # so that every page of the campaign shows it from the seat it reads already.
    messages_unread = models.PositiveIntegerField(default=0)
    # The start sheet's cells as the player last proposed them (``supplements.
    # propose_start_sheet``): a sheet refused or withdrawn comes back filled in, in
    # whichever browser he opens it next.  His own: no view of the opponent reads it.
    start_sheet_kept = models.JSONField(default=dict, blank=True)
    # What this seat may see of the campaign, as a value: ``writes.commit`` draws a new
    # one in the transaction of every change the seat may see (a change kept secret
    # by one side renews that side's seat only), so the seat's views can be memoised
    # per revision (the roster's view, the campaign page's parts) and a change the
    # seat may not see leaves them, and the time they take to load, as they were.
    # Random, not a count: two histories of one campaign (a test's two worlds under
    # one id) never share a revision.  Not game data: backups leave it out.
    revision = models.UUIDField(default=uuid.uuid4, editable=False)
    # The kinds of the latest changes that renewed the revision, each with the
    # revision it renewed, newest first (``campaign.changes.renewals``: written by
    # ``writes.commit`` in the same statement, so a seat records only the changes it
    # may see): a page memoised at an earlier revision re-draws only the parts those
    # kinds touch (``campaign.live_pages``).  Not game data: backups leave it out.
    renewed_by = models.CharField(max_length=RENEWALS_LENGTH, blank=True, editable=False)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "side"], name="one_seat_per_side"),
            models.UniqueConstraint(
                fields=["campaign", "user"],
                name="one_side_per_user",
                condition=Q(user__isnull=False),
            ),
            models.CheckConstraint(condition=Q(points__gte=0), name="points_never_negative"),
            models.CheckConstraint(
                condition=Q(fortification_points__gte=0), name="fortification_points_never_negative"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.campaign} · {self.side}"


class Presence(LoadedAtOnce, models.Model):
    """An open campaign socket, alive while it beats: its seat is online while one of
    its sockets has not expired.  A socket refreshes ``expires_at`` every heartbeat and
    deletes its row when it closes; a worker that dies takes its sockets' beats with
    it, so their rows simply expire (no counter to leave wrong)."""

    socket = models.CharField(max_length=64, primary_key=True)
    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="presences")
    expires_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"{self.seat} until {self.expires_at:%H:%M:%S}"


class Invitation(LoadedAtOnce, models.Model):
    """A secret link seating one other user on the given side; used once."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="invitations")
    side = models.SlugField(max_length=64)
    token = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    used_at = models.DateTimeField(null=True, blank=True)
    used_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign"],
                condition=Q(revoked_at__isnull=True, used_at__isnull=True),
                name="one_open_invitation",
            )
        ]

    @property
    def is_open(self) -> bool:
        return self.revoked_at is None and self.used_at is None


class EventKind(models.TextChoices):
    CREATED = "created", "campaign created"
    JOINED = "joined", "a player joined"
    STEP_DONE = "step-done", "a side finished a step"
    ROLL = "roll", "a roll"
    RESULT_ENTERED = "result-entered", "scenario result entered"
    RESULT_CONFIRMED = "result-confirmed", "scenario result confirmed"
    RESULT_DISPUTED = "result-disputed", "scenario result disputed"
    SCENARIO = "scenario", "a scenario is in play"
    SUPPLY = "supply", "rules data supplied"
    DATE = "date", "new CG date"
    REPLENISH = "replenish", "points replenished"
    PURCHASE = "purchase", "RG bought"
    CANCEL = "cancel", "purchase cancelled"
    RG_ROLLS = "rg-rolls", "an RG's secret rolls"
    REVEAL = "reveal", "records revealed"
    FORTIFY = "fortify", "fortifications bought"
    FORFEIT = "forfeit", "points forfeit"
    RECON = "recon", "recon bought"
    CHIT = "chit", "initiative chit locked"
    DECLARE = "declare", "on-map units declared"
    INITIATIVE = "initiative", "initiative revealed"
    IDLE = "idle", "no scenario: the sequence repeats"
    UNIT = "unit", "retained forces changed"
    RG_STATE = "rg-state", "an RG's state changed"
    SAN = "san", "SAN adjusted"
    FORGO = "forgo", "points forgone"
    WINNER = "winner", "scenario winner recorded"
    END = "end", "the CG ended"
    MESSAGE = "message", "a message between the players"
    TAKEBACK = "takeback", "a side took back an action, or asked to"
    AMENDMENT = "amendment", "a scenario result amended by consent"
    NUDGE = "nudge", "a player reminded the other that the campaign waits for him"


class Event(LoadedAtOnce, models.Model):
    """The campaign log, in the order of ``id``.  ``secret_side`` set: the event's
    details are that side's secret until ``revealed_at``; the opponent sees
    ``public_text`` only (nothing when it is empty)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="events")
    kind = models.SlugField(max_length=40, choices=EventKind.choices)
    side = models.SlugField(max_length=64, blank=True)  # who acted ("" = the server)
    date_index = models.PositiveIntegerField()
    step_id = models.CharField(max_length=20, blank=True)
    text = models.TextField()  # what the event says to whoever may see it all
    public_text = models.TextField(blank=True)  # what the opponent sees before reveal
    secret_side = models.SlugField(max_length=64, blank=True)
    revealed_at = models.DateTimeField(null=True, blank=True)
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = EventQuerySet.as_manager()

    class Meta:
        ordering = ["id"]


class Roll(LoadedAtOnce, models.Model):
    """A server-side die roll with everything needed to audit and re-derive it."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="rolls")
    seq = models.PositiveIntegerField()  # the n-th roll of the campaign (shown once it ends)
    # The dice derive from the seed, the stream and the roll's draw in that stream
    # (``rules.dice``); rolls made before streams existed have stream "" and derive from seq.
    stream = models.CharField(max_length=80, blank=True)
    draw = models.PositiveIntegerField(null=True, blank=True)
    side = models.SlugField(max_length=64)  # who rolled
    date_index = models.PositiveIntegerField()
    step_id = models.CharField(max_length=20, blank=True)
    cycle = models.PositiveIntegerField(default=0)  # the pass through the steps
    table_id = models.SlugField(max_length=64, blank=True)
    # The retained unit rolled for (its ``Unit.ref``), so a table rolled once per unit
    # refuses a second roll for it in the same pass (APD 3.31).
    unit_ref = models.CharField(max_length=40, blank=True)  # a unit, or "<unit>.<weapon>"
    purpose = models.CharField(max_length=200)  # why, in words
    item = models.CharField(max_length=200, blank=True)  # e.g. which leader
    dice = models.CharField(max_length=2)  # "dr" or "DR"
    faces = models.JSONField()  # [4] or [3, 5]
    drms = models.JSONField(default=list)  # [{"label": ..., "value": ...}]
    final = models.IntegerField()
    result = models.TextField(blank=True)
    secret = models.BooleanField(default=False)
    revealed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # The other units of a stack the roll was made for with ``unit_ref``'s (Sicily
    # 3.606 "using the same Escape DR"): their references, each between spaces.
    stack = models.CharField(max_length=400, blank=True)

    objects = RollQuerySet.as_manager()

    class Meta:
        ordering = ["seq"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "seq"], name="roll_seq_unique"),
        ]


class StepMark(LoadedAtOnce, models.Model):
    """A side has done its part of a step in one pass through the sequence."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="marks")
    cycle = models.PositiveIntegerField()
    step_index = models.PositiveIntegerField()
    side = models.SlugField(max_length=64)
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    # The data of a mark made by the side's own Done (not by the server passing the
    # step for it, a result or a chit): the one a take-back withdraws.
    BY_DONE = {"by": "done"}

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "cycle", "step_index", "side"],
                name="one_mark_per_side_and_step",
            ),
        ]

    @staticmethod
    def by_done(data: object) -> bool:
        return isinstance(data, dict) and data.get("by") == StepMark.BY_DONE["by"]


class ScenarioResult(LoadedAtOnce, models.Model):
    """A CG scenario's outcome as both players agreed it (``confirmed_at`` set), or as
    one entered it and the other has still to confirm."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="results")
    cycle = models.PositiveIntegerField()
    date_index = models.PositiveIntegerField()
    data = models.JSONField()  # {field_id: {side: value}}
    entered_by = models.SlugField(max_length=64)
    confirmed_at = models.DateTimeField(null=True, blank=True)
    # Who won the scenario, where the module decides it (APD 2.9): he moves first next.
    winner = models.SlugField(max_length=64, blank=True)
    # An amendment proposed after confirmation (losses of the Clean-Up or ConPh, a
    # figure entered wrong): the new figures, who proposed them and why; the other
    # side accepts or refuses it (public, as the result is).
    amendment = models.JSONField(null=True, blank=True)
    amendment_by = models.SlugField(max_length=64, blank=True)
    amendment_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["cycle"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "cycle"], name="one_result_per_scenario"),
        ]


class InitiativeChit(LoadedAtOnce, models.Model):
    """A side's locked initiative chit.  Secret to its side until ``revealed_at``."""

    class Chit(models.TextChoices):
        ATTACK = "attack", "Attack"
        IDLE = "idle", "Idle"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="chits")
    cycle = models.PositiveIntegerField()
    date_index = models.PositiveIntegerField()
    side = models.SlugField(max_length=64)
    chit = models.CharField(max_length=10, choices=Chit.choices)
    locked_at = models.DateTimeField(auto_now_add=True)
    revealed_at = models.DateTimeField(null=True, blank=True)

    objects = OwnedSecretQuerySet.as_manager()

    class Meta:
        ordering = ["cycle", "side"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "cycle", "side"], name="one_chit_per_side"),
        ]


class InitiativeOutcome(LoadedAtOnce, models.Model):
    """The matrix result of a revealed pair of chits, with its follow-ups."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="outcomes")
    cycle = models.PositiveIntegerField()
    date_index = models.PositiveIntegerField()
    result = models.SlugField(max_length=64)
    label = models.CharField(max_length=100)
    scenario = models.BooleanField()
    attackers = models.JSONField(default=list)
    sets_up_first = models.SlugField(max_length=64, blank=True)
    moves_first = models.SlugField(max_length=64, blank=True)
    text = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["cycle"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "cycle"], name="one_outcome_per_cycle"),
        ]


class Purchase(LoadedAtOnce, models.Model):
    """One RG bought by a side: a line of its RG Purchase Record.  Secret to the side
    until ``revealed_at``.  The ordinals and copied maxima let the database itself
    refuse a count above the module's maxima."""

    class Status(models.TextChoices):
        ACTIVE = "active", "bought"
        CANCELLED = "cancelled", "cancelled (refunded)"

    class State(models.TextChoices):
        """Where a bought (or OB-given) RG is now: limits on what a side holds "at a
        time" count only those in its OB."""

        HELD = "held", "in the OB"
        ELIMINATED = "eliminated", "eliminated"
        WITHDRAWN = "withdrawn", "withdrawn"
        USED = "used", "used up"
        # An OBA module eliminated for having placed an FFE in the scenario just played
        # (PHD TM13); the pass it was so marked in is ``details["fired_cycle"]``, read
        # by the next OBA DR of its RG (C5.34 "+1 If module placed a FFE counter in
        # prior TM Scenario", ``Condition.fired_prior``).
        FIRED = "fired", "eliminated (placed an FFE)"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="purchases")
    ref = models.CharField(max_length=16, default=new_ref, editable=False)  # what pages name
    side = models.SlugField(max_length=64)
    cycle = models.PositiveIntegerField()
    date_index = models.PositiveIntegerField()
    group_id = models.CharField(max_length=16)
    group_type = models.CharField(max_length=120)
    cost_variant = models.SlugField(max_length=64, blank=True)
    cost = models.PositiveIntegerField()
    ordinal = models.PositiveIntegerField()  # the n-th of this RG in the CG
    cg_max = models.PositiveIntegerField(null=True, blank=True)
    date_ordinal = models.PositiveIntegerField()  # the n-th of this RG on its CG date
    date_max = models.PositiveIntegerField(null=True, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE)
    # Given in the Initial-Scenario OB, not bought: on the record, not counted toward the
    # purchase limits (3.6179).
    initial = models.BooleanField(default=False)
    state = models.CharField(max_length=12, choices=State.choices, default=State.HELD)
    strength = models.CharField(max_length=10, blank=True)  # "full" / "depleted"
    units = models.PositiveIntegerField(null=True, blank=True)
    details = models.JSONField(default=dict, blank=True)  # sw, leaders, other roll results
    rolled_at = models.DateTimeField(null=True, blank=True)
    revealed_at = models.DateTimeField(null=True, blank=True)
    # What its secret DRs gave it (strength, SW, leaders, units, the DRs themselves: a
    # table the rules call secret, APD 3.6) is held back though its line is revealed: a
    # reveal by the campaign's policy before the scenario (``visibility.PURCHASE``).
    outcome_held = models.BooleanField(default=False)
    # Whether the seat reading it may read that part: set by the gate on each row it
    # returns (``Purchase.objects.visible_to``).
    outcome_shown: bool
    entry_area = models.CharField(max_length=120, blank=True)
    # Where the module's record has the column for this RG (Sicily 3.6179: "Record the
    # Objective Hex of each Coy size RG").
    objective_hex = models.CharField(max_length=40, blank=True)
    notes = models.CharField(max_length=500, blank=True)
    # The hex its purchase records, where its RG records one (Sicily British chart
    # footnote i: "he records a secret Pre-Registered hex for it").
    recorded_hex = models.CharField(max_length=40, blank=True)
    # Whether the seat reading it may read that hex (kept apart from the revealed line
    # until the roll that uses it: ``visibility.PURCHASE.apart``): set by the gate.
    apart_shown: bool
    created_at = models.DateTimeField(auto_now_add=True)

    objects = OwnedSecretQuerySet.as_manager()

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(cg_max__isnull=True) | Q(ordinal__lte=F("cg_max")),
                name="purchase_within_cg_max",
            ),
            models.CheckConstraint(
                condition=Q(date_max__isnull=True) | Q(date_ordinal__lte=F("date_max")),
                name="purchase_within_date_max",
            ),
            models.UniqueConstraint(fields=["campaign", "ref"], name="purchase_ref_unique"),
            models.UniqueConstraint(
                fields=["campaign", "side", "group_id", "ordinal"],
                condition=Q(status="active", initial=False),
                name="one_active_purchase_per_ordinal",
            ),
            models.UniqueConstraint(
                fields=["campaign", "side", "group_id", "date_index", "date_ordinal"],
                condition=Q(status="active", initial=False),
                name="one_active_purchase_per_date_ordinal",
            ),
        ]


class FortificationBuy(LoadedAtOnce, models.Model):
    """Fortifications bought with FPP/DSP (3.619 / C5.35)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="fortifications")
    side = models.SlugField(max_length=64)
    date_index = models.PositiveIntegerField()
    item_id = models.SlugField(max_length=64)
    tier = models.CharField(max_length=60, blank=True)  # the price bought at ("2S")
    count = models.PositiveIntegerField()
    cost = models.PositiveIntegerField()
    location = models.CharField(max_length=200, blank=True)
    revealed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    ref = models.CharField(max_length=16, default=new_ref, editable=False)  # what pages name
    # Where it lies, as its owner states in secret at the module's ``setup_areas.step``
    # (Sicily 3.6073 "Each still-hidden Fortification within a Setup Area of the
    # purchaser's opponent is placed on-map"): the Setup Area ID ("": in none), stated in
    # the pass ``area_cycle`` (``Campaign.cycle``; null: never stated); ``on_map``: it
    # stands on the map (never hidden, found, or placed on-map by 3.6073), so no more
    # still-hidden.
    setup_area = models.CharField(max_length=40, blank=True)
    area_cycle = models.PositiveIntegerField(null=True, blank=True)
    on_map = models.BooleanField(default=False)

    objects = OwnedSecretQuerySet.as_manager()

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(condition=Q(count__gt=0), name="fortification_count"),
            models.UniqueConstraint(fields=["campaign", "ref"], name="fortification_ref_unique"),
        ]


class ReconBuy(LoadedAtOnce, models.Model):
    """Recon bought on a CG date: the Final dr is the number of Locations (3.620)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="recons")
    side = models.SlugField(max_length=64)
    date_index = models.PositiveIntegerField()
    cost = models.PositiveIntegerField()
    locations = models.IntegerField()
    roll_seq = models.PositiveIntegerField()
    # The Recon RG whose dr this is, where Recon is bought as an RG (3.620 footnote r):
    # one dr per RG; otherwise one Recon per date.
    purchase = models.OneToOneField(
        "Purchase", null=True, blank=True, on_delete=models.CASCADE, related_name="recon"
    )
    revealed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = OwnedSecretQuerySet.as_manager()

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "side", "date_index"],
                condition=Q(purchase__isnull=True),
                name="one_recon_per_date",
            )
        ]


class AddedLater(LoadedAtOnce, models.Model):
    """A further item bought for an RG bought earlier and still held (PHD RG footnote p:
    a further Pre-Registered hex for an unused OBA module; ``Module.add_later``).  As
    secret as a purchase: revealed with the purchases of its CG date, or with its RG
    (``visibility.ADDED_LATER``)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="added_later")
    purchase = models.ForeignKey(Purchase, on_delete=models.CASCADE, related_name="added_later")
    side = models.SlugField(max_length=64)
    item = models.SlugField(max_length=64)  # the module's add_later id
    cycle = models.PositiveIntegerField()
    date_index = models.PositiveIntegerField()
    cost = models.PositiveIntegerField()
    revealed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = OwnedSecretQuerySet.as_manager()

    class Meta:
        ordering = ["id"]


def choices_of(name: str, words: dict[str, str]) -> type[models.TextChoices]:
    """Django choices made from one of the rules' closed vocabularies and its words
    (``Unit.Status("ok").label == "in good order"``).  Code names a value by the
    vocabulary's own word ("ok", "squad"), as the rules' Literals do."""
    members = [(v.upper(), (v, w)) for v, w in words.items()]
    # django-stubs types only the class syntax; the functional API is Enum's own.
    return models.TextChoices(name, members)  # type: ignore[call-overload]


class Unit(LoadedAtOnce, models.Model):
    """A retained unit of a side (the players keep this list; the map is theirs)."""

    # The closed vocabularies of rules.schema (UnitStatus, UnitKind, WeaponKind), with
    # the player's words there: made from them, never copied.
    Status = choices_of("Status", UNIT_STATUS_WORDS)
    Kind = choices_of("Kind", UNIT_KIND_WORDS)
    WeaponKind = choices_of("WeaponKind", WEAPON_KIND_WORDS)
    # Not a field: the unit that replaced this one in place when a roll's result removed
    # it (Sicily 3.606 row 9, a leader Replaced), for what settles it after the roll.
    replaced_by: Unit | None = None
    # Not a field: where a roll's result replaced this unit by one its owner places with
    # a friendly MMC (APD 3.1 footnote *), what the log's line records of it (its SW
    # waiting for that MMC): ``services/units.placements_of_pass`` reads it back.
    to_place: dict[str, Any] | None = None
    # Not a field: where a roll's result removed this unit and put a replacement
    # elsewhere (APD 3.1 footnote *: the Evacuated leader's 7-0), the replacement's refs
    # and the SW it possessed, kept with the roll's log line: a correction putting the
    # unit back undoes them (``services/corrections._undo_replacement``).
    replaced_elsewhere: dict[str, list[str]] | None = None

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="units")
    ref = models.CharField(max_length=16, default=new_ref, editable=False)  # what pages name
    side = models.SlugField(max_length=64)
    name = models.CharField(max_length=120)  # "8-1 leader", "4-6-8", "StuG IIIG"
    kind = models.CharField(max_length=12, choices=Kind.choices, default="other")
    count = models.PositiveIntegerField(default=1)  # identical units on this line ("12 × 4-6-8")
    # Its state: the markers it carries at once (an Isolated malfunctioned weapon, a
    # captured immobilized vehicle), values of ``Status`` other than "ok", each once in
    # the vocabulary's order; none: in good order ("ok").  Read it with ``has``.
    markers = models.JSONField(default=list, blank=True)
    # The weapons the unit carries, part of its record (a vehicle's MA and MGs): each
    # {"ref", "kind" (``WeaponKind``), "name", "markers" (values of ``Status``)}.  A
    # roll on a table rolled for weapons is made for one of them, and its result acts
    # on it (Sicily 3.6142, PHD C5.26a, APD 3.3): the vehicle stays.  Each of the
    # identical units of a line carries the same.
    weapons = models.JSONField(default=list, blank=True)
    location = models.CharField(max_length=120, blank=True)
    purchase = models.ForeignKey(
        "Purchase", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Who possesses this SW or Gun: a personnel line of its side (a squad, a leader...),
    # or none named; "not possessed" is its marker ``unpossessed`` (APD 3.1 footnote *,
    # 3.2, 3.31; PHD C5.15, C5.26a; Sicily 3.6041).  Never across a secret: the two
    # lines are of one RG, or both public (``services/units.possessor_refusal``).
    possessor = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="possesses"
    )
    # Its former state, held from the opponent while the effect of its side's secret
    # roll on it is (PHD C5.23 "Each side makes a secret DR", C5.24 "the option to make
    # a secret DR to Battle Harden one Retained ... Leader"): the fields as they were
    # before the first such change ({"name", "kind", "markers", "count", "weapons",
    # "location", "possessor_id"}), which the gate gives the opponent in place of the
    # unit's own (``visibility.UNIT.former``); or {"within": ref}, a line split off
    # such a line, which the opponent reads counted in that one.  Empty: nothing held.
    # Released at the scenario's end or the CG's (``services/units.release_held``).
    held = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = UnitQuerySet.as_manager()

    class Meta:
        ordering = ["side", "id"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "ref"], name="unit_ref_unique"),
            models.CheckConstraint(condition=Q(count__gt=0), name="unit_count_positive"),
            # A unit's weapons and markers are lists (of records, of words), whatever
            # writes them.
            models.CheckConstraint(
                condition=StartsWith(Cast("weapons", models.TextField()), "["),
                name="unit_weapons_list",
            ),
            models.CheckConstraint(
                condition=StartsWith(Cast("markers", models.TextField()), "["),
                name="unit_markers_list",
            ),
            # A unit never possesses itself.
            models.CheckConstraint(
                condition=~Q(possessor=F("id")), name="unit_not_its_own_possessor"
            ),
        ]

    @property
    def label(self) -> str:
        """The line as a player reads it ("8-1 leader", "3 × 4-6-7")."""
        return self.name if self.count == 1 else f"{self.count} × {self.name}"

    @property
    def state(self) -> UnitState:
        """What the rules' tables read of the unit, its weapons with it."""
        return UnitState(
            self.name,
            self.kind,
            tuple(self.markers or ()),
            tuple(
                WeaponState(w["ref"], w["kind"], w["name"], tuple(w.get("markers") or ()))
                for w in self.weapons or ()
            ),
        )

    def has(self, marker: str) -> bool:
        """Whether the unit carries ``marker`` ("ok": none at all)."""
        return self.state.has(marker)

    @property
    def state_words(self) -> list[str]:
        """Its markers in the players' words (["in good order"] for none)."""
        return [marker_words(m, self.kind) for m in self.markers or ("ok",)]


@functools.cache
def _status_words() -> dict[str, str]:
    """A unit marker's words, by marker (built once: ``choices`` builds a list per read)."""
    return {value: str(words) for value, words in Unit.Status.choices}


# The bracketed hint a marker's words carry to say which units it is for ("wounded
# (leader)"), and the unit kinds it names: a Hero is wounded or heroic too (APD 3.2
# "Heroes (whether wounded or unwounded)").
_KIND_HINTS: dict[str, frozenset[str]] = {
    " (leader)": frozenset({"leader", "hero"}),
    " (vehicle)": frozenset({"vehicle"}),
    " (SW/Gun)": frozenset({"sw", "gun"}),
}


def marker_words(marker: str, kind: str = "") -> str:
    """A marker's words on a unit of ``kind``: on a unit the hint names, the hint says
    nothing and is dropped (an 8-1 leader reads "wounded", never "wounded (leader)")."""
    words = _status_words()[marker]
    for hint, kinds in _KIND_HINTS.items():
        if kind in kinds and words.endswith(hint):
            return words.removesuffix(hint)
    return words


def became_words(marker: str, kind: str = "") -> str:
    """What a unit became, as a sentence's predicate: "is now Isolated", but "must
    attempt Escape" for a marker that is an obligation (never "is now must ...")."""
    words = marker_words(marker, kind)
    return words if words.startswith(("must ", "may ")) else f"is now {words}"


class Supplement(LoadedAtOnce, models.Model):
    """A datum the rules documents lack, supplied by a player (a table, an RG chart,
    the CG's start): proposed by one side, it changes the campaign's module data only
    once the other side accepts it.  Public to both seats."""

    class Status(models.TextChoices):
        PROPOSED = "proposed", "proposed"
        ACCEPTED = "accepted", "accepted"
        REFUSED = "refused", "refused"
        WITHDRAWN = "withdrawn", "withdrawn"
        # Accepted, then replaced by a later accepted value (what a takeback restores).
        SUPERSEDED = "superseded", "replaced by a later one"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="supplements")
    ref = models.CharField(max_length=16, default=new_ref)
    path = models.CharField(max_length=120)
    value = models.JSONField()
    rows = models.JSONField(default=list, blank=True)  # form row of each table/chart row
    package = models.CharField(max_length=16, blank=True)  # the start sheet it came in
    proposed_by = models.SlugField(max_length=64)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PROPOSED)
    reason = models.CharField(max_length=500, blank=True)  # why it was refused
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "ref"], name="supplement_ref_unique"),
            models.UniqueConstraint(
                fields=["campaign", "path"],
                condition=Q(status="proposed"),
                name="one_open_proposal_per_datum",
            ),
        ]


class NotificationSettings(LoadedAtOnce, models.Model):
    """How a player wants to hear that a campaign waits for them (e-mail; the address
    is the user's own ``email``).  Browser notifications are opted into per browser."""

    class Frequency(models.TextChoices):
        IMMEDIATELY = "immediately", "immediately"
        HOURLY = "hourly", "at most one e-mail per hour (the rest in one summary)"
        OFF = "off", "off"

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notification_settings"
    )
    frequency = models.CharField(
        max_length=12, choices=Frequency.choices, default=Frequency.IMMEDIATELY
    )


class Notification(LoadedAtOnce, models.Model):
    """A message to one player about one campaign, built in the transaction that made
    it due (only from what the player's seat may see) and e-mailed after commit.  A
    failed send is retried (``attempts``, ``next_attempt_at``) until it is sent or
    given up; the row stays as the record of what was sent."""

    class Kind(models.TextChoices):
        YOUR_MOVE = "your-move", "the campaign now waits for you"
        ONLY_YOU = "only-you", "your opponent is done: the campaign waits only for you"
        NEWS = "news", "your opponent revealed or did something public"

    class Status(models.TextChoices):
        PENDING = "pending", "to send"
        SENDING = "sending", "being sent"
        SENT = "sent", "sent"
        FAILED = "failed", "given up after repeated failures"
        SKIPPED = "skipped", "not sent: e-mail is off or there is no address"
        OBSOLETE = "obsolete", "not sent: the player acted before it went out"

    # Delivery records of this installation, not part of the game: not in backups.
    in_backup = False

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    subject = models.CharField(max_length=200)
    body = models.TextField()
    link = models.CharField(max_length=500)
    # The seat's ``waiting_since`` this notice is about (your-move / only-you): when it
    # differs at sending time, the player has acted since and the notice is obsolete.
    waiting_since = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(default=timezone.now)
    claim = models.CharField(max_length=32, blank=True)  # the sender holding it
    claimed_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        indexes = [
            models.Index(fields=["status", "next_attempt_at"], name="notification_due"),
            models.Index(fields=["user", "status"], name="notification_user_status"),
        ]


class ActionAnswer(LoadedAtOnce, models.Model):
    """One click, one action: a player's action as the server answered it, named by
    the page's submission key (the page's own token, the form's address and fields:
    ``services.submissions``).  The same form posted again from the same page state
    (a double-click, a retry) finds its first answer here and is answered the same,
    never acted on twice; the unique constraint makes the second of two racing posts
    wait for the first and then read its answer."""

    # The server's memory of answers it gave, not part of the game: not in backups.
    in_backup = False

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=64)
    parts = models.JSONField(default=list)  # its changes' kinds (campaign.changes)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "user", "key"], name="one_answer_per_submission"
            )
        ]


class RollCorrection(LoadedAtOnce, models.Model):
    """A correction, by consent, of what a roll wrote to the retained forces (issue 46:
    "a roll's *write-back* to the roster can be corrected by consent"): the dice stand;
    the side whose unit the roll was for proposes the unit's line as it should be (or
    that it should be gone), the opponent accepts or refuses.  Proposed at the step
    where the roll was made (the unit keeps what the roll left until that step ends),
    it lapses when the campaign moves on.  Public to both seats: only a roll the
    opponent may see is corrected."""

    Status = Supplement.Status  # proposed, then accepted, refused or withdrawn

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="corrections")
    ref = models.CharField(max_length=16, default=new_ref)  # what pages name
    side = models.SlugField(max_length=64)  # the proposer, whose unit the roll was for
    roll = models.ForeignKey(Roll, on_delete=models.CASCADE, related_name="+")
    cycle = models.PositiveIntegerField()  # the pass and step it was proposed at
    step_index = models.PositiveIntegerField()
    was = models.JSONField(null=True, blank=True)  # the unit's line when proposed (null: gone)
    line = models.JSONField(null=True, blank=True)  # the line proposed (null: gone)
    reason = models.CharField(max_length=500)  # why, in the proposer's words
    answer = models.CharField(max_length=500, blank=True)  # why it was refused
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PROPOSED)
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "ref"], name="correction_ref_unique"),
            models.UniqueConstraint(
                fields=["campaign", "roll"],
                condition=Q(status="proposed"),
                name="one_open_correction_per_roll",
            ),
        ]
