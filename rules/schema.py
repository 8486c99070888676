"""The CG module format: a strict, validated description of one campaign game system.

A module file (YAML under ``rules/modules/``) holds every number of a campaign game:
sides, dates, currency, the between-scenario steps, dice tables, RG charts, the
initiative matrix.  Code implements mechanisms; the module supplies the data.

Every model forbids unknown keys, so a typo in a module file is an error, not a
silently ignored datum.  Cross-references (a step naming a table, a restriction naming
an RG, a variant naming a date) are checked in ``Module``'s validator.

Most objects carry ``rule`` (the rule number the datum comes from) and ``note`` (the
transcriber's inference where the OCR was damaged, with its reasoning).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.json_schema import JsonDict

from rules.kinds import KINDS

Slug = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9_\-]*$", max_length=64)]
RuleRef = Annotated[str, Field(max_length=80)]

# Documentation for the module's author and the host: the transcriber's notes (how a
# datum was read from the rules text) and the rule number a datum is traced to.  No
# mechanism reads them and no page shows them to players as rules.
DOC: JsonDict = {"documentation": True}


DOC_FIELDS = {
    "note": "How the datum was read from the rules text (an OCR fix, an inference).",
    "rule": "The rule number the datum is traced to.",
    "source": "Where the module's data come from.",
}


def note_field() -> Any:
    return Field(default=None, json_schema_extra=DOC)


def rule_field() -> Any:
    return Field(default=None, json_schema_extra=DOC)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# --------------------------------------------------------------------------- ranges

_RANGE_RE = re.compile(
    r"^\s*(?:(?P<le>≤|<=)\s*(?P<le_v>-?\d+)"
    r"|(?P<lt><)\s*(?P<lt_v>-?\d+)"
    r"|(?P<ge>≥|>=)\s*(?P<ge_v>-?\d+)"
    r"|(?P<gt>>)\s*(?P<gt_v>-?\d+)"
    r"|(?P<lo>-?\d+)\s*(?:[-–]\s*(?P<hi>-?\d+))?"
    r"|(?P<plus>-?\d+)\s*\+)\s*$"
)


def parse_range(text: str) -> tuple[int | None, int | None]:
    """Parse a table row's range: ``≤2``, ``3``, ``4-5``, ``≥12``, ``<=2``, ``12+``.

    Returns (low, high); ``None`` is an open end.
    """
    m = _RANGE_RE.match(str(text))
    if not m:
        raise ValueError(f"'{text}' is not a roll range (use e.g. '≤2', '3', '4-5', '≥12')")
    if m["le"]:
        return None, int(m["le_v"])
    if m["lt"]:
        return None, int(m["lt_v"]) - 1
    if m["ge"]:
        return int(m["ge_v"]), None
    if m["gt"]:
        return int(m["gt_v"]) + 1, None
    if m["plus"]:
        return int(m["plus"]), None
    lo = int(m["lo"])
    hi = int(m["hi"]) if m["hi"] is not None else lo
    if hi < lo:
        raise ValueError(f"'{text}': the range runs backwards")
    return lo, hi


# --------------------------------------------------------------------------- conditions

# Quantities a mechanism can supply about the campaign when a DRM is "per N" of
# something or a condition tests it.  Extending this list is a code change on purpose:
# each input needs a mechanism that computes it.
CampaignInput = Literal[
    "cvp_lost_prior_scenario",  # CVP the acting side lost in the prior CG scenario
    "cvp_amassed_prior_scenario",  # CVP the acting side amassed then (the opponent lost)
    "cvp_lost_cg",  # CVP the acting side has lost in the whole CG so far
    "san",  # the acting side's current SAN
    "vp_total",  # the acting side's VP amassed over the CG
    # The Morale of the retained unit rolled for, read from its counter as its line
    # names it (``rules.drm.unit_morale``): Sicily 3.6041 "Each encircled unit ... must
    # take a separate 1TC".
    "unit_morale",
    # The HS-equivalents of the units making one roll (the unit rolled for and those of
    # its stack, ``Table.stack``; a squad two, a HS or crew one): PHD C5.14 "+1 per HS
    # equivalent > one squad using the same Redeployment DR" (offset -2), Sicily 3.606
    # "+1 per HS-equivalent > one HS using the same Escape DR" (offset -1).
    "stack_hs",
    # The leadership modifier of the best leader among the units making one roll
    # (ASL: "8-1" -1, "6+1" +1; PHD C5.13a "leadership benefits (including Armour
    # Leaders) apply to any unit that redeploy together"); 0 with no leader.
    "stack_leadership",
]


# What a unit of the retained forces may be marked (campaign.models.Unit.markers; "ok",
# in good order, is a unit carrying none of the others).
UnitStatus = Literal[
    "ok",
    "wounded",
    "malfunctioned",
    "mg_malfunctioned",  # a vehicle's MG, apart from its MA (APD 3.3: its own Repair row)
    "disabled",
    "immobilized",
    "stunned",
    "isolated",
    "captured",
    "battle_hardened",
    "recalled",
    "reduced",
    "abandoned",  # a vehicle its crew left (Sicily 3.6141a; APD 2.5 EXC)
    # A SW or Gun no unit possesses (PHD C5.15 "Unpossessed SW/Guns"; APD 3.31 "Guns/SW
    # must be Possessed to attempt Repair"; PHD C5.26a "possessed by a unit").
    "unpossessed",
    # Off map, still the side's, out of play until the rules return it (Sicily 3.60742:
    # "Withdrawn Axis units ... are retained by the Axis off map and may be returned to
    # play after ...").
    "withdrawn",
    # The MMC's class is Elite (A15.3: Battle Hardening would make it Fanatic): APD 3.2
    # "[EXC: Fanatic status is NA]", so it cannot Battle Harden for a Hero.
    "elite",
    # Encircled (A7.7) as the RePh finds it: Sicily 3.606 "+2 If Encircled (NA to
    # vehicles)" reads it on the unit rolled for.
    "encircled",
    # A Heroic leader (A15.2): Sicily 3.610 "-1 if Heroic" reads it on the wounded leader.
    "heroic",
    # A Low Ammo marker (Ammunition Shortage, A19.131): Sicily 3.6141c gives it to a
    # Mobile, Isolated AFV that stays under Recall; 3.61425 removes it from each
    # non-captured, non-Isolated vehicle.  PHD C5.13a gives it to any unit that ends the
    # Redeployment Isolated; C5.27d removes it from each non-captured, non-Isolated one.
    "low_ammo",
    # An MMC a result Replaces (A19.13: by the next lower quality counter of its
    # nationality and class, which the Sicily seed does not print): marked until its
    # owner renames its line (Sicily 3.606 row 9 "Escapes; Replaced").
    "replace_due",
    # A unit that must attempt Escape at the step its table is rolled (Sicily 3.6051:
    # the crew of a vehicle Abandoned in No-Man's Land "must attempt Escape per 3.606"):
    # its roll there is owed (``Table.required_for``) and takes the mark off.  Its
    # owner marks it so on the roster (the 3.6056 chart's Personnel rows "in enemy
    # Setup Area | must attempt Escape (3.606)", "in No Man's Land | ...").
    "escape_due",
    # The same, written by Refit on the crew line of a vehicle its owner Abandons in
    # No-Man's Land (3.6051 "its crew (if any) must attempt Escape per 3.606"): the roll
    # it owes cites that rule, not the chart's.
    "crew_escape_due",
    # The crew of a vehicle Eliminated shifting (Sicily 3.613 footnote †: "if it is
    # Eliminated, make a CS DR for its inherent crew"): its CS DR is owed.
    "cs_due",
]
# What a unit is, where an effect depends on it (3.31: a vehicle is recalled, a Gun
# removed, on the same roll).
UnitKind = Literal["squad", "half_squad", "leader", "hero", "vehicle", "gun", "sw", "other"]
# The player's words for each marker, kind and weapon, in one place: the app's choices
# (campaign.models.Unit.Status / Kind / WeaponKind) are made from these, and a value
# added to a Literal without its words fails at import.
UNIT_STATUS_WORDS: dict[str, str] = {
    "ok": "in good order",
    "wounded": "wounded (leader)",
    "malfunctioned": "malfunctioned",
    "mg_malfunctioned": "MG malfunctioned (vehicle)",
    "disabled": "disabled",
    "immobilized": "immobilized",
    "stunned": "stunned",
    "isolated": "isolated",
    "captured": "captured",
    "battle_hardened": "battle hardened",
    "recalled": "recalled (BU)",
    "reduced": "casualty reduced",
    "abandoned": "abandoned (vehicle)",
    "unpossessed": "not possessed (SW/Gun)",
    "withdrawn": "withdrawn (off map)",
    "elite": "Elite (MMC class)",
    "encircled": "Encircled",
    "heroic": "heroic (leader)",
    "low_ammo": "Low Ammo (Ammunition Shortage, A19.131)",
    "replace_due": "to be Replaced by its next lower quality counter (A19.13)",
    "escape_due": "must attempt Escape",
    "crew_escape_due": "must attempt Escape, its vehicle Abandoned in No-Man's Land",
    "cs_due": "must make its Crew Survival DR",
}
# The markers that say what a unit must still do, not what it is: a filter names them
# after the units ("half-squads marked 'must make its Crew Survival DR'"), in their words.
DUE_STATUSES = ("replace_due", "escape_due", "crew_escape_due", "cs_due")
UNIT_KIND_WORDS: dict[str, str] = {
    "squad": "squad",
    "half_squad": "half-squad / crew",
    "leader": "leader",
    "hero": "Hero",
    "vehicle": "vehicle",
    "gun": "Gun",
    "sw": "SW",
    "other": "other",
}
WEAPON_KIND_WORDS: dict[str, str] = {"ma": "MA", "mg": "MG"}

# What a weapon a retained unit carries is (campaign.models.Unit.weapons): a vehicle's
# Main Armament or one of its MGs (Sicily 3.6142 footnote "if MA, the AFV is
# immediately Recalled"; 3.61421 "vehicular MG"; APD 3.3's rows "Repair MA/Gun" and
# "Repair vehicular MG").  A weapon's condition is a set of ``UnitStatus`` markers.
WeaponKind = Literal["ma", "mg"]

for _literal, _words in (
    (UnitStatus, UNIT_STATUS_WORDS),
    (UnitKind, UNIT_KIND_WORDS),
    (WeaponKind, WEAPON_KIND_WORDS),
):
    if list(_words) != list(get_args(_literal)):
        raise TypeError(f"{_literal}: each value needs its player's words, in order")


class HeldSquads(Strict):
    """The side holds at least ``at_least`` squads, not captured, of RGs marked with one
    of the chart footnotes ``footnotes`` (PHD C5.28: "-1 Friendly side currently contains
    >= 3 Pionerie/Engineer squads", RG footnote e: Assault Engineers)."""

    footnotes: list[str] = Field(min_length=1)
    at_least: int = Field(ge=1)


class QualifiedUsers(Strict):
    """Weapons whose qualified users the rules text names: a line naming one of
    ``names`` (a whole word, any case: "FT", "DC") is used without the Non-Qualified Use
    penalty (A21.13) by a unit of an RG marked with one of the chart footnotes
    ``footnotes`` (PHD MSR8: "only Assault Engineers may use FTs and DCs without the
    Non-Qualified Use Penalty (A21.13) applying", RG footnote e)."""

    names: list[str] = Field(min_length=1)
    footnotes: list[str] = Field(min_length=1)


class Condition(Strict):
    """When a DRM applies by itself, or which RGs a rule concerns.  All given fields
    must hold (AND).  A DRM with no ``when`` is ticked by the player."""

    sides: list[Slug] | None = None
    nationalities: list[str] | None = None
    groups: list[str] | None = None  # RG IDs
    id_prefixes: list[str] | None = None  # first letter(s) of RG IDs: "I", "G", "V"
    tags: list[Slug] | None = None  # RG tags: coy, airborne, alert, italian, ...
    not_tags: list[Slug] | None = None
    strength: Literal["full", "depleted"] | None = None
    night: bool | None = None  # the current CG date is a night date
    chose_attack_previous: bool | None = None  # side chose Attack for the prior scenario
    initial_scenario: bool | None = None
    first_roll: bool | None = None  # the first of an RG's rolls on the table
    footnotes: list[str] | None = None  # the RG is marked with one of these chart footnotes
    # The retained unit a table is rolled for is of these kinds (a weapon's roll "if
    # vehicular-mounted": the vehicle's line); no unit, no match.
    unit_kinds: list[UnitKind] | None = None
    # The unit rolled for is of none of these kinds: a DRM "NA to vehicles" (Sicily 3.606
    # footnote *) offered for a squad's roll, refused for a vehicle's; no unit, it holds.
    not_unit_kinds: list[UnitKind] | None = None
    # The unit rolled for carries one of these, as its status or one of its markers
    # ("+1 if Isolated": an Isolated malfunctioned weapon); no unit, no match.
    unit_markers: list[UnitStatus] | None = None
    # And none of these (Sicily 3.606 "-1 If lone, unwounded SMC": not for a leader
    # marked wounded).
    not_unit_markers: list[UnitStatus] | None = None
    # The RG was bought at one of these prices (``cost_variants`` ids), or at none of
    # them: "EXC: RG entering via Para drop" (Sicily 3.6181).
    cost_variants: list[Slug] | None = None
    not_cost_variants: list[Slug] | None = None
    # The RG brings units (its chart row says what they are, ``unit_kind``), or not
    # (OBA, DSP): PHD C5.32's set-up (On-Map, In Reserve, Reinforcements) is a unit's.
    with_units: bool | None = None
    # The RG's units are of these kinds (its chart row's ``unit_kind``): PHD C5.31 RG
    # footnote c gives a Gun a crew and an MMG/HMG (a SW) a HS.
    group_kinds: list[UnitKind] | None = None
    # An earlier roll of the RG's own gave it one of these group kinds (effect
    # ``type``): APD 3.4 "make a dr to determine armor type", and 3.7 rolls for the
    # groups that dr made M4 groups; or the table that gave the RG did (``gives_type``:
    # APD 3.6, a German group of Row A is an infantry group).  None, no match.
    rolled_types: list[Slug] | None = None
    # The RG grants one of these (its chart row's ``grants``): PHD I3 "The US may not
    # requisition Defensive stores during the Initial Scenario" (an RG giving DSP).
    grants: list[Literal["fortification_points", "san"]] | None = None
    # The acting side holds enough squads of RGs marked with a chart footnote (PHD C5.28
    # "Friendly side currently contains >= 3 Pionerie/Engineer squads").
    held_squads: HeldSquads | None = None
    # The unit rolled for came with an RG (true) or not (false: the OB's, or captured),
    # so what its RG says of it is known or not (Sicily 3.6141d "+1 if German": the
    # nationality of a vehicle of no RG is not on the record); no unit, no match.  A
    # unit added by hand, not captured, whose counter one row of its side's chart names
    # is read as of that RG (``Module.group_naming``: a StuG IIIG of the OB is V1's).
    of_rg: bool | None = None
    # An earlier module of the RG rolled for (the same RG ID) was marked eliminated for
    # having placed an FFE (RG state ``fired``, TM13) after the scenario just played:
    # PHD C5.34 "+1 If module placed a FFE counter in prior TM Scenario".  The roll
    # names its RG (``Table.per_group``); none named, no match.
    fired_prior: bool | None = None
    # The item the roll names (``Table.once`` item: "Roadblock in 23M12") names one of
    # these words (a whole word, any case): PHD C5.28 "+1 Roadblock along a hexside of
    # an enemy Front Line Hex" is for a roll vs a Roadblock only.  The page offers it
    # before the item is typed; the roll naming another is refused (``not_offered``).
    item_named: list[str] | None = None
    # The unit rolled for is not one of ``names`` possessed by a unit of an RG marked
    # with one of ``footnotes`` (its qualified users): PHD C5.26a "+1 If only
    # Non-Qualified (A21.13) use is possible" is not for an FT an Assault Engineer MMC
    # possesses (MSR8).  No unit rolled for: it holds.
    not_qualified_possessor: QualifiedUsers | None = None
    # The unit rolled for stands (true) or not (false) in a Setup Area the other side
    # lists as its own at the module's ``setup_areas.step`` (its line's Setup Area, or
    # its possessor's; ``effects.in_enemy_area``): Sicily 3.606 "+1 If in enemy Setup
    # Area" applies by itself where the record says so; false is also a unit whose
    # line records no Setup Area (not known to stand in one).  Only in a module that
    # records Setup Areas.
    in_enemy_setup_area: bool | None = None


# --------------------------------------------------------------------------- effects


EffectName = Literal[
    "none",  # the roll changes nothing (said explicitly)
    "eliminate",  # the unit rolled for leaves the retained forces
    "status",  # the unit rolled for is marked ``status``
    "replace",  # the unit rolled for leaves and ``unit`` takes its place (A19.13, APD 3.1)
    "strength",  # the RG is at ``strength`` (full / depleted)
    "leader",  # the RG receives the leader ``unit`` ("8-1")
    "units",  # the side receives ``count`` × ``unit``
    "group",  # the side receives RG ``group`` of its chart at no cost (APD 3.5 rows)
    "san",  # the side's SAN changes by ``by``
    "side",  # the roll names ``side`` (who sets up / moves first)
    # The leader rolled for is Replaced (A19.13) by the next lower quality leader of
    # ``leader_ladder`` (a new counter, in good order); one with none lower is marked
    # ``status`` instead, if given (PHD C5.19 "* EXC: A wounded 6+1 is retained
    # Unwounded").
    "replace_lower",
    # The side Battle Hardens (A15.3) one retained non-wounded leader of quality
    # ``unit`` ("9-1"), else of the next lower quality it has, into the next higher
    # quality of ``leader_ladder``; none: no leader does (PHD C5.24 footnote *).
    "battle_harden",
    "type",  # the RG rolled for is of group kind ``type`` (APD 3.4: its armor type)
    # The side may Battle Harden (A15.3) ``count`` of its MMC (squads, HS/crews), each
    # chosen by its owner after the roll, none twice in a pass (PHD C5.23: "the number
    # of MMC that may be Battle-Hardened ... No unit may Battle Harden more than once").
    "harden_mmc",
    # One of the side's MMC, chosen by its owner after the roll, suffers Casualty
    # Reduction (a squad reduced to a HS, a HS eliminated): ``count`` of them, each of
    # the first class of ``first`` the side holds (PHD C5.28 note 2: "an original dr of
    # 6 results in Casualty Reduction for one MMC (Engineer if possible, otherwise
    # owner's choice of Elite MMC ...)").
    "reduce_mmc",
    # The unit loses the marker ``status``, its other markers staying (Sicily 3.6062 "All
    # Encircled markers are now removed"; 3.6113 "loses his heroic status"; 3.61425 "Each
    # Low Ammo marker ... is removed").
    "unmark",
    # The leader Battle Hardens (A15.3): the next higher quality of ``leader_ladder``, on
    # its own line, its markers kept; one of the highest quality stays as he is (PHD C5.24, Sicily
    # 3.6113 "[EXC: a heroic 10-3 loses his heroic status with no additional effect]").
    "harden",
    # Casualty Reduction of the unit by its kind and markers: a squad is marked
    # ``reduced`` (a HS), a leader or Hero ``wounded``; a HS or crew, a squad already
    # reduced and an SMC already wounded are eliminated (Sicily 3.606 "Casualty Reduced",
    # 3.613 footnote † "Each Personnel unit suffers Casualty Reduction").
    "casualty_reduce",
    # The weapon the roll was made for (an item roll naming one of ``Table.item_names``)
    # rejoins the side's retained forces as a ``kind`` (PHD C5.26b: a Baz/Psk/FT/DC
    # "removed from play" in the previous scenario and Repaired is back in play).
    "rejoin",
]


# Effects on the unit a roll was for (only on tables rolled for a unit, ``for_units``).
UNIT_EFFECTS = (
    "eliminate",
    "status",
    "replace",
    "replace_lower",
    "unmark",
    "harden",
    "casualty_reduce",
)


MMC_FIGURES = re.compile(r"^\d{1,2}-\d-\d$")


class MmcClass(Strict):
    """A class of MMC a ``reduce_mmc`` result falls on first, while the side holds one:
    of RGs marked with one of ``footnotes`` (PHD RG footnote e, Assault Engineers), or
    marked with one of ``statuses`` (Elite), or whose line names one of the counter
    figures ``figures`` gives for its side ("4-6-7"); ``label`` names one in the rules'
    words ("an Engineer")."""

    footnotes: list[str] = []
    statuses: list[UnitStatus] = []
    # Side -> the printed figures of the squads and HS of this class (PHD C5.28 note 2
    # "or next highest class 1st, 2nd, etc.": the rules text prints no MMC's class, ASL's
    # counters do).  Not rules text: ``source`` says where the app took them from, and
    # the players read it with the class.
    figures: dict[Slug, list[str]] = {}
    source: str | None = None
    # Side -> why every MMC of that side is of this class, in the rules' words with
    # their number, shown with the class (PHD MSR7 "All units in the German OB are
    # Elite": below an Engineer the German's choice is free among all his MMC).
    all_of: dict[Slug, str] = {}
    label: str

    @model_validator(mode="after")
    def _figures(self) -> MmcClass:
        for side, figures in self.figures.items():
            bad = [f for f in figures if not MMC_FIGURES.match(f)]
            if bad:
                raise ValueError(f"figures.{side}: {bad} are not counter figures like '4-6-7'")
        if self.figures and not self.source:
            raise ValueError(
                "'figures' are not rules text: say in 'source' where they come from "
                "(the ASL chapter), for the players to read"
            )
        return self


class Effect(Strict):
    """What a table result does, named explicitly (never read from its text).  One
    engine function applies each (``rules.effects``)."""

    do: EffectName
    status: UnitStatus | None = None
    unit: str | None = None
    count: int = Field(default=1, ge=1)
    strength: Literal["full", "depleted"] | None = None
    group: str | None = None
    by: int | None = None
    side: Slug | None = None
    kinds: list[UnitKind] | None = None  # only for a unit of these kinds
    # Only for a unit whose line names one of these words (a whole word, any case):
    # Sicily 3.606 footnote 2 "A crew, or unit, that would become Disrupted is
    # Eliminated instead": a crew (a HS line naming "crew") Replaced is Eliminated.
    # On a roll made for an item (``Table.item_names``), only where the item names one
    # (PHD C5.28 note 2 "vs a Known Minefield": a ``reduce_mmc`` of a roll vs mines).
    named: list[str] | None = None
    # On a roll made for a weapon (``UnitFilter.weapons``), the effect acts on the unit
    # carrying it, not on the weapon (Sicily 3.6142 footnote: "if MA, the AFV is
    # immediately Recalled"); a weapon's roll never removes its vehicle, so only
    # ``status`` may act on the carrier.
    to: Literal["carrier"] | None = None
    kind: UnitKind | None = None  # what the units an effect creates are ("units")
    type: Slug | None = None  # the group kind an RG's roll gives it ("type")
    # Where the unit ``replace`` puts in its place goes: by default where the unit was
    # (A19.13); ``nearest_mmc``: "in the same location as the friendly MMC nearest (in
    # hexes) to the last location" the unit occupied, the owner choosing on a tie (APD
    # 3.1 footnote *).  The app knows no hex distances: the owner places it.
    at: Literal["nearest_mmc"] | None = None
    # An ``eliminate`` that takes the Equipment the unit possesses with it, not left
    # unpossessed (Sicily 3.606 ">= 12 All units and Equipment Eliminated").
    with_possessed: bool = False
    # The rule that makes an ``eliminate`` of this unit, cited in the words after it
    # (Sicily 3.606 footnote 2: a crew a Replaced result would Disrupt "is Eliminated
    # instead").
    because: RuleRef | None = None
    # What the result does next to the unit it left (Sicily 3.606 row 11 "Escapes;
    # Replaced, then Casualty Reduced"): the leader put in its place, or the MMC marked
    # to be Replaced, is then Casualty Reduced.
    then: Literal["casualty_reduce"] | None = None
    # On a vehicle's roll: its Inherent crew survives it and is Retained as a line of
    # its own, the counter ``Module.inherent_crews`` gives the vehicle (Sicily 3.606
    # Mobile Vehicle rows 9-10 "crew (if any) Escapes"); a vehicle none names: its owner
    # is told to add it.
    crew_escapes: bool = False
    # The marker the escaping crew's line bears (Sicily 3.6051 "its crew (if any) must
    # attempt Escape per 3.606": ``escape_due``; 3.613 footnote † "if it is Eliminated,
    # make a CS DR for its inherent crew": ``cs_due``): the roll it owes reads it.
    crew_marker: UnitStatus | None = None
    # The classes of MMC a ``reduce_mmc`` falls on, in order: while the side holds one
    # of the first, one of it; none held, the next; none of any, the owner's choice.
    first: list[MmcClass] = []
    # On a ``replace_lower`` of a squad or HS: the table whose ``reduce_mmc`` result
    # orders the classes of MMC by their counters' figures (``first``), along which the
    # MMC is Replaced by the next lower class's counter (PHD C5.14 "Redeploys, Replaced",
    # A19.13, read along C5.28 note 2's classes).  A line naming no such figures gets
    # ``status`` instead (its owner renames it).
    classes_from: Slug | None = None
    # Only where one of these DRMs of the table applied to the roll: the DRM says where
    # the unit is, which decides what the result does to it (PHD C5.14 i: a unit in the
    # enemy FEBA whose result "remains in hex" is eliminated; iii-iv: one in No-Man's
    # Land that does not redeploy is considered Isolated).  The first effect that holds
    # for the unit is the one applied.
    if_drms: list[Slug] = []
    # Only where the side rolling is the Attacker of the scenario just played (the side
    # that moved first in it): PHD C5.14 ii "Any Attacker's units in an Isolated TAC ...
    # accepting the same penalties for failure as per (i)", the Defender's not.  Read
    # with ``if_drms`` (the DRM that says the unit is there); a table whose steps name
    # no Attacker holds it for no side.
    if_attacker: bool = False

    @model_validator(mode="after")
    def _params(self) -> Effect:
        needs = {
            "status": ("status",),
            "replace": ("unit",),
            "strength": ("strength",),
            "leader": ("unit",),
            "units": ("unit", "kind"),
            "group": ("group",),
            "san": ("by",),
            "side": ("side",),
            "battle_harden": ("unit",),
            "type": ("type",),
            "unmark": ("status",),
            "rejoin": ("kind",),
        }.get(self.do, ())
        for name in needs:
            if getattr(self, name) is None:
                raise ValueError(f"effect '{self.do}' needs '{name}'")
        if self.with_possessed and self.do != "eliminate":
            raise ValueError(
                "'with_possessed' eliminates what the unit possesses: only for 'eliminate'"
            )
        if self.at is not None and self.do != "replace":
            raise ValueError("'at' says where a replacement goes: only for effect 'replace'")
        if self.then is not None and self.do not in ("replace_lower", "status"):
            raise ValueError(
                "'then' acts on the unit a Replacement left: only for effects "
                "'replace_lower' and 'status'"
            )
        if self.crew_escapes and self.do not in ("status", "eliminate"):
            raise ValueError(
                "'crew_escapes' adds the crew of a vehicle Abandoned or Eliminated: only for "
                "effects 'status' and 'eliminate'"
            )
        if self.crew_marker is not None and not self.crew_escapes:
            raise ValueError("'crew_marker' marks the crew 'crew_escapes' adds: only with it")
        if self.classes_from is not None and self.do != "replace_lower":
            raise ValueError(
                "'classes_from' gives the classes a Replacement lowers an MMC along: only "
                "for 'replace_lower'"
            )
        if self.first and self.do != "reduce_mmc":
            raise ValueError(
                "'first' orders the MMC a Casualty Reduction falls on: only for 'reduce_mmc'"
            )
        if self.to == "carrier" and self.do != "status":
            raise ValueError(
                "'to: carrier' marks the unit carrying the weapon rolled for: only for effect "
                "'status' (a weapon's roll never removes its vehicle)"
            )
        return self


class InsteadOfRoll(Strict):
    """Instead of its roll on a table, a side receives ``unit`` (PHD C5.24a: "it may
    automatically create one 7-0 leader"), provided it has no more than one leader per
    ``squads_per_leader`` squad-equivalents (a HS or crew counts half)."""

    label: str  # the action as the player reads it
    unit: str
    kind: UnitKind
    squads_per_leader: int | None = Field(default=None, ge=1)
    # Created from a designated MMC the side holds (C5.24a: "from any designated
    # (non-crew) MMC"): none held, none created.
    from_mmc: bool = False
    # And the MMC it is created from names none of these words (C5.24a "(non-crew)
    # MMC": a crew's half-squad line says it is a crew).
    mmc_not_named: list[str] = []
    # And the MMC designated shares no recorded Location with a leader of the side
    # (C5.24a: "provided there is no leader in that location"); the unit created sets
    # up in the MMC's Location ("The leader must set up in the same location as the
    # designated MMC").  Only with ``from_mmc``.
    no_leader_in_location: bool = False
    rule: RuleRef

    @model_validator(mode="after")
    def _located(self) -> InsteadOfRoll:
        if self.no_leader_in_location and not self.from_mmc:
            raise ValueError("'no_leader_in_location' reads the MMC designated: with 'from_mmc'")
        return self


class InherentCrew(Strict):
    """The Inherent crew counter (ASL D5.1) of the vehicles ``vehicles`` matches: what
    survives a vehicle as a line of its own where a result says its crew escapes
    (``Effect.crew_escapes``).  ``unit`` None: the vehicles have a crew whose counter
    is not on record (Sicily: an Italian vehicle's, in no chart): the line is named for
    its vehicle ("crew of Semovente 75/18") and its owner renames it to the counter;
    it bears the result's marker (3.613 footnote †'s CS DR owed) as any crew line."""

    unit: str | None
    kind: UnitKind = "half_squad"
    vehicles: UnitFilter
    rule: RuleRef | None = rule_field()
    note: str | None = note_field()


class LeaderLadder(Strict):
    """The leaders' qualities, lowest first (ASL's 6+1 ... 10-3): what Replacement
    (A19.13) lowers a leader to and Battle Hardening (A15.3) raises him to."""

    ratings: list[str] = Field(min_length=2)
    rule: RuleRef | None = rule_field()
    note: str | None = note_field()

    @field_validator("ratings")
    @classmethod
    def _ratings(cls, v: list[str]) -> list[str]:
        for r in v:
            if not LEADER_RATING.fullmatch(r):
                raise ValueError(f"'{r}' is not a leader's quality (e.g. '8-1', '6+1')")
        if len(set(v)) != len(v):
            raise ValueError("a quality is listed twice")
        return v


# A leader's quality as the counter prints it, first in a unit's name ("9-1 leader").
LEADER_RATING = re.compile(r"\d{1,2}[-+]\d")


class UnitFilter(Strict):
    """Which retained units a table is rolled for: of these kinds, with one of these
    statuses or markers, and with none of ``not_statuses`` (Sicily 3.6141b: "Each
    non-Captured, non-Abandoned, immobilized vehicle")."""

    kinds: list[UnitKind] | None = None
    statuses: list[UnitStatus] | None = None
    not_statuses: list[UnitStatus] | None = None
    # And every one of these besides (``statuses`` is one of): PHD C5.26c "Each
    # already-malfunctioned captured weapon", malfunctioned and captured.  A result acts
    # on the condition of ``statuses``; these stay (a captured weapon disabled).
    all_statuses: list[UnitStatus] | None = None
    # For a unit that carries weapons (a vehicle's MA and MGs, ``Unit.weapons``), the
    # table is rolled for one of its weapons of these kinds, not for the unit: the
    # filter reads the weapon's markers with its carrier's (Sicily 3.6142 "a separate dr
    # ... for each malfunctioned, non-Captured, Retained Weapon"; APD 3.31 "Each
    # weapon/Vehicle may make only one Repair attempt").  A unit carrying none is
    # rolled for itself.
    weapons: list[WeaponKind] | None = None
    # Of the RGs with these IDs (the RG the unit came with, its RG Purchase Record
    # line): Sicily 3.60742 "all remaining elements of RGs I4 and I5".  Read where a
    # step settles its units (``Step.settles``) and by a cap on what is held
    # (``HeldCap``).
    groups: list[str] | None = None
    # Of an RG (true: the unit came with one, its line names it) or not (false: the
    # OB's, or added by hand): PHD TM10 "All units/equipment of the same RG must
    # initially either be set up in the same set up area or enter at ... the same
    # friendly Entry Area" names each RG's units on the set-up page (``Step.reminds``).
    of_rg: bool | None = None
    # Of an RG requisitioned for the date being set up (true) or not (false): PHD C5.39
    # "Only requisitioned units may be set up during this step; all on-map units have
    # already deployed and stay in their current locations" names the new ones.
    bought_now: bool | None = None
    # And whose name (the counter as its line records it: "2-2-8 Crew (G3)", "2-2-8 (R1
    # Replacement Crew)") names none of these words: PHD C5.22 "any (non-crew) MMC", a
    # crew being recorded as a half-squad line that says it is a crew.
    not_named: list[str] | None = None
    # And whose name names one of these words: PHD TM20 "an eligible Sherman tank" (the
    # vehicle's line records its counter, "M4A1 Sherman").
    named: list[str] | None = None
    # And which is none of the units this filter names (every one of its conditions
    # holding): Sicily 3.606 "Each Personnel/" and 3.613 "A Personnel/": a squad, HS,
    # leader or Hero marked captured is a man held prisoner, no Personnel of the side's
    # to escape or shift, where a captured vehicle or Gun (the side's captured
    # Equipment) may.  ``label`` says who they are in the player's words.
    not_if: UnitExclusion | None = None
    # And standing (true) or not (false) in a Setup Area the other side lists as its own
    # at the module's ``setup_areas.step`` (the unit's Setup Area as its line records it,
    # or its possessor's): Sicily 3.6056 chart "in enemy Setup Area | must attempt Escape
    # (3.606)" (Personnel), "is Captured or Eliminated (enemy's choice; 3.6071)"
    # (Equipment, vehicles).  Only in a module that records Setup Areas.
    in_enemy_setup_area: bool | None = None


class UnitExclusion(Strict):
    """The units a ``UnitFilter`` leaves out (``UnitFilter.not_if``): those matching
    ``units``, in the player's words ``label`` ("a prisoner")."""

    units: UnitFilter
    label: str


UnitFilter.model_rebuild()


# --------------------------------------------------------------------------- dice tables


class Drm(Strict):
    """A die-roll modifier.

    * fixed: ``value`` (player ticks it unless ``when`` decides);
    * scaled: ``value`` per ``per`` of a campaign ``of`` input (+``offset``), rounded;
      e.g. -1 per 10 CVP FRD → ``value: -1, per: 10, of: cvp_lost_prior_scenario``;
    * variable: the player types the value (``variable: true``), e.g. a leader's DRM.
    """

    id: Slug
    label: str
    value: int = 0
    when: Condition | None = None
    # A DRM the player claims (ticked or typed) is offered, and accepted, only where
    # this holds: "+1 British Airlanding/…" is not the Axis's to claim.
    offer_when: Condition | None = None
    per: int | None = Field(default=None, gt=0)
    of: CampaignInput | None = None
    offset: int = 0
    rounding: Literal["FRD", "FRU"] = "FRD"
    variable: bool = False
    min: int | None = None
    max: int | None = None
    # DRMs of the same table this one is never claimed with: Sicily 3.606 "-2 If
    # adjacent to a friendly Setup Area (-1 if two hexes away ...)" is one DRM or the
    # other, never both.
    excludes: list[Slug] = []
    # A typed DRM the roll is not made without (Sicily 3.6142 "-x (Weapon Repair
    # Number)": every weapon has one): a roll that omits it is refused.
    required: bool = False
    rule: RuleRef | None = rule_field()
    note: str | None = note_field()
    # What the player counts and types, where the DRM is ``value`` per ``per`` of it,
    # rounded (``rounding``), computed by the app (Sicily 3.613: "+1 Per five (FRD)
    # Uncontrolled-Territory hexes along that path": the player types the hexes, never
    # the DRM).  Only with ``variable``, ``value`` and ``per``.
    counted: str | None = None
    # For a ``counted`` DRM: where the record gives the count, it is read, not typed
    # (a typed count must agree with it); typed where it does not (Sicily 3.6041 EXC:
    # "- the Inherent crew's Morale", read from the crew counter ``Module.inherent_crews``
    # gives the vehicle, typed for a vehicle it names none for).
    # A ``variable`` DRM may be ``read`` too: where the record gives it, it is read and a
    # typed value must agree; typed where it does not (APD 2.5 "(leadership applies
    # normally)": the DRM of a leader in the unit's Location, A10.7, read where the
    # unit's Location and every leader's are entered: ``location_leadership``).
    read: Literal["unit_morale", "location_leadership"] | None = None
    # Why a DRM the player claims is not offered where ``offer_when`` fails, in the
    # rule's words, said with the refusal (PHD C5.34 "+1 If module placed a FFE counter
    # in prior TM Scenario": before the Initial TM Scenario there is no prior one).
    not_offered: str | None = None

    @model_validator(mode="after")
    def _counted(self) -> Drm:
        if self.counted is not None and not (
            self.variable and self.value and self.per and self.of is None
        ):
            raise ValueError(
                "'counted' is for a DRM typed as a count: 'variable', 'value' and 'per', no 'of'"
            )
        if self.read is not None and self.counted is None and not self.variable:
            raise ValueError(
                "'read' gives the count of a 'counted' DRM, or a 'variable' DRM's value, "
                "from the record"
            )
        if self.read == "location_leadership" and self.counted is not None:
            raise ValueError("'location_leadership' is a DRM's value, not a count")
        return self

    @model_validator(mode="after")
    def _shape(self) -> Drm:
        if self.counted is not None:
            return self  # a typed count (``_counted``)
        if self.variable and (self.value or self.of or self.per):
            raise ValueError("a variable DRM takes its value from the player: no value/of/per")
        if self.per is not None and self.of is None:
            raise ValueError("'per' needs 'of' (the campaign quantity it counts)")
        if not self.variable and self.value == 0 and self.of is None:
            raise ValueError("a DRM needs a non-zero value, 'of' a campaign input, or variable")
        if self.offer_when is not None and (self.when is not None or self.of is not None):
            raise ValueError("'offer_when' is for a DRM the player claims, not an automatic one")
        if self.required and not self.variable:
            raise ValueError("'required' is for a DRM the player types (variable)")
        if self.not_offered is not None and self.offer_when is None:
            raise ValueError("'not_offered' says why 'offer_when' fails: it needs 'offer_when'")
        return self


# What a table's ``offer_when`` may read: the roll's side and date, not a unit or RG.
TABLE_OFFER_FIELDS = ("sides", "nationalities", "night", "initial_scenario")

# The finals an unmodified roll of each dice kind gives.
DICE_RANGE = {"dr": (1, 6), "DR": (2, 12)}


class TableResult(Strict):
    """What a table gives: its words (one per column) and what it does."""

    result: str | None = None  # single-column tables
    results: dict[str, str] | None = None  # multi-column tables: column -> result
    effect: Effect | None = None  # what the result does (a single-column table)
    effects: list[Effect] = []  # several, each for its unit kinds (3.31)
    column_effects: dict[str, Effect] = {}  # multi-column tables: column -> effect
    note: str | None = note_field()

    @model_validator(mode="after")
    def _one_result(self) -> TableResult:
        if (self.result is None) == (self.results is None):
            raise ValueError("a row has either 'result' or 'results' (one per column)")
        return self


class TableRow(TableResult):
    range: str

    @field_validator("range")
    @classmethod
    def _range(cls, v: str) -> str:
        parse_range(v)
        return v

    @property
    def bounds(self) -> tuple[int | None, int | None]:
        return parse_range(self.range)


class OriginalRoll(TableResult):
    """A result the dice themselves give, whatever the DRMs (Sicily 3.606 footnote 1:
    "An Original 2 DR results in Escape and Heat of Battle")."""

    roll: int


class ClearedFirst(Strict):
    """An item rolled for that bars the other items of its location until a roll clears
    it, in the same pass (PHD C5.28: "all A-P mines must be cleared from a location
    before a removal attempt on any other same location (non-mine) fortification can be
    made").  An item names it when it names one of ``named`` and none of
    ``unless_named`` (a whole word, any case); its location is the hex the item names
    (a board's number, the row letter(s) and number: "23K4").  Where that item's last
    roll in the pass gave a row other than ``clears`` (a range of the table's rows) or
    an Original result, a roll for another item naming the same hex is refused with
    ``says`` and ``rule``.  A roll for another item made before the mines' is not read
    (the app knew of no mines there then)."""

    named: list[str] = Field(min_length=1)
    unless_named: list[str] = []
    clears: str  # the row (its range) whose result clears it: "≤3"
    says: str  # what the rules oblige, in their words, for the refusal
    rule: RuleRef
    # The side's own fortifications of these items (``fortifications.items``) bought
    # with a Location (PHD C5.35) lie where its owner recorded them: a roll for another
    # item naming that hex, before any roll for them there, is refused too, unless the
    # player says they are gone (cleared in play); ``recorded_label`` names them.  The
    # enemy's are his secret and are never read.
    recorded: list[Slug] = []
    recorded_label: str = ""
    note: str | None = note_field()

    @model_validator(mode="after")
    def _recorded(self) -> ClearedFirst:
        if self.recorded and not self.recorded_label:
            raise ValueError("'recorded' needs 'recorded_label': the words naming them")
        return self


class RepairCap(Strict):
    """After a repair roll, a side may hold no more of each weapon ``names`` lists (each
    apart) than it retains squad-equivalents (a half-squad half) of RGs marked with one
    of ``footnotes``, none marked ``not_markers``; the excess repaired is eliminated
    (PHD C5.26b: "The total number of FT/DC (each) after the repair phase may not exceed
    the total number of (non-isolated) Assault Engineer squad-equivalents currently
    available. Excess repaired FT/DC are eliminated instead").  The weapon rolled for
    was removed from play, so it is not among the retained: a roll for one whose
    retained number already reaches that figure could only be eliminated, and is
    refused."""

    names: list[str] = Field(min_length=1)
    footnotes: list[str] = Field(min_length=1)
    not_markers: list[UnitStatus] = []
    label: str  # what is counted, in the rules' words ("Assault Engineer squad-equivalents")
    rule: RuleRef


class PerGroup(Strict):
    """A table rolled once for each RG the side holds that ``applies_to`` names: no
    more rolls in a pass than such RGs in its OB (``label`` names one: "OBA
    module")."""

    applies_to: Condition
    label: str
    rule: RuleRef
    # The roll uses the RG up: it is marked eliminated on its RG Purchase Record line
    # by the roll itself, citing this rule (Sicily British chart footnote i: "After the
    # Bombardment has been fully resolved ... that Bombardment RG is Eliminated").
    then_eliminated: RuleRef | None = None


class DiceApart(Strict):
    """A DR read die by die, not on its sum (ASL C1.31's error DR; Sicily British chart
    footnote i: "makes a C1.31 error DR (with the white dr halved; FRU) to determine
    the bombardment Center Hex"): the colored die (the roll's first) gives ``colored``,
    the white die (its second) ``white``, halved and rounded up where ``white_halved``.
    The roll's result is ``text`` with ``{colored}`` and ``{white}`` filled in (or
    ``{white_hexes}``: "1 hex", "3 hexes")."""

    text: str  # "Center Hex {white_hexes} from the Pre-Registered hex in direction {colored}"
    # The white dr is halved, fractions rounded up ("with the white dr halved; FRU").
    white_halved: bool = False
    rule: RuleRef

    @field_validator("text")
    @classmethod
    def _fields(cls, v: str) -> str:
        if "{colored}" not in v or ("{white}" not in v and "{white_hexes}" not in v):
            raise ValueError(
                "'text' names both dice: '{colored}' and '{white}' (or '{white_hexes}')"
            )
        return v


class AfterRoll(Strict):
    """A table rolled only for a unit whose roll on ``table`` in this pass (for itself
    or as one of a stack's units) gave one of the rows ``ranges`` names: Sicily 3.613
    footnote † "Each Personnel unit suffers Casualty Reduction on a subsequent dr of >=
    4 ... Roll separately for each unit", after a Shift DR of 11 "Shifted with
    Casualties"."""

    table: Slug
    ranges: list[str] = Field(min_length=1)
    rule: RuleRef


class StackLimit(Strict):
    """A Location's stacking limit a stack making one roll may not exceed (PHD C5.13a "No
    unit may overstack during Redeployment"; ASL A5.1: three squads or their
    equivalent), in HS-equivalents (a squad 2, a HS or crew 1, an SMC 0)."""

    hs: int = Field(ge=1)
    rule: RuleRef
    note: str | None = note_field()


class StackRoll(Strict):
    """One roll made for a stack: the unit named and the units that join it use the
    same DR (Sicily 3.606 "+1 per HS-equivalent > one HS using the same Escape DR"; 3.613
    a stack's Shift DR; PHD C5.13 "Redeploy as a stack", "AFVs may redeploy as a Platoon
    with Random selection for results").  Each unit of the stack counts the roll as its
    own one roll (``once: unit``); a row whose range ``random`` lists falls on one unit
    of the stack picked by Random Selection with the app's dice (Sicily 3.606 footnote 3
    "Use Random Selection for a stack", PHD C5.14 note 3), every other row on each
    unit.  Its units read one column of the table (an Infantry stack or an AFV Platoon;
    SMC go with either).  A DRM counts their HS-equivalents or best leader by the
    campaign inputs ``stack_hs`` and ``stack_leadership``."""

    kinds: list[UnitKind] = Field(min_length=1)  # the units that may join the stack
    random: list[str] = []  # row ranges that fall on one unit by Random Selection
    # Original rolls whose result falls on one unit by Random Selection (Sicily 3.606
    # footnote 1: "An Original 2 DR results in Escape and Heat of Battle for an eligible
    # unit (A15); use Random Selection to determine the unit(s) affected in a stack").
    random_original: list[int] = []
    rule: RuleRef
    note: str | None = note_field()
    # The most a stack may hold (PHD C5.13a "No unit may overstack during Redeployment"):
    # a stack larger than a Location's stacking limit overstacks wherever it ends.
    overstack: StackLimit | None = None


class OwedFor(Strict):
    """The units a table's roll is compulsory for (``Table.required_for``), and the rule
    that makes it so (Sicily 3.6051: "its crew (if any) must attempt Escape per 3.606")."""

    units: UnitFilter
    rule: RuleRef


class Table(Strict):
    id: Slug
    title: str
    rule: RuleRef
    dice: Literal["dr", "DR"]
    columns: list[str] | None = None  # for multi-column tables
    column_for_side: dict[Slug, str] = {}  # which column a side reads, by side id
    # Which column a roll for a unit reads, by the unit's kind (Sicily 3.606: a squad
    # the Infantry column, a vehicle the Mobile Vehicle one); only with ``for_units``.
    column_for_kind: dict[UnitKind, str] = {}
    rows: list[TableRow] = []
    # Results an Original roll gives before the Final roll is looked up (3.606 fn 1).
    original: list[OriginalRoll] = []
    drms: list[Drm] = []
    footnotes: dict[str, str] = {}
    secret: bool = False  # rolls on it are the roller's secret until revealed
    missing: bool = False  # the rules text lacks this table; the host must supply it
    # One roll per unit in a pass through the sequence (APD 3.31: "Each weapon/Vehicle
    # may make only one Repair attempt"; a wounded leader is rolled for once), one per
    # side (APD 3.5: "three Reinforcement drs (one each on Rows A-C)"), or one per item
    # the player names (Sicily 3.61424: a dr "for each type of special ammunition which
    # is depleted ... for that weapon"; PHD C5.28: "once per item and location").
    once: Literal["unit", "side", "item"] | None = None
    # The rule that makes a unit's roll its one, cited when a second is refused, where it
    # is not the table's own (PHD C5.13a: "No unit may redeploy more than once per
    # ConPh", the Redeployment Table being C5.14's).
    once_rule: RuleRef | None = None
    # Rolled only for a retained unit of these kinds / statuses (APD 3.1: each wounded
    # leader; 3.3: each malfunctioned weapon).
    for_units: UnitFilter | None = None
    # When a side may not roll on it (Sicily 3.61424 EXC: "British weapons prior to July
    # 15 AM CG Date"): each window's ``applies_to`` names the sides it binds.
    date_windows: list[DateWindow] = []
    # The rules make the roll compulsory ("must make a dr", "makes a dr ... for each
    # wounded leader"): a side's Done at its step waits until it is made, once per side
    # or for each unit it is rolled for (``once``), or for each RG held that
    # ``per_group`` names (PHD C5.34); finishing ahead stops before it.
    required: bool = False
    # Compulsory only for the units it names, offered for the others (Sicily 3.6051:
    # the crew of a vehicle Abandoned in No-Man's Land "must attempt Escape per 3.606",
    # marked so; whether another unit stands where it must escape is the map's); owed
    # as ``required`` is for those units, citing the rule of the first entry that
    # matches the unit (the marker's own rule: 3.6051 for the crew line Refit marks,
    # the 3.6056 chart for a unit its owner marks).
    required_for: list[OwedFor] = []
    # What a side may do instead of rolling on it (PHD C5.24a: "OR promote a leader out
    # of the Ranks"); one excludes the other in a pass.
    instead: InsteadOfRoll | None = None
    # Rolled for what the scenario just played did ("each Baz/Psk/FT/DC ... removed from
    # play ... in the previous TM Scenario", PHD C5.26b): not in a pass where no
    # scenario was played (a Lull).
    after_scenario: bool = False
    # What a repaired item may not exceed (PHD C5.26b's FT/DC per Assault Engineer
    # squad-equivalent): a roll for an item it names is refused past it.
    repair_cap: RepairCap | None = None
    # Who may roll on it, and when (Sicily 3.61426: "If this is a Night CG Date ... all
    # mobile Isolated British Tanks must now attempt Escape"): the side, its
    # nationalities, a Night or the Initial Scenario's date.  Elsewhere it is neither
    # offered nor owed.
    offer_when: Condition | None = None
    # The RGs its results give (effect ``group``) are of this group kind, as if a roll
    # of their own had said so (effect ``type``): APD 3.6 "for each German infantry (Row
    # A) and armor (Row B) Reinforcement Group" — the row that gave a group says which
    # Leader Table column its DR reads (condition ``rolled_types``).
    gives_type: Slug | None = None
    # After each roll on it, the unit rolled for is settled by these rows (their
    # ``units``, ``possessed`` and ``effects`` only), as a step's ``settles`` would:
    # Sicily 3.6141c read after 3.6141b, an AFV under Recall that the roll made Mobile is
    # no longer under Recall unless Isolated; 3.6061, a unit that survives its Escape
    # DR "and all Equipment it took with it" are no longer Isolated.  A roll for a
    # vehicle's weapon settles the vehicle: 3.6142 footnote * "if MA, the AFV is
    # immediately Recalled (3.6141c applies)".
    after_roll: list[Settle] = []
    note: str | None = note_field()
    # The leaders a ``battle_harden`` result of this table may Battle Harden exclude
    # those whose line names one of these words (a whole word, any case): PHD C5.24 "to
    # Battle Harden one Retained Non-Wounded Infantry Leader", not an Armour Leader.
    leaders_not_named: list[str] = []
    # At most one roll in a pass per RG of the side's OB that this names (PHD C5.34:
    # "To determine the Ammunition of each OBA Module requisitioned, make a DR for each").
    per_group: PerGroup | None = None
    # A roll "once: item" must name one of these weapons (a whole word of the item, any
    # case), by side: PHD C5.26b "for each Baz, Psk, FT, and DC of its nationality".
    item_names: dict[Slug, list[str]] = {}
    item_names_rule: RuleRef | None = None
    # An item of a location rolled for first, the others of that location barred until
    # it is cleared (PHD C5.28's A-P mines).
    cleared_first: ClearedFirst | None = None
    # ... and those that came with an RG whose units are of these kinds (its chart
    # row's ``unit_kind``): PHD C5.24 "Infantry Leader", a leader of an AFV RG (C5.33's
    # Armour column) being an Armour Leader whatever its line says.
    leaders_not_of_group_kinds: list[UnitKind] = []
    # One roll made for a stack of the units it is rolled for (Sicily 3.606, 3.613).
    stack: StackRoll | None = None
    # Its DR is read die by die, not on its sum (C1.31's error DR, Sicily British chart
    # footnote i): the result says what each die gives; the rows' words stand beside.
    apart: DiceApart | None = None
    # Rolled only once every other side has finished the step, citing the rule (Sicily
    # British chart footnote i: the Bombardment "after all on-map setup is completed").
    others_done_first: RuleRef | None = None
    # Rolled only for a unit an earlier roll's result sends to it (Sicily 3.613 †).
    after: AfterRoll | None = None
    # The units a result of it eliminates are losses of the scenario just played (PHD
    # C5.1 "All ConPh losses count for the previous scenario for all purposes"): their
    # CVP (``Module.cvp_per_kind``) join its CVP lost, for both sides to see.
    losses_count: RuleRef | None = None

    @model_validator(mode="after")
    def _stack(self) -> Table:
        if self.stack is None:
            return self
        if self.for_units is None or self.once != "unit":
            raise ValueError("'stack' is for a table rolled once for each unit ('for_units')")
        ranges = {r.range for r in self.rows}
        for r in self.stack.random:
            if r not in ranges:
                raise ValueError(f"stack.random: '{r}' is not a row's range")
        rolls = {o.roll for o in self.original}
        for n in self.stack.random_original:
            if n not in rolls:
                raise ValueError(f"stack.random_original: {n} is not one of the table's 'original'")
        return self

    @model_validator(mode="after")
    def _apart(self) -> Table:
        if self.apart is not None and self.dice != "DR":
            raise ValueError("'apart' reads the two dice of a DR: the table's dice are 'DR'")
        return self

    @model_validator(mode="after")
    def _cleared_first(self) -> Table:
        first = self.cleared_first
        if first is None:
            return self
        if self.once != "item":
            raise ValueError(
                "'cleared_first' reads the items rolled for: the table is 'once: item'"
            )
        if first.clears not in [r.range for r in self.rows]:
            raise ValueError(f"cleared_first.clears: '{first.clears}' is not a row's range here")
        return self

    @model_validator(mode="after")
    def _after_roll(self) -> Table:
        for row in self.after_roll:
            if row.sides or row.after_dates or row.result_yes:
                raise ValueError(
                    "'after_roll' settles the unit rolled for: its rows give 'units', "
                    "'possessed', 'effects' and 'rule' only"
                )
        if self.after_roll and self.for_units is None:
            raise ValueError("'after_roll' is for a table rolled for units ('for_units')")
        return self

    @model_validator(mode="after")
    def _rows(self) -> Table:
        if self.required and self.once not in ("side", "unit") and self.per_group is None:
            raise ValueError(
                "a required roll says how often it is made ('once: side' or 'unit', or "
                "'per_group': for each RG held)"
            )
        if self.required_for and (self.once != "unit" or self.for_units is None):
            raise ValueError(
                "'required_for' makes a roll owed for some units: only for a table rolled "
                "once for each unit ('once: unit', 'for_units')"
            )
        if self.required and self.once == "unit" and self.for_units is None:
            raise ValueError("a roll required for each unit names its units ('for_units')")
        if self.missing:
            return self  # its rows, if any, are what the text keeps: they prefill the form
        if not self.rows:
            raise ValueError("a table needs rows (or 'missing: true' if the rules lack it)")
        drm_ids = {d.id for d in self.drms}
        for i, row in enumerate(self.rows):
            said = [*row.effects, *([row.effect] if row.effect else [])]
            for effect in [*said, *row.column_effects.values()]:
                unknown = [d for d in effect.if_drms if d not in drm_ids]
                if unknown:
                    raise ValueError(
                        f"rows[{i}] ({row.range}): 'if_drms' names DRMs the table lacks: {unknown}"
                    )
            if self.columns:
                if row.results is None or set(row.results) != set(self.columns):
                    raise ValueError(
                        f"rows[{i}] ({row.range}): results must name exactly the columns "
                        f"{self.columns}"
                    )
            elif row.results is not None:
                raise ValueError(f"rows[{i}] ({row.range}): 'results' needs 'columns'")
        bounds = sorted((r.bounds for r in self.rows), key=_sort_key)
        for (lo1, hi1), (lo2, hi2) in zip(bounds, bounds[1:], strict=False):
            if hi1 is None or lo2 is None or lo2 <= hi1:
                raise ValueError(f"rows overlap: {_fmt(lo1, hi1)} and {_fmt(lo2, hi2)}")
            if lo2 != hi1 + 1:
                raise ValueError(f"rows leave a gap between {hi1} and {lo2}")
        low, high = DICE_RANGE[self.dice]
        first, last = bounds[0], bounds[-1]
        if first[0] is not None and first[0] > low:
            raise ValueError(f"no row for a final {self.dice} of {low}")
        if last[1] is not None and last[1] < high:
            raise ValueError(f"no row for a final {self.dice} of {high}")
        for side_id, col in self.column_for_side.items():
            if col not in (self.columns or []):
                raise ValueError(f"column_for_side.{side_id}: '{col}' is not a column")
        for kind, col in self.column_for_kind.items():
            if col not in (self.columns or []):
                raise ValueError(f"column_for_kind.{kind}: '{col}' is not a column")
        if self.column_for_kind:
            kinds = self.for_units.kinds if self.for_units else None
            if kinds is None or set(kinds) - set(self.column_for_kind):
                raise ValueError(
                    "column_for_kind reads the kind of the unit rolled for: the table needs "
                    "'for_units' whose kinds each have a column"
                )
        for i, row in enumerate(self.rows):
            for col in row.column_effects:
                if col not in (self.columns or []):
                    raise ValueError(
                        f"rows[{i}] ({row.range}): column_effects: '{col}' is not a column"
                    )
        if self.for_units is not None:
            for i, row in enumerate(self.rows):
                if row.effect is None and not row.effects and not row.column_effects:
                    raise ValueError(
                        f"rows[{i}] ({row.range}): a roll for a unit names its effect "
                        "(e.g. {do: none})"
                    )
        ids = [d.id for d in self.drms]
        if len(ids) != len(set(ids)):
            raise ValueError("DRM ids repeat")
        for d in self.drms:
            for other in d.excludes:
                if other not in ids or other == d.id:
                    raise ValueError(f"drms.{d.id}.excludes: '{other}' is not another DRM here")
        self._check_original(low, high)
        if self.offer_when is not None:
            extra = set(self.offer_when.model_dump(exclude_none=True)) - set(TABLE_OFFER_FIELDS)
            if extra:
                raise ValueError(
                    f"offer_when: a table is offered by {', '.join(TABLE_OFFER_FIELDS)} only, "
                    f"not {', '.join(sorted(extra))}"
                )
        return self

    def _check_original(self, low: int, high: int) -> None:
        rolls = [o.roll for o in self.original]
        if len(rolls) != len(set(rolls)):
            raise ValueError("original: a roll repeats")
        for o in self.original:
            if not low <= o.roll <= high:
                raise ValueError(f"original: no {self.dice} rolls {o.roll}")
            if self.columns and (o.results is None or set(o.results) != set(self.columns)):
                raise ValueError(f"original {o.roll}: results must name the columns {self.columns}")
            if not self.columns and o.results is not None:
                raise ValueError(f"original {o.roll}: 'results' needs 'columns'")
            if self.for_units is not None and not (o.effect or o.effects or o.column_effects):
                raise ValueError(f"original {o.roll}: a roll for a unit names its effect")

    def result_row(self, final: int, original: int | None = None) -> TableResult:
        """The result of a roll: what its Original roll gives where the table says
        (``original``), else the row of its Final roll."""
        for o in self.original:
            if o.roll == original:
                return o
        return self.lookup(final)

    def lookup(self, final: int) -> TableRow:
        """The row for a final roll; open ends catch modified rolls beyond the printed
        range, and a final value beyond a closed end takes the nearest row."""
        for row in self.rows:
            lo, hi = row.bounds
            if (lo is None or final >= lo) and (hi is None or final <= hi):
                return row
        ordered = sorted(self.rows, key=lambda r: _sort_key(r.bounds))
        return ordered[0] if final < (ordered[0].bounds[0] or 0) else ordered[-1]


def _sort_key(b: tuple[int | None, int | None]) -> int:
    return -(10**6) if b[0] is None else b[0]


def _fmt(lo: int | None, hi: int | None) -> str:
    if lo is None:
        return f"≤{hi}"
    if hi is None:
        return f"≥{lo}"
    return str(lo) if lo == hi else f"{lo}-{hi}"


# --------------------------------------------------------------------------- sides, dates


class Side(Strict):
    id: Slug
    name: str
    nationalities: list[str] = []
    note: str | None = note_field()


class CGDate(Strict):
    id: Slug
    label: str  # "July 14 AM", "0930 hrs", "Dec 6 Midday"
    day: str  # calendar day, for per-day limits
    night: bool = False
    weather: str | None = None  # EC/weather where the rules fix it
    base_points: dict[Slug, int] | None = None  # per side, for the base-table mechanism
    vp_required: int | None = None  # for the VP-differential mechanism
    initial: bool = False  # the date of an Initial Scenario
    note: str | None = note_field()


# What a CG variant's start gives, field by field; a field the rules documents lack is
# declared in ``Start.missing`` and supplied by the players in the app.
StartField = Literal[
    "points",  # initial points of the currency (CPP, TP, PP) per side
    "fortification_points",  # initial FPP/DSP per side
    "ob",  # the Initial-Scenario OB per side (declared missing, it may keep its printed text)
    "san",
    "elr",
    "sets_up_first",
    "moves_first",
    "misr",  # the Initial Scenario's special rules (as text)
    "weather",  # its EC/weather (as text)
    "attack_chits",  # the variant's Attack-chit maxima (``Variant.attack_chits``)
    "balance",  # the CG Balance provisions (as text, one per line), shown all the CG
]


class InitialOB(Strict):
    """One side's Initial-Scenario OB."""

    rgs: list[str] = []  # RG IDs: on the RG Purchase Record, not counted toward limits
    units: list[str] = []  # other units it holds, as printed ("8-1 leader", "2 x 4-6-7")
    text: str | None = None  # the OB as the rules print it


class Start(Strict):
    """Where the CG starts: what each side has for its Initial Scenario."""

    rule: RuleRef
    points: dict[Slug, int] = {}
    fortification_points: dict[Slug, int] = {}
    ob: dict[Slug, InitialOB] = {}
    san: dict[Slug, int] = {}
    elr: dict[Slug, int] = {}
    sets_up_first: Slug | None = None
    moves_first: Slug | None = None
    misr: list[str] = []
    weather: str | None = None
    # The CG's Balance provisions, for the player who takes the side both wished (A26.4;
    # APD 1.1): each scenario sheet of the CG shows them.
    balance: list[str] = []
    missing: list[StartField] = []
    # The rule of a start field where it is not the start's own (APD 1.1 "CG BALANCE
    # PROVISIONS"): what the players read beside the datum to supply.
    rules: dict[StartField, RuleRef] = {}
    note: str | None = note_field()


class Variant(Strict):
    id: Slug
    name: str
    start_date: Slug
    last_date: Slug
    attack_chits: dict[Slug, int] | None = None  # max Attack chits per side over the CG
    start: Start
    rule: RuleRef | None = rule_field()
    note: str | None = note_field()


# --------------------------------------------------------------------------- currency


class LossPoints(Strict):
    """3.6162-style bonus: a side whose prior-scenario CVP losses are ≥ ratio× and ≥
    margin more than the opponent's adds a roll."""

    ratio: int = Field(gt=0)
    margin: int = Field(ge=0)
    dice: Literal["dr", "DR"]
    rule: RuleRef


class BaseTableReplenishment(Strict):
    mechanism: Literal["base_table"]  # each date's base points (replenish.py reads the kind)
    rule: RuleRef
    # The rule of the table of each date's base points, cited on the base's line (Sicily
    # 3.6161 "CPP BASE NUMBER"); none: ``rule``.
    base_rule: RuleRef | None = None
    loss_points: LossPoints | None = None
    note: str | None = note_field()


class TableRollReplenishment(Strict):
    mechanism: Literal["table_roll"]  # a roll on a table (replenish.py reads the kind)
    rule: RuleRef
    table: Slug
    no_roll_on_initial: bool = True
    note: str | None = note_field()


class VpDifferentialReplenishment(Strict):
    """Purchase points = (VP required for the previous scenario − VP amassed) + CVP
    suffered in the CG so far; negative results count as 0 (seed 002, 2.91–2.92)."""

    mechanism: Literal["vp_differential"]  # from the VP differential (replenish.py reads it)
    rule: RuleRef
    side: Slug
    negative_ignored: bool = True
    note: str | None = note_field()


Replenishment = Annotated[
    BaseTableReplenishment | TableRollReplenishment | VpDifferentialReplenishment,
    Field(discriminator="mechanism"),
]


class CarryOver(Strict):
    retained: bool = True  # unspent points carry to the next date
    # On these dates the points left when the purchase step ends are lost (3.617 EXC:
    # "Any CPP remaining after this step on the 14 PM date are lost").
    lost_after_dates: list[Slug] = []
    rule: RuleRef | None = None
    note: str | None = note_field()


class Forgo(Strict):
    """A side may forgo part of its replenishment on a date; what it forgoes comes off
    the other side's base (3.616 EXC: "On the July 14 PM date of CG III the British
    player may fore go all or a portion of the allotted CPP. The number of CPP fore gone
    is subtracted from the Axis CPP base.")."""

    variants: list[Slug]
    date: Slug
    side: Slug
    from_side: Slug
    rule: RuleRef


class Currency(Strict):
    code: str  # CPP, TP, PP
    name: str
    replenishment: Replenishment
    carry_over: CarryOver = CarryOver()
    forgo: list[Forgo] = []
    # The rule that subtracts an RG's cost from the side's points (PHD C5.31 "TP Cost"):
    # the "not enough" refusal cites it.
    spend_rule: str | None = None


# --------------------------------------------------------------------------- RG charts


class MarkedOnly(Strict):
    """A price only for the RGs its side's chart marks with ``footnote``, where that
    chart marks any RG with it (PHD RG footnote a: "Available for on map set up the TM
    Scenario of purchase": the RGs a chart does not mark a are not).  A chart that marks
    none says nothing of it, and every RG the price ``applies_to`` is offered it.  Not
    where the price's ``printed_when`` holds (PHD I2: German RGs set up on board in the
    Initial Scenario)."""

    footnote: str = Field(min_length=1, max_length=4)
    rule: RuleRef
    note: str | None = note_field()


class CostVariant(Strict):
    """An alternative price: the printed cost × factor, rounded (3.6175), or a cost the
    chart prints for that variant (``ReinforcementGroup.costs``)."""

    id: Slug
    label: str
    short: str | None = None  # the RG chart's column header ("On-map +20%"); else label
    factor: str | None = None  # "4/5", "1.2": exact fractions
    rounding: Literal["FRD", "FRU"] = "FRD"
    applies_to: Condition | None = None
    implies: str | None = None  # what the variant obliges (e.g. "set up in Reserve")
    # What it further obliges of one side, said after ``implies`` on that side's lines
    # only (Sicily 3.6175's On-map price: an Axis RG is not set up in Reserve...; a
    # British RG only if >= one British Setup Area is on the map).
    implies_by_side: dict[Slug, str] = {}
    on_map: bool = False  # the price of on-map set-up (free for setup_on_map_free RGs)
    recon_drm: int = 0  # a Recon RG bought at this price adds this to its Recon dr
    # Points added to the price (after ``factor``): PHD RG footnote p "Two additional
    # TPs per pre-Registered hex purchased with a module".
    adds: int = Field(default=0, ge=0)
    # Where this holds, the variant costs the printed cost, whatever the chart prints
    # for it (PHD I2: German RGs set up on board at no extra cost in the Initial
    # Scenario).  Reads ``sides``, ``initial_scenario`` and the RG's own conditions.
    printed_when: Condition | None = None
    # A choice among such prices is required: an RG this variant applies to is not
    # offered at its bare printed cost (PHD C5.32: every RG is requisitioned for
    # On-Map set-up, In Reserve or as Reinforcements).
    replaces_printed: bool = False
    # Not sold to these sides while the side's own Setup Area list of the module's
    # ``setup_areas.step`` names none: Sicily 3.6175 "A British RG may be purchased for
    # Standard On-Map Setup only if there is >= one Set Up Area on the Map" (read from
    # the British 3.605 list, ``Seat.setup_areas``; never listed: sold, the app not
    # knowing).
    needs_setup_area: list[Slug] = []
    rule: RuleRef | None = rule_field()
    note: str | None = note_field()
    # The price is that of the variant ``over`` (an earlier one) plus ``adds``, for the
    # RGs offered ``over``: PHD C5.32's "cumulative totals" ("Set up <2 hexes from enemy
    # FEBA" +1 TP over an On-Map set-up, whatever the chart gives that).
    over: Slug | None = None
    marked_only: MarkedOnly | None = None

    @field_validator("factor")
    @classmethod
    def _factor(cls, v: str | None) -> str | None:
        if v is not None and Fraction(v) <= 0:
            raise ValueError("factor must be positive")
        return v


class AddLater(Strict):
    """A further item bought, secretly and at a purchase step, for an RG the side
    bought on an earlier CG date and still holds (PHD RG footnote p: "If the OBA
    module is unused during current TM Scenario, an additional two TP expenditure may
    be made to requisition each additional Pre-Registered hex"): ``cost`` each, at most
    ``limit`` per RG, counting those each price bought with it (``with_variants``).
    What the app cannot know (the module unused, on the map) the player affirms
    (``affirms``)."""

    id: Slug
    label: str
    cost: int = Field(ge=1)
    applies_to: Condition
    limit: int = Field(ge=1)
    with_variants: dict[Slug, int] = {}
    affirms: str
    rule: RuleRef | None = rule_field()
    note: str | None = note_field()


class ComesWith(Strict):
    """Units an RG brings besides its own ("Each Gun is accompanied by a 2-2-8 crew")."""

    unit: str
    kind: UnitKind
    per: Literal["group", "unit"] = "group"  # one, or one for each unit of the RG
    count: int = Field(default=1, ge=1)
    # The RG marked so (its RG Purchase Record state), these units leave the retained
    # forces (Sicily 3.6046: "If an OBA RG has been used ... remove its radio").
    leaves_when: list[Literal["eliminated", "withdrawn", "used", "fired"]] = []
    rule: RuleRef | None = rule_field()


class ChartComesWith(ComesWith):
    """What each RG of a chart that ``applies_to`` selects brings besides its units."""

    applies_to: Condition


class UsesPerScenario(Strict):
    """How many of an RG one CG scenario may use: ``new_dates``, the new CG Dates since
    the last CG-scenario end."""

    count: Literal["new_dates"]
    rule: RuleRef


class RecordedHex(Strict):
    """A hex the buyer records, secretly, on an RG's line when buying it (Sicily British
    chart footnote i: "When the British player purchases a pre-game Bombardment, he
    records a secret Pre-Registered hex for it"): the purchase is refused without it."""

    label: str  # the rules' words, shown to the player: "Pre-Registered hex"
    rule: RuleRef
    # Recorded again on each later CG Date the RG is held, before its owner may finish
    # this step (British chart footnote j: "Secretly record the hex prior to German
    # setup", for an Offboard Observer retained from an earlier date).
    each_date_before: str | None = None  # a step id ("3.622")


class ReinforcementGroup(Strict):
    id: str = Field(pattern=r"^[A-Z][A-Za-z0-9]*$")
    type: str  # Group Type
    full: int | None = None  # number of units at Full strength
    depleted: int | None = None  # at Depleted strength
    strength_text: str | None = None  # the printed Full/Depl cell, when not plain
    units: str  # Unit Type(s) as printed
    # The unit types the RG's units are shared among, evenly, each a line of its own in
    # the retained forces (Sicily British I1 "4-5-8;4-5-7;4-4-7 (4/3 each)": 12 = 4 of
    # each); empty: they are all of the one type ``units`` names.
    unit_types: list[str] = []
    # What the RG's units are (squads, Guns, vehicles...): the retained forces it joins
    # as, counted by the HIP cap and matched by unit tables (None: no units, e.g. OBA).
    unit_kind: UnitKind | None = None
    cost: int | None = Field(default=None, ge=0)
    costs: dict[Slug, int] = {}  # printed alternative costs by cost variant id
    date_max: int | None = Field(default=None, ge=0)  # per CG date (None: no limit)
    cg_max: dict[Slug, int] = {}  # per variant id
    tags: list[Slug] = []
    footnotes: list[str] = []  # letters of the chart's footnotes
    depletable: bool = False
    grants: dict[Literal["fortification_points", "san"], int] = {}
    comes_with: list[ComesWith] = []
    sw: dict[str, int] = {}  # SW allotment at Full strength (3.6182)
    # May set up on map on its purchase date at no extra cost: a cost variant for
    # on-map set-up is not offered for it (Sicily chart footnotes f/g).
    setup_on_map_free: bool = False
    # At most this many of the RG are used in one CG scenario: "new_dates", the new CG
    # Dates since the last CG-scenario end (Sicily British chart footnote i: "The
    # maximum number of Bombardments useable per CG scenario is equal to the number of
    # new CG Dates since the last CG-Scenario End"); the scenario sheet says how many.
    uses_per_scenario: UsesPerScenario | None = None
    note: str | None = note_field()
    # A hex recorded with the purchase (British chart footnote i's Pre-Registered hex).
    records_hex: RecordedHex | None = None

    @model_validator(mode="after")
    def _strength(self) -> ReinforcementGroup:
        if self.cost is None and not self.costs:
            raise ValueError(f"RG {self.id}: no cost")
        if self.unit_types:
            for label, n in (("full", self.full), ("depleted", self.depleted)):
                if n is not None and n % len(self.unit_types):
                    raise ValueError(
                        f"RG {self.id}: {label} strength {n} cannot be shared evenly among "
                        f"its {len(self.unit_types)} unit types"
                    )
        if self.full is not None and self.depleted is not None and self.depleted > self.full:
            raise ValueError(f"RG {self.id}: depleted strength exceeds full strength")
        return self


class DateWindow(Strict):
    kind: Literal["date_window"]
    applies_to: Condition
    not_before: Slug | None = None  # first date it may be bought
    not_after: Slug | None = None  # last date it may be bought
    rule: RuleRef
    note: str | None = note_field()


class CountLimit(Strict):
    """At most ``max`` purchases of the RGs ``applies_to`` selects, counted per CG date,
    per calendar day, or held in the OB at once."""

    kind: Literal["count_limit"]
    applies_to: Condition
    per: Literal["date", "day", "held"]
    max: int = Field(ge=0)
    rule: RuleRef
    note: str | None = note_field()


class Prerequisite(Strict):
    """``applies_to`` may not be bought until ``count`` purchases of ``requires``."""

    kind: Literal["prerequisite"]
    applies_to: Condition
    requires: Condition
    count: int = Field(gt=0)
    count_by_variant: dict[Slug, int] = {}  # where the count differs per CG variant
    rule: RuleRef
    note: str | None = note_field()


class RequiresRetained(Strict):
    """May be bought only while the side retains units with these tags."""

    kind: Literal["requires_retained"]
    applies_to: Condition
    retained_tags: list[Slug]
    rule: RuleRef
    note: str | None = note_field()


class ResultCap(Strict):
    """No more purchases over the CG of the RGs ``applies_to`` selects than the side's
    total of a scenario-result figure over the scenarios played (PHD C5.31 RG footnote
    z: "Replacement Crews are only requisitioned for Gun/Vehicle crews that were
    eliminated during play")."""

    kind: Literal["result_cap"]
    applies_to: Condition
    field: Slug  # a per-side whole-number result field (``result_fields``)
    rule: RuleRef
    note: str | None = note_field()


Restriction = Annotated[
    DateWindow | CountLimit | Prerequisite | RequiresRetained | ResultCap,
    Field(discriminator="kind"),
]


class PostPurchaseRoll(Strict):
    """A secret roll made for each RG bought that ``applies_to`` selects."""

    table: Slug
    applies_to: Condition | None = None
    column: str | None = None  # which column of a multi-column table this RG reads
    # How many rolls: ``count`` for the RG, or one for each of its units / SW.
    per: Literal["group", "unit", "sw"] = "group"
    # With ``per: unit``: only the units whose name begins with one of these count
    # ("one DR ... per PzIV", APD 3.5 note 2).
    unit_names: list[str] = []
    count: int = Field(default=1, ge=1)
    rule: RuleRef
    note: str | None = note_field()


class ChartEntry(Strict):
    """Where and when every RG of a chart enters, where the rules fix it for all of them
    (APD 3.8: "All reinforcements enter on/after Turn 1 along the owning side's Friendly
    Board Edge"): written, with its rule, as the entry area of each new line of the
    side's RG Purchase Record (the owner may correct it)."""

    area: str = Field(min_length=1, max_length=100)
    rule: RuleRef
    # How the leaders an RG's rolls gave it enter (APD 3.6 "Each Leader must enter with a
    # unit of his Group"): said beside the RG's entry on its owner's entry step.
    leaders: EntryLeaders | None = None


class EntryLeaders(Strict):
    """What the rules say of the leaders an RG received, where it enters
    (``ChartEntry.leaders``): ``says`` after the leaders' names ("9-2 leader enters with a
    unit of his Group"), citing ``rule``."""

    says: str = Field(min_length=1, max_length=120)
    rule: RuleRef


ChartEntry.model_rebuild()


class RGChart(Strict):
    side: Slug
    title: str
    rule: RuleRef
    groups: list[ReinforcementGroup] = []
    entry: ChartEntry | None = None
    footnotes: dict[str, str] = {}
    restrictions: list[Restriction] = []
    # Units the RGs a condition selects bring besides their own, whoever supplies the
    # chart (PHD C5.31 RG footnote c: "Each German MMG/HMG comes with a 2-3-8 HS").
    comes_with: list[ChartComesWith] = []
    missing: bool = False
    note: str | None = note_field()
    # The chart's own names of its two maxima, in the refusal a player reads (PHD C5.31
    # "Scen Max", "TM Max"); None: "CG Date Max" / "CG maximum".
    date_max_name: str | None = None
    cg_max_name: str | None = None
    # The footnote whose words say what a ``setup_on_map_free`` RG's price obliges
    # (Sicily Axis chart footnote g, British f: "Available for on-map setup on CG Date
    # of purchase at no extra cost."), read where the set-up step lists the side's RGs.
    setup_on_map_free_footnote: str | None = None

    @model_validator(mode="after")
    def _groups(self) -> RGChart:
        free = self.setup_on_map_free_footnote
        if free is not None and free not in self.footnotes:
            raise ValueError(f"setup_on_map_free_footnote '{free}' is not in footnotes")
        if self.missing and self.groups:
            raise ValueError("a chart declared missing has no groups")
        if not self.missing and not self.groups:
            raise ValueError("a chart needs groups (or 'missing: true')")
        ids = [g.id for g in self.groups]
        dup = {i for i in ids if ids.count(i) > 1}
        if dup:
            raise ValueError(f"RG IDs repeat: {sorted(dup)}")
        for g in self.groups:
            for letter in g.footnotes:
                if letter not in self.footnotes:
                    raise ValueError(f"RG {g.id}: footnote '{letter}' is not in footnotes")
        return self


# --------------------------------------------------------------------------- fortifications, recon


class CostTier(Strict):
    """One price of a fortification whose cost depends on what it is for ("3/2/1": a
    3-, 2- or 1-squad-capacity Foxhole)."""

    label: str
    cost: int = Field(ge=0)
    # What one such HIP counter takes of the HIP cap, in the cap's units (PHD C5.35
    # note 3: "No > 10% ... of Infantry squad-equivalents": a Squad 1, a HS or Crew 1/2,
    # an AFV or SMC nothing).
    weight: str = "1"

    @field_validator("weight")
    @classmethod
    def _weight(cls, v: str) -> str:
        if Fraction(v) < 0:
            raise ValueError("weight must not be negative")
        return v


class HipCap(Strict):
    """No more than ``fraction`` of a side's retained squads (squad-equivalents: a HS
    counts half) may set up HIP, rounded as the rule says."""

    fraction: str  # "1/10"
    rounding: Literal["FRD", "FRU"]
    of: Literal["squads", "squad_equivalents"]
    # The cap binds "in a daytime Scenario" only (3.619 footnote b): none at Night.
    day_only: bool = False
    # The units of RGs bought on the scenario's date at these prices (cost variant
    # ids) are not counted (PHD C5.35 note 3: "non-reserve ... squad-equivalents").
    not_cost_variants: list[Slug] = []
    rule: RuleRef

    @field_validator("fraction")
    @classmethod
    def _fraction(cls, v: str) -> str:
        if not 0 < Fraction(v) <= 1:
            raise ValueError("fraction must be in (0, 1]")
        return v


class FortLevels(Strict):
    """A fortification bought as a Level (PHD C5.35 note 8, Booby Traps: "Creates Level
    C Booby Traps, or increases a pre-existing Level to the next Level"): each one
    bought raises the side's Level by one, lowest first; none is bought past the
    highest.  ``reduced_to``: at the start of each later CG scenario a Level above it
    is reduced to it (C5.25b: "> Level B ... reduced to Level B")."""

    names: list[str] = Field(min_length=2)  # lowest first: ["C", "B", "A"]
    reduced_to: str | None = None
    rule: RuleRef

    @model_validator(mode="after")
    def _reduced(self) -> FortLevels:
        if self.reduced_to is not None and self.reduced_to not in self.names:
            raise ValueError(f"reduced_to '{self.reduced_to}' is not one of {self.names}")
        return self


class PriceFigure(Strict):
    """A figure printed on the counter bought, which its price adds up (PHD C5.35 note
    4: a Pillbox costs "the Capacity, the CA DRM, and the NCA DRM together")."""

    id: Slug
    label: str
    min: int = Field(default=0, ge=0)
    max: int = Field(default=99, ge=0)


class InPlaceOf(Strict):
    """A fortification placed where another stood on the previous CG date, which it
    replaces (Sicily 3.619 footnote e: "A trench may only be placed in a hex which
    contained a fox-hole on the previous CG date. When the trench is placed the foxhole
    is removed"): bought for its place (``where``, the rules' word), one per place."""

    item: Slug
    where: str = "Location"


class FortificationItem(Strict):
    id: Slug
    label: str
    sides: list[Slug] | None = None  # only these sides may buy it (None: both)
    cap_sides: list[Slug] | None = None  # the per-CG/date caps bind only these sides
    # One price; or ``tiers``; or ``figures`` (the price is their sum); or none, where
    # the rules text lost it: then a ``missing`` entry supplies
    # ``fortifications.items.<id>.cost`` and the item is not bought until it is.
    cost: int | None = Field(default=None, ge=0)
    tiers: list[CostTier] = []
    figures: list[PriceFigure] = []
    levels: FortLevels | None = None  # bought as a Level (PHD Booby Traps)
    per_cg_max: int | None = None
    per_date_max: int | None = None
    requires_retained: list[Slug] = []
    hip: HipCap | None = None
    # Built on something of the previous CG date (Sicily 3.619 footnote e: a Trench
    # "only in a hex that held a Foxhole on the previous CG Date"): not bought while
    # preparing an Initial Scenario, which has no previous date.
    not_for_initial: bool = False
    note: str | None = note_field()
    rule: RuleRef | None = None
    in_place_of: InPlaceOf | None = None
    # The rule that keeps it to ``sides``, where a note of its own does (PHD C5.35 note
    # G: "Only available for German requisition"): the refusal cites it.
    sides_rule: RuleRef | None = None

    @model_validator(mode="after")
    def _price(self) -> FortificationItem:
        if sum((self.cost is not None, bool(self.tiers), bool(self.figures))) > 1:
            raise ValueError(f"fortification {self.id}: give one of 'cost', 'tiers' or 'figures'")
        return self

    @property
    def priced(self) -> bool:
        """Whether the module (or the players) give its price."""
        return self.cost is not None or bool(self.tiers) or bool(self.figures)

    def price(self, tier: int, figures: Mapping[str, int] | None = None) -> int:
        if self.figures:
            return sum((figures or {}).get(f.id, 0) for f in self.figures)
        return self.tiers[tier].cost if self.tiers else int(self.cost or 0)


class SpendCap(Strict):
    """At most ``max`` points spent on these items per CG date (PHD C5.35 note 6: "A
    side may not spend > 30 DSP per TM Scenario on Mines")."""

    items: list[Slug] = Field(min_length=1)
    max: int = Field(gt=0)
    label: str  # what the items are, in the rules' word ("Mines")
    rule: RuleRef


class Fortifications(Strict):
    currency: str  # FPP, DSP
    rule: RuleRef
    items: list[FortificationItem] = []
    spend_caps: list[SpendCap] = []
    forfeit_unspent: bool = True
    footnotes: dict[str, str] = {}
    note: str | None = note_field()


class ReconOption(Strict):
    cost: int = Field(gt=0)
    drm: int = 0


class Recon(Strict):
    rule: RuleRef
    dice: Literal["dr", "DR"] = "dr"
    options: list[ReconOption] = []  # bought at the recon step itself
    # Recon bought as an RG of each side's chart (Sicily M2, 3.620 with chart footnote
    # r): the RG's limits apply, and each one bought gives one Recon dr at this step.
    group: str | None = None
    not_for_initial: bool = True
    # The Locations of each Idle date's Recon add up with the following dates', until
    # the next CG scenario (3.620).
    cumulative_over_idle: bool = False
    note: str | None = note_field()


# --------------------------------------------------------------------------- initiative


class RollForSide(Strict):
    """A follow-up roll deciding a side (who sets up / moves first)."""

    dice: Literal["dr", "DR"]
    roller: Slug
    rows: list[dict[str, str]]  # [{range: "≤3", side: british}, ...]
    rule: RuleRef

    @model_validator(mode="after")
    def _rows(self) -> RollForSide:
        for row in self.rows:
            if set(row) != {"range", "side"}:
                raise ValueError("each row has exactly 'range' and 'side'")
            parse_range(row["range"])
        return self


class InitiativeResult(Strict):
    id: Slug
    label: str
    scenario: bool  # a scenario is generated
    attackers: list[Slug] = []
    sets_up_first: Slug | RollForSide | None = None
    moves_first: Slug | RollForSide | Literal["sets_up_second"] | None = None
    night: InitiativeResult | None = None  # what differs on a Night date
    loops_to: str | None = None  # step id to repeat from, when no scenario
    # No scenario is played, yet the rules count it as one (PHD C2.0: "Lull: A TM
    # Scenario in which neither side has requisitioned an attack option"): a later
    # rule's "previous scenario" is it, in which no CVP were lost (C5.29's DRM).
    counts_as_scenario: bool = False
    text: str | None = None
    rule: RuleRef | None = rule_field()


class MatrixCell(Strict):
    chits: dict[Slug, Literal["attack", "idle"]]
    result: Slug


class ChitRestriction(Strict):
    side: Slug
    chit: Literal["attack", "idle"]
    forbidden_when: Literal["opponent_has_no_on_map_retained_units"]
    rule: RuleRef
    text: str
    # The opponent's retained forces listing no unit the side may see is the fact by
    # itself (computed from the roster, Sicily 3.6212*), beside the opponent's own
    # declaration; false: the declaration alone decides.
    from_roster: bool = False
    # The opponent's retained forces that are no "on-map Retained units" for
    # ``from_roster``: Equipment rather than units, or off the map (Sicily 3.6212*, with
    # 3.6221's "Retained units, Equipment": an SW or Gun alone; a Pregame Bombardment, an
    # Offboard Observer, an OBA module, an aircraft).
    not_counted: UnitFilter | None = None


class Initiative(Strict):
    rule: RuleRef
    matrix: list[MatrixCell]
    results: list[InitiativeResult]
    restrictions: list[ChitRestriction] = []
    note: str | None = note_field()
    # A side that picks no chit is Idle (PHD C2.0: "A side is assumed to be idle if they
    # did not requisition an attack option during the ConPh"): its Done at the
    # initiative step locks Idle for it; the rule cited in its log line.
    idle_by_default: RuleRef | None = None


# --------------------------------------------------------------------------- steps, results


class UnitExchange(Strict):
    """A step at which each retained unit of ``gives`` leaves the side's forces, and for
    each the owner may mark one unit of ``marks`` ``status``; where no unit of ``marks``
    is held, a unit of ``gives`` stays instead, marked ``kept_status`` (APD 3.2: "Heroes
    ... are eliminated, but for each such eliminated Hero the owning player may Battle
    Harden ... any one MMC. [EXC: If unable to Battle Harden any MMC, the Hero remains
    onboard unwounded instead]"); with no ``kept_status`` it always leaves (Sicily
    3.6112: "each Retained Hero ... is Eliminated")."""

    gives: UnitFilter
    marks: UnitFilter
    status: UnitStatus
    kept_status: UnitStatus | None = None
    # Two of the side's lines recombine (PHD C5.21: "All retained same-class HS with the
    # same strength factors ... must recombine in the location of one or the other HS"):
    # the unit given up and the unit marked bear the same name (two HS of one squad's
    # line: the same class and strength factors), the unit marked has ``status`` taken
    # off (the squad whole again), and a unit of ``gives`` left at Done stays (whether
    # the two are behind the friendly FEBA and within 6 hexes is the map's).
    recombine: bool = False
    # Lines recording HS themselves recombine too, two of one name (PHD C5.21: a "3-3-7"
    # line of half-squads): such a line names no squad (which squad two HS form is ASL's
    # counter data, which the rules text does not print), so the owner names the squad
    # they form, and the line is that squad's.  Only with ``recombine``.
    half_squads: UnitFilter | None = None
    # Neither unit may possess a unit any of these name (C5.21 EXC: "A HS in possession
    # of a MMG/HMG/Lt. MTR/Gun (even if Malfunctioned)").
    not_possessing: list[UnitFilter] | None = None
    # No unit is marked ``status`` twice in one pass of the steps, by this exchange or
    # by a table's result (PHD C5.23 "No unit may Battle Harden more than once during
    # the ConPh", which C5.22's Heroes come under): a unit already marked so in this
    # pass is not offered, and refused citing this rule.
    once_per_pass: RuleRef | None = None
    rule: RuleRef
    note: str | None = note_field()

    @model_validator(mode="after")
    def _recombines(self) -> UnitExchange:
        if self.recombine and self.status not in (self.marks.statuses or ()):
            raise ValueError("a recombination takes off a marker its units carry ('statuses')")
        if self.half_squads is not None and not self.recombine:
            raise ValueError("'half_squads' are lines that recombine: only with 'recombine'")
        return self


class WeaponExchange(Strict):
    """At its step, a side may repair a weapon of ``repairs`` (a disabled, non-captured
    vehicular MG) by eliminating one of its SW of ``gives`` named, for the side, one of
    ``names`` (Sicily 3.61421: "A Disabled, non-Captured, vehicular MG may be
    automatically repaired ... by Eliminating a friendly SW LMG"; PHD C5.27b: "by using
    a German LMG if the AFV is German or US MMG if the AFV is American").  Where the SW
    is on the map (the same Setup Area, the same or an adjacent Location) is the
    players' to judge."""

    repairs: UnitFilter
    gives: UnitFilter
    names: dict[Slug, list[str]]
    rule: RuleRef

    @model_validator(mode="after")
    def _weapons(self) -> WeaponExchange:
        if self.repairs.weapons is None:
            raise ValueError("a weapon exchange repairs a vehicle's weapons ('repairs.weapons')")
        return self


class AreaElimination(Strict):
    """A piece of ``pieces`` is Eliminated at the capture's step only where the chooser
    retains a unit of ``by`` whose line names the piece's Setup Area; a unit of his whose
    line names none leaves it unknown (the map's), and the Elimination stands open."""

    pieces: UnitFilter
    by: UnitFilter
    rule: RuleRef


class AreaCapture(Strict):
    """At ``step`` the side that lists a Setup Area chooses, for each of its opponent's
    units of ``units`` entered in it (or possessed by a unit entered in it), whether it
    is Captured (its line passes to him, marked captured; one already marked captured,
    his own Equipment taken back, loses the marker: "as Captured, if applicable") or
    Eliminated (the line leaves the retained forces), citing ``rule``; his Done waits
    until each is chosen, and a choice may be taken back while the step lasts.  No CVP
    are counted for either: the chart's footnote * on them is cut in the rules text, and
    Loss Points read the CVP lost in the prior CG scenario only (Sicily 3.6162)."""

    step: str
    units: UnitFilter
    rule: RuleRef
    # Which of them the chooser Eliminates only with one of his own units entered in the
    # same Setup Area: Sicily 3.6071 "each such non-vehicle piece may be Eliminated by
    # any Personnel (even an Abandoning crew) Retained in that Setup Area".
    eliminated_by: AreaElimination | None = None


class HiddenFortifications(Strict):
    """Each still-hidden Fortification in a Setup Area of its purchaser's opponent is
    placed on-map at ``step``'s completion (Sicily 3.6073 "Each still-hidden
    Fortification within a Setup Area of the purchaser's opponent is placed on-map").
    Which Fortifications stand hidden, and where, is the map's: at ``setup_areas.step``
    (3.605) the owner states, in secret, for each of his Fortifications of ``items`` not
    yet placed on-map, the Setup Area ID it lies in (none: No-Man's Land or Uncontrolled
    Territory), or that it stands on the map (never hidden, or found); restated each
    time the Setup Areas are (they change from one RePh to the next), his Done waiting
    for each.  At ``step``'s completion each one stated in a Setup Area the opponent
    lists is revealed to him: its purchase, through the gate; one of ``minefields`` only
    by its presence, a public line naming ``minefield_counter`` and the Setup Area
    (3.6073 "Each such minefield is marked by placing a Minefield counter to reveal its
    presence but not its strength"), its purchase kept secret."""

    step: str
    items: list[Slug] = Field(min_length=1)
    minefields: list[Slug] = []
    minefield_counter: str = ""
    rule: RuleRef

    @model_validator(mode="after")
    def _minefields(self) -> HiddenFortifications:
        if not set(self.minefields) <= set(self.items):
            raise ValueError("hidden_fortifications.minefields: each is one of 'items'")
        if bool(self.minefields) != bool(self.minefield_counter):
            raise ValueError("hidden_fortifications: minefields and minefield_counter go together")
        return self


class SetupAreas(Strict):
    """A unit's location on its side's retained forces is the Setup Area it is Retained
    in, named by the ID its side records for it (Sicily 3.605 MARKING THE MAP: "each side
    should record (on the reduced-size map) an ID for each one"): the page asks for it in
    ``label``'s words.  Where two units' Setup Areas are both entered, the mechanisms
    whose rules say "within the same Setup Area" (the step's recombining and exchange,
    3.6111, 3.6112; its remanning, 3.6141a; its weapon exchange, 3.61421) refuse two
    units entered in different ones; a unit whose Setup Area is not entered is the
    players' to judge."""

    label: str
    rule: RuleRef
    # The step at which each side lists the IDs of its Setup Areas (Sicily 3.605 "Each
    # side now determines its Setup Area(s) for the next CG scenario"), kept to the next
    # date until changed: an ID both sides list is refused (3.6051: where two opposing
    # Setup Areas overlap is No-Man's Land, never part of a Setup Area), and that
    # step's page names each of the viewer's units entered in an enemy Setup Area
    # (``enemy_area``).  None: the sides' Setup Areas are not recorded.
    step: str | None = None
    # What the rules say of a unit in an enemy Setup Area, and their rule (Sicily 3.6056
    # chart: "must attempt Escape (3.606)" for Personnel, "is Captured or Eliminated
    # (enemy's choice; 3.6071)" for Equipment and vehicles).
    enemy_area: str = ""
    enemy_area_rule: RuleRef | None = None
    # The rule by which an ID both sides list is refused (Sicily 3.6051).
    overlap_rule: RuleRef | None = None
    # What becomes of the Equipment of one side entered in a Setup Area the other lists
    # (Sicily 3.6056 chart "is Captured or Eliminated (enemy's choice; 3.6071)*", 3.6071
    # "Each piece of Equipment in a Setup Area is Retained (as Captured, if applicable)
    # therein by the side Controlling that Setup Area"): the other side chooses at its
    # step.  None: the players amend their retained forces.
    captures: AreaCapture | None = None
    # What becomes of each side's still-hidden Fortifications in a Setup Area the other
    # lists (Sicily 3.6073).  None: the players place them on the map themselves.
    hidden_fortifications: HiddenFortifications | None = None


class Remanning(Strict):
    """At its step, a side may take ``status`` off a vehicle of ``vehicles`` by naming
    one of its retained units of ``by`` who remans it (Sicily 3.6141a: "Each Abandoned
    vehicle may remain Abandoned, or may be remanned and operated (per A21.22 or
    D5.42/D6.631) by Personnel Retained within the same Setup Area").  A side that
    retains no unit of ``by`` may not take the marker off at all, not even as a
    correction of the line.  Which Setup Area each stands in is the players' to judge."""

    vehicles: UnitFilter
    by: UnitFilter
    status: UnitStatus
    rule: RuleRef

    @model_validator(mode="after")
    def _status(self) -> Remanning:
        if self.status not in (self.vehicles.statuses or ()):
            raise ValueError("a remanning takes off a marker its 'vehicles' carry ('statuses')")
        return self


class Abandoning(Strict):
    """At its step, a side may mark one of its vehicles of ``vehicles`` with ``effect``
    (Abandoned) in one action (APD 2.5 EXC: "the Encircled Vulnerable PRC of an
    Immobile vehicle are Eliminated, leaving the vehicle Abandoned"), the effect's
    ``crew_escapes`` adding its Inherent crew (``Module.inherent_crews``) as a line of
    its own (Sicily 3.6051: "Each manned, Immobile vehicle without functioning MA in
    No-Man's Land becomes Abandoned, and its crew (if any) must attempt Escape per
    3.606").  A vehicle one of whose weapons of
    ``without_functioning`` is recorded in good order is refused ("without functioning
    MA").  Which hex is No-Man's Land is the players' to judge: the action is the
    owner's statement that the vehicle stands in one."""

    vehicles: UnitFilter
    effect: Effect
    without_functioning: list[WeaponKind] = []
    label: str  # the action as the player reads it ("Abandon in No-Man's Land")
    # What the owner states of the vehicle by pressing it, as its confirmation asks and
    # its log line says (Sicily 3.6051 "stands in No-Man's Land"; APD 2.5 EXC "is
    # Encircled and Immobile with Vulnerable PRC").
    statement: str
    rule: RuleRef
    # The kind whose CVP (``Module.cvp_per_kind``, ASL A26.2: supplied by the players)
    # the PRC the press Eliminates count, a loss of the scenario just played where the
    # step counts its losses (``Step.losses_count``): APD 2.5 EXC "the Encircled
    # Vulnerable PRC of an Immobile vehicle are Eliminated" with 2 Note "CVP are
    # recorded normally throughout this phase": its Inherent crew, a crew's CVP.  None:
    # no PRC is Eliminated by it (Sicily 3.6051: the crew leaves to attempt Escape).
    prc_eliminated: UnitKind | None = None

    @model_validator(mode="after")
    def _marks(self) -> Abandoning:
        if self.effect.do != "status" or self.effect.status is None:
            raise ValueError("an abandoning marks the vehicle: effect 'status' with its marker")
        if self.prc_eliminated is not None and self.effect.crew_escapes:
            raise ValueError("an abandoning's crew either escapes or is Eliminated, not both")
        return self


# The effects a step's ``settles`` may have on a unit: the whole line leaves, or is marked.
SETTLE_EFFECTS = ("eliminate", "status", "unmark", "harden")


class Settle(Strict):
    """What becomes of each retained unit of ``units`` (each side's) when the step is
    completed: ``effects``, the first for its kind, as a table result's on the unit
    rolled for (PHD C5.1 "Recalled units are eliminated"; C5.26c "Each
    already-malfunctioned captured weapon is removed from play (disabled if
    vehicular)")."""

    units: UnitFilter
    effects: list[Effect] = Field(min_length=1)
    rule: RuleRef
    # Only these sides' units (None: each side's): Sicily 3.60742 is the Axis's, and
    # the British chart has RGs of the same IDs.
    sides: list[Slug] | None = None
    # Only in the RePh after a CG scenario played on one of these dates (Sicily 3.60741
    # "During the RePh following the July 14 PM CG-scenario").
    after_dates: list[Slug] = []
    # Only where the confirmed result of the CG scenario just played says yes to this
    # yes/no result field: a fact of the map the players record once, with the result
    # (3.60741: whether the British units north of the river were withdrawn; 3.60742:
    # whether the British Control >= 5 hexes north of the river).
    result_yes: Slug | None = None
    # What each unit this row marks possesses (``Unit.possessor``) and this filter
    # selects takes the same effects, whatever ``units`` says: Sicily 3.60742
    # "Withdrawn Axis units (and any captured support weapons ... in the possession of
    # these units) are retained by the Axis off map".
    possessed: UnitFilter | None = None
    # And, later in the same sequence (before the next scenario), a unit its owner's
    # correction brings into ``units`` is settled then: PHD C5.13a "Units that end this
    # Redeployment phase Isolated (only), suffer from Ammunition shortage for the next
    # TM Scenario": a unit marked Isolated after the Redeployment ended it Isolated.
    late: bool = False

    @model_validator(mode="after")
    def _effects(self) -> Settle:
        for effect in self.effects:
            if effect.do not in SETTLE_EFFECTS:
                raise ValueError(
                    f"a step settles its units by {' or '.join(SETTLE_EFFECTS)}, not '{effect.do}'"
                )
        return self


Table.model_rebuild()


class MarkerHold(Strict):
    """From its step to the end of the sequence (until the next scenario), a unit
    ``units`` selects keeps the marker ``status``: its owner's taking it off is refused,
    saying ``reason`` and citing ``rule`` (PHD C5.13a "Units marked with a Stun counter
    may remove it after redeploying only if they are not Isolated at that time")."""

    status: UnitStatus
    units: UnitFilter
    reason: str = Field(min_length=1, max_length=200)  # the player's words: why it stays
    rule: RuleRef

    @model_validator(mode="after")
    def _held(self) -> MarkerHold:
        if self.status not in [*(self.units.statuses or ()), *(self.units.all_statuses or ())]:
            raise ValueError("a hold keeps a marker its 'units' carry ('statuses')")
        return self


class UnitReminder(Strict):
    """The viewer's retained units ``units`` selects, listed on a step's page with what
    ``rule`` says of them there (Sicily 3.6222 EXC: "each Immobile vehicle must remain in
    its current Location and VCA"; 3.6221: the Isolated units set up first): the app
    holds their markers, the players place them on the map."""

    units: UnitFilter | None = None
    # Or the viewer's RGs in its OB (its held RG Purchase Record lines) this condition
    # selects (their side, IDs, footnotes, price): Sicily Axis chart footnote f "O1 may
    # fire HE, JR, and Smoke", read where the OBA module is used, on the map.
    rgs: Condition | None = None
    says: str = Field(min_length=1, max_length=300)  # the rule's words, for the player
    rule: RuleRef

    @model_validator(mode="after")
    def _one(self) -> UnitReminder:
        if (self.units is None) == (self.rgs is None):
            raise ValueError("a reminder names either 'units' or 'rgs'")
        return self


class FinishedWith(Strict):
    """A step of a kind not finished ahead that a side may yet finish with the steps
    after it, through ``through``, in one click meaning what ``says`` says (Sicily
    3.622's set-up with 3.6223: "each side may declare the Location(s) they wish to
    reconnoiter (3.620), if any": a side declaring none has nothing more to do there).
    Offered to every side whatever it holds, so the offer tells its opponent nothing."""

    through: str = Field(min_length=1, max_length=20)  # the last step's id
    says: str = Field(min_length=1, max_length=80)  # "declare no Recon Location"
    rule: RuleRef


class Step(Strict):
    id: str = Field(min_length=1, max_length=20)  # the rule number, e.g. "3.616", "C5.29"
    title: str
    kind: str  # a registered step kind (rules.kinds)
    acts: Literal["both", "in_order"] | Slug = "both"
    summary: str = ""
    tables: list[Slug] = []
    # What the server does on entering the step: "replenish" runs the currency's
    # replenishment mechanism for each side and shows the arithmetic.
    # "record_winner": the module's scenario_winner decides who won the scenario played,
    # who then moves first (APD 2.9, 4.0).
    effect: Literal["replenish", "record_winner"] | None = None
    # A step of the start: run once, before the Initial Scenario (the steps the rules
    # require before it), listed first.
    start: bool = False
    # A purchase step at which an RG's secret rolls may already be made (APD 3.4: "For
    # each Armor Group purchased, make a dr to determine armor type").  Elsewhere they
    # wait for the strength step, once every RG is selected (Sicily 3.617-3.6181: "For
    # each such RG the player has just purchased"; PHD C5.33).
    rolls_while_buying: bool = False
    # What an exchange step trades (APD 3.2: a Hero for a Battle Hardened MMC).
    exchange: UnitExchange | None = None
    # Two HS that recombine at an exchange step that trades something else as well
    # (Sicily 3.6111 "RECOMBINING: All Retained same-class HS with the same strength
    # factors ..." beside 3.6112's Heroes): offered on its page as PHD C5.21's is.
    recombining: UnitExchange | None = None
    # What completing the step does to the retained units it names (C5.1, C5.26c).
    settles: list[Settle] = []
    # The markers units keep from this step on (PHD C5.13a: a Stun counter on a unit
    # still Isolated after redeploying).
    holds: list[MarkerHold] = []
    # The viewer's units the step's rules name, listed on its page (``UnitReminder``).
    reminds: list[UnitReminder] = []
    # A vehicle's disabled MG a side may repair there with one of its SW (3.61421).
    weapon_exchange: WeaponExchange | None = None
    # The vehicles a side may remann there, and by whom (Sicily 3.6141a).
    remanning: Remanning | None = None
    # The vehicles a side may mark Abandoned there in one action, its crew escaping
    # as a line of its own (Sicily 3.6051).
    abandoning: Abandoning | None = None
    # The step names the Attacker of the scenario just played, the side that moved first
    # in it, citing this rule (PHD C5.3: "The Attacker is the side that had moved first
    # on the final Mission turn"; C5.4 and C5.14 go by it).
    names_attacker: RuleRef | None = None
    # The step shows the EC, weather and wind of the date being set up (its ``weather``),
    # citing this rule (PHD C5.30 Historical Weather Determination: "The EC, Weather, and
    # Wind for each TM Scenario are listed in ConPh C5.30", TM3).
    names_weather: RuleRef | None = None
    # That Attacker makes the step's rolls first: the other side rolls once the Attacker
    # is done (PHD C5.14: "In turn, Attacker first").  With ``setup_order`` the side that
    # goes first is instead the one setting up first (it is set from it).
    attacker_first: bool = False
    # The side setting up first (the current date's initiative result, Sicily 3.6213)
    # finishes the step first, the other once it has, citing this rule (3.6222: "Once
    # the side setting up first has completed its setup, the other side follows the
    # same (3.622) procedure"): ``attacker_first``'s order, with that side first.
    setup_order: RuleRef | None = None
    # A side may finish this step with the next ones in one click (``FinishedWith``).
    finished_with: FinishedWith | None = None
    note: str | None = note_field()
    # From this step to the end of the sequence, units/weapons eliminated count no CVP,
    # citing the rule (APD 3 Note: "CVP are NA for units/weapons eliminated in this
    # phase"): the amendment of the scenario result says so there, where before it
    # invited the CVP the phase added (2 Note: "CVP are recorded normally").
    cvp_na: RuleRef | None = None
    # From this step to the end of the sequence (or to a step with ``cvp_na``), a unit
    # its owner removes from his retained forces is a loss of the scenario just played
    # when he says it was eliminated there: its CVP (``Module.cvp_per_kind``) join his
    # CVP lost, citing this rule (PHD C5.1 "All ConPh losses count for the previous
    # scenario for all purposes"; APD 2 Note "CVP are recorded normally throughout this
    # phase").  Elsewhere a removal is a correction only.
    losses_count: RuleRef | None = None

    @model_validator(mode="before")
    @classmethod
    def _setup_order_goes_first(cls, data: object) -> object:
        # One order of Done and rolls for both (``attacker_first``), whose first side
        # is the one setting up first where the step says so.
        if isinstance(data, dict) and data.get("setup_order") and "attacker_first" not in data:
            return {**data, "attacker_first": True}
        return data

    @model_validator(mode="after")
    def _attacker_first(self) -> Step:
        if self.attacker_first and not (self.names_attacker or self.setup_order):
            raise ValueError("'attacker_first' needs the rule that names the Attacker")
        if self.setup_order and self.names_attacker:
            raise ValueError("a step goes by the Attacker or by 'setup_order', not both")
        return self

    @model_validator(mode="after")
    def _rolls_while_buying(self) -> Step:
        if self.rolls_while_buying and self.kind != "purchase":
            raise ValueError("'rolls_while_buying' is for a purchase step")
        if (self.exchange is not None) != (self.kind == "exchange"):
            raise ValueError("an exchange step, and only it, says what it exchanges ('exchange')")
        if self.recombining is not None and (
            self.exchange is None or not self.recombining.recombine
        ):
            raise ValueError(
                "'recombining' is two HS recombining ('recombine') at an exchange step"
            )
        return self


# Result field ids the mechanisms read: CVP a side lost in the scenario, VP it scored,
# its SAN at scenario end.  A module may add other fields (objectives, notes).
CVP_LOST, VP, SAN = "cvp_lost", "vp", "san"


class ResultField(Strict):
    id: Slug
    label: str
    per_side: bool = True
    side: Slug | None = None  # only this side has it
    kind: Literal["int", "bool", "text"] = "int"
    # A yes/no that, once yes in a confirmed result, holds for the rest of the CG (APD
    # 4.0: "Once invoked, No Quarter will remain in effect for the duration of the
    # CG"): every later scenario sheet says so.
    lasts_cg: bool = False
    # The CG dates whose scenario result asks it (None: every date's), where the rule
    # that reads it covers only some scenarios (APD CG Scenario VC: "for each of the
    # first two CG-Scenarios").
    dates: list[Slug] | None = None
    rule: RuleRef | None = rule_field()

    @model_validator(mode="after")
    def _lasting(self) -> ResultField:
        if self.lasts_cg and self.kind != "bool":
            raise ValueError("'lasts_cg' is for a yes/no field")
        return self


class Flow(Strict):
    idle_loop_from: str | None = None  # step id the Idle/Lull result repeats from
    order: list[Slug] | None = None  # fixed acting order ("American first")
    rule: RuleRef | None = rule_field()


class SanRule(Strict):
    """SAN between scenarios: raised to ``minimum``, lowered to ``maximum``, or a roll
    on ``table`` for a side whose SAN is at least ``roll_from`` (Sicily 3.6122; PHD
    C5.25)."""

    rule: RuleRef
    minimum: int | None = None
    maximum: int | None = None
    roll_from: int | None = None
    table: Slug | None = None
    # Each side announces its current SAN when the scenario commences (Sicily 3.623:
    # "Each side announces its current SAN"): the rule, logged with both SANs for both
    # sides as the commencement step is entered (None: no announcement).
    announced: RuleRef | None = None


class VictoryTerm(Strict):
    """One comparison on the scenario results: a result field of a side, summed over
    the CG (``total``) or the latest scenario's."""

    field: Slug
    side: Slug
    total: bool = True
    op: Literal[">=", ">", "<=", "<", "=="]
    value: int | bool | Literal["vp_required"]  # or the VP the played scenario required


class VictoryCheck(Strict):
    """The CG ends at once with ``winner`` when every term holds after a scenario; with
    ``at_end``, only when the CG ends (PHD C4.2: "victory at the end of the last TM
    Scenario if they control the ... Highway")."""

    winner: Slug
    text: str
    rule: RuleRef
    at_end: bool = False
    all: list[VictoryTerm] = Field(min_length=1)


class ScenarioWinner(Strict):
    """Who won the scenario just played (APD 2.9): ``winner`` when any term holds, else
    ``otherwise``; the winner moves first in the next scenario (4.0)."""

    winner: Slug
    otherwise: Slug
    any: list[VictoryTerm] = Field(min_length=1)
    rule: RuleRef


class EmptiedGroups(Strict):
    """An RG is retained until eliminated (PHD TM11: "each requisitioned/OB-given RG
    is retained until eliminated in a TM Scenario"): once every line it brought to the
    retained forces has left them, the app marks it Eliminated on its RG Purchase
    Record, and a line of it put back revives it.  What only serves the RG (a
    ``ComesWith`` line that leaves with it: TM13's Radio) is not the RG: its leaving
    eliminates nothing, nor keeps the RG.  An RG that brought no line (OBA fire, DSP),
    one whose lines are not yet received, and units added by hand (no RG) are not
    marked by the app: their owner marks them."""

    rule: RuleRef
    note: str | None = note_field()


class HeldCap(Strict):
    """At most ``max`` of a side's retained units of ``units`` (counted as units, or as
    squad-equivalents: a half-squad/crew is half a squad), the side's choice of which
    go: until the side has removed the excess from its retained forces, Done waits
    with the rule (Sicily 3.60742 EXC: "No more than three leaders, nine
    squad-equivalents of MMC, and one non-captured support weapon may be retained in
    this fashion; any excess units, owners choice, are removed from play")."""

    units: UnitFilter
    max: int = Field(ge=0)
    count: Literal["units", "squad_equivalents"] = "units"
    label: str  # what is counted, in the rules' words ("leaders withdrawn off map")
    rule: RuleRef


class Missing(Strict):
    """A datum the rules documents lack.  ``supply`` names it where the players can
    supply it in the app: ``tables.<id>``, ``rg_charts.<side>`` or
    ``dates.<id>.vp_required`` (a variant's start fields are declared in its
    ``start.missing``)."""

    what: str
    rule: RuleRef
    supply: str | None = None
    # A datum the module gives by inference (the rules text is damaged): listed for the
    # players to amend by consent even though it is given (APD's Morning VP).
    amendable: bool = False
    note: str | None = note_field()


# --------------------------------------------------------------------------- the module


class PrintedPrice(Strict):
    """What an RG bought at its printed cost implies, said on its RG Purchase Record
    line as a price variant's ``implies`` is (Sicily 3.6175: "If an Axis or British RG
    is purchased for its printed value it enters play during the course of the
    scenario (SSR CG4 and CG5)").  Not said of an RG that sets up on-map at no extra
    cost (``setup_on_map_free``) nor of an Initial-Scenario OB line."""

    implies: str
    applies_to: Condition | None = None  # the RGs it concerns (e.g. those with units)
    rule: RuleRef
    note: str | None = note_field()


class PurchaseRecordColumns(Strict):
    """Columns of the RG Purchase Record that only some RGs' lines have."""

    # The RGs whose line records an Objective Hex (Sicily 3.6179: "Record the Objective
    # Hex of each Coy size RG").
    objective_hex: Condition
    rule: RuleRef | None = rule_field()
    note: str | None = note_field()
    # What buying at the printed cost implies, on the line (Sicily 3.6175).
    printed_price: PrintedPrice | None = None
    # The RGs whose line records a Str, F or D (Sicily 3.6179: "The RG's strength, as
    # determined in RePh step 3.6181", the "I", "V" and "G" RGs); None: every RG's line.
    strength: Condition | None = None


class Module(Strict):
    format: Literal[1] = 1
    id: Slug
    title: str
    system: str  # e.g. "HASL-style RePh", "PHD Tactical Mission ConPh"
    source: str = Field(json_schema_extra=DOC)  # where the data comes from
    sides: list[Side] = Field(min_length=2, max_length=2)
    variants: list[Variant] = Field(min_length=1)
    dates: list[CGDate] = Field(min_length=1)
    currency: Currency
    fortifications: Fortifications | None = None
    recon: Recon | None = None
    steps: list[Step] = Field(min_length=1)
    flow: Flow = Flow()
    result_fields: list[ResultField] = []
    tables: list[Table] = []
    # Each side's RG chart: Module.chart(side) reads it for purchasing
    # (rules/purchase.py, campaign/services/purchases.py) and the chart pages.
    rg_charts: list[RGChart] = []
    cost_variants: list[CostVariant] = []
    post_purchase: list[PostPurchaseRoll] = []
    leader_ladder: LeaderLadder | None = None
    # The vehicles' Inherent crew counters, the first whose vehicles match (Sicily 3.606).
    inherent_crews: list[InherentCrew] = []
    purchase_record: PurchaseRecordColumns | None = None
    initiative: Initiative | None = None
    victory: str | None = None  # CG victory conditions, as text
    victory_checks: list[VictoryCheck] = []
    scenario_winner: ScenarioWinner | None = None
    san: SanRule | None = None
    default_winner: Slug | None = None  # wins when the last date ends and no check held
    missing: list[Missing] = []
    # Caps on what a side may hold of some units (Sicily 3.60742 EXC), checked at Done.
    held_caps: list[HeldCap] = []
    # An RG whose lines have all left the retained forces is eliminated (PHD TM11).
    emptied_groups: EmptiedGroups | None = None
    setup_areas: SetupAreas | None = None
    notes: list[str] = Field(default_factory=list, json_schema_extra=DOC)
    # Further items bought later for an RG already held (PHD RG footnote p).
    add_later: list[AddLater] = []
    # The CVP (ASL A26.2) a unit of each kind is worth when the app eliminates it after
    # the scenario's result (``Table.losses_count``, PHD C1.2/C5.1).  The rules lack it:
    # the players supply it (``missing`` ``cvp_per_kind.<kind>``); a kind not given is
    # not counted, and the log says so.
    cvp_per_kind: dict[UnitKind, int] = {}

    @model_validator(mode="after")
    def _references(self) -> Module:
        errors: list[str] = []
        sides = {s.id for s in self.sides}
        dates = [d.id for d in self.dates]
        tables = {t.id for t in self.tables}
        steps = [s.id for s in self.steps]
        costs = {c.id for c in self.cost_variants}
        variants = {v.id for v in self.variants}

        def dup(name: str, ids: list[str]) -> None:
            seen = {i for i in ids if ids.count(i) > 1}
            if seen:
                errors.append(f"{name} ids repeat: {sorted(seen)}")

        dup("side", [s.id for s in self.sides])
        dup("date", dates)
        dup("table", [t.id for t in self.tables])
        dup("step", steps)
        dup("variant", [v.id for v in self.variants])
        for i, s in enumerate(self.steps):
            if s.finished_with and s.finished_with.through not in steps[i + 1 :]:
                errors.append(f"step {s.id}: finished_with names no later step")

        def side(where: str, sid: str | None) -> None:
            if sid is not None and sid not in sides:
                errors.append(f"{where}: unknown side '{sid}' (sides: {sorted(sides)})")

        def date(where: str, did: str | None) -> None:
            if did is not None and did not in dates:
                errors.append(f"{where}: unknown date '{did}'")

        def table(where: str, tid: str) -> None:
            if tid not in tables:
                errors.append(f"{where}: unknown table '{tid}'")

        def cond(where: str, c: Condition | None) -> None:
            if c is None:
                return
            for s in c.sides or []:
                side(where, s)
            for g in c.groups or []:
                if g not in all_groups:
                    errors.append(f"{where}: unknown RG '{g}'")
            for cv in [*(c.cost_variants or []), *(c.not_cost_variants or [])]:
                if cv not in costs:
                    errors.append(f"{where}: unknown cost variant '{cv}'")

        all_groups = {g.id for ch in self.rg_charts for g in ch.groups}

        for i, v in enumerate(self.variants):
            w = f"variants[{i}] ({v.id})"
            date(w + ".start_date", v.start_date)
            date(w + ".last_date", v.last_date)
            if (
                v.start_date in dates
                and v.last_date in dates
                and dates.index(v.start_date) > dates.index(v.last_date)
            ):
                errors.append(f"{w}: start_date comes after last_date")
            self._check_start(errors, w, v, side)
        for i, d in enumerate(self.dates):
            for owner in d.base_points or {}:
                side(f"dates[{i}] ({d.id}).base_points", owner)
        rep = self.currency.replenishment
        if isinstance(rep, BaseTableReplenishment):
            for i, d in enumerate(self.dates):
                if d.base_points is None or set(d.base_points) != sides:
                    errors.append(
                        f"dates[{i}] ({d.id}): the base_table mechanism needs base_points "
                        f"for every side"
                    )
        elif isinstance(rep, TableRollReplenishment):
            table("currency.replenishment", rep.table)
        else:
            side("currency.replenishment.side", rep.side)
        for did in self.currency.carry_over.lost_after_dates:
            date("currency.carry_over.lost_after_dates", did)
        starts = [i for i, st in enumerate(self.steps) if st.start]
        if starts != list(range(len(starts))):
            errors.append("steps: the start's steps come first, before the scenario's results")
        first = len(starts)
        if first >= len(self.steps) or self.steps[first].kind != "results":
            errors.append(
                f"steps[{first}]: the sequence starts with the scenario's results"
                + (" (after the start's steps)" if starts else "")
            )
        for i in starts:
            st = self.steps[i]
            kind = KINDS.get(st.kind)
            if st.kind in ("results", "initiative") or (kind is not None and kind.ends_scenario):
                errors.append(
                    f"steps[{i}] ({st.id}): no {st.kind} step before the Initial Scenario "
                    "(its result and type are the CG's own)"
                )
            if st.kind == "recon" and self.recon is not None and self.recon.not_for_initial:
                errors.append(
                    f"steps[{i}] ({st.id}): no Recon before an Initial Scenario ({self.recon.rule})"
                )
        for i, st in enumerate(self.steps):
            w = f"steps[{i}] ({st.id})"
            if st.acts not in ("both", "in_order"):
                side(w + ".acts", st.acts)
            if st.acts == "in_order" and not self.flow.order:
                errors.append(f"{w}: acts in_order but flow.order is not given")
            for tid in st.tables:
                table(w + ".tables", tid)
            kind = KINDS.get(st.kind)
            if kind is None:
                errors.append(f"{w}.kind: unknown step kind '{st.kind}' (kinds: {sorted(KINDS)})")
            elif kind.needs and getattr(self, kind.needs) is None:
                errors.append(f"{w}: a {st.kind} step needs the '{kind.needs}' section")
        for o in self.flow.order or []:
            side("flow.order", o)
        sid = self.flow.idle_loop_from
        if sid is not None and sid not in steps:
            errors.append(f"flow.idle_loop_from: unknown step '{sid}'")
        if self.setup_areas is not None and self.setup_areas.step is not None:
            if self.setup_areas.step not in steps:
                errors.append(f"setup_areas.step: unknown step '{self.setup_areas.step}'")
            if bool(self.setup_areas.enemy_area) != (self.setup_areas.enemy_area_rule is not None):
                errors.append("setup_areas: enemy_area and enemy_area_rule go together")
            if self.setup_areas.overlap_rule is None:
                errors.append("setup_areas.step needs overlap_rule (an ID both sides list)")
            listed_at = self.setup_areas.step

            def before_lists(step_id: str) -> bool:
                """``step_id`` is no step at or after the one the lists are made at."""
                if listed_at not in steps or step_id not in steps:
                    return True
                return steps.index(step_id) < steps.index(listed_at)

            cap = self.setup_areas.captures
            if cap is not None and before_lists(cap.step):
                errors.append(
                    f"setup_areas.captures.step: '{cap.step}' is no step at or after "
                    "setup_areas.step"
                )
            if cap is not None and cap.units.in_enemy_setup_area is not None:
                errors.append("setup_areas.captures.units: in_enemy_setup_area is implied")
            hid = self.setup_areas.hidden_fortifications
            if hid is not None and before_lists(hid.step):
                errors.append(
                    f"setup_areas.hidden_fortifications.step: '{hid.step}' is no step at or "
                    "after setup_areas.step"
                )
            known = {i.id for i in self.fortifications.items} if self.fortifications else set()
            for item in hid.items if hid is not None else []:
                if item not in known:
                    errors.append(
                        f"setup_areas.hidden_fortifications.items: unknown fortification '{item}'"
                    )
        listed = self.setup_areas is not None and self.setup_areas.step is not None
        for tab in self.tables:
            for drm in tab.drms:
                for on in (drm.when, drm.offer_when):
                    if on is not None and on.in_enemy_setup_area is not None and not listed:
                        errors.append(
                            f"tables.{tab.id}.drms.{drm.id}: in_enemy_setup_area needs "
                            "setup_areas.step (the lists it reads)"
                        )
        for i, st in enumerate(self.steps):
            at_or_after = (
                listed
                and self.setup_areas is not None
                and (self.setup_areas.step in steps[: i + 1])
            )
            for k, settle in enumerate(st.settles):
                if settle.units.in_enemy_setup_area is not None and not at_or_after:
                    errors.append(
                        f"steps[{i}] ({st.id}).settles[{k}]: in_enemy_setup_area reads the "
                        "Setup Areas listed at setup_areas.step, at or before this step"
                    )
            if st.effect == "record_winner" and self.scenario_winner is None:
                errors.append(f"steps[{i}] ({st.id}): record_winner needs 'scenario_winner'")
        if self.san is not None and self.san.table is not None:
            table("san.table", self.san.table)
        for j, fg in enumerate(self.currency.forgo):
            w = f"currency.forgo[{j}]"
            side(w + ".side", fg.side)
            side(w + ".from_side", fg.from_side)
            date(w + ".date", fg.date)
            for var in fg.variants:
                if var not in variants:
                    errors.append(f"{w}.variants: unknown variant '{var}'")
        if self.recon is not None and self.recon.group is not None:
            for ch in self.rg_charts:
                if not ch.missing and not any(g.id == self.recon.group for g in ch.groups):
                    errors.append(f"recon.group: no RG '{self.recon.group}' on the {ch.side} chart")
        for i, ch in enumerate(self.rg_charts):
            w = f"rg_charts[{i}] ({ch.side})"
            side(w, ch.side)
            for g in ch.groups:
                for var in g.cg_max:
                    if var not in variants:
                        errors.append(f"{w} RG {g.id}.cg_max: unknown variant '{var}'")
                for c in g.costs:
                    if c not in costs:
                        errors.append(f"{w} RG {g.id}.costs: unknown cost variant '{c}'")
            for j, r in enumerate(ch.restrictions):
                cond(f"{w}.restrictions[{j}]", r.applies_to)
                if isinstance(r, DateWindow):
                    date(f"{w}.restrictions[{j}].not_before", r.not_before)
                    date(f"{w}.restrictions[{j}].not_after", r.not_after)
                if isinstance(r, Prerequisite):
                    cond(f"{w}.restrictions[{j}].requires", r.requires)
                if isinstance(r, ResultCap):
                    rf = next((f for f in self.result_fields if f.id == r.field), None)
                    if rf is None or not rf.per_side or rf.kind != "int":
                        errors.append(
                            f"{w}.restrictions[{j}].field: '{r.field}' is not a per-side "
                            "whole-number result field"
                        )
            for j, cw in enumerate(ch.comes_with):
                cond(f"{w}.comes_with[{j}]", cw.applies_to)
        for t in self.tables:
            for j, r in enumerate(t.date_windows):
                cond(f"tables.{t.id}.date_windows[{j}]", r.applies_to)
                date(f"tables.{t.id}.date_windows[{j}].not_before", r.not_before)
                date(f"tables.{t.id}.date_windows[{j}].not_after", r.not_after)
            for row in [*t.rows, *t.original]:
                effects = [*row.effects, *row.column_effects.values()]
                for e in [*([row.effect] if row.effect else []), *effects]:
                    for k, cls in enumerate(e.first):
                        for sid in cls.figures:
                            side(f"tables.{t.id} reduce_mmc first[{k}].figures", sid)
        for j, cv in enumerate(self.cost_variants):
            cond(f"cost_variants[{j}]", cv.applies_to)
        for j, p in enumerate(self.post_purchase):
            table(f"post_purchase[{j}]", p.table)
            if (
                p.column
                and p.table in tables
                and p.column not in (self.table(p.table).columns or [])
            ):
                errors.append(
                    f"post_purchase[{j}].column: '{p.column}' is not a column of {p.table}"
                )
            cond(f"post_purchase[{j}]", p.applies_to)
        for tab in self.tables:
            for s_id in tab.item_names:
                side(f"tables ({tab.id}).item_names", s_id)
            for owner in tab.column_for_side:
                side(f"tables ({tab.id}).column_for_side", owner)
            for row in tab.rows:
                for eff in [
                    *([row.effect] if row.effect else []),
                    *row.effects,
                    *row.column_effects.values(),
                ]:
                    w = f"tables ({tab.id}) row {row.range}"
                    if eff.do in UNIT_EFFECTS and tab.for_units is None:
                        errors.append(
                            f"{w}: effect '{eff.do}' acts on the unit rolled for, so the "
                            "table needs 'for_units'"
                        )
                    if eff.do == "side":
                        side(w + ".effect.side", eff.side)
                    if eff.do == "rejoin" and (tab.for_units is not None or not tab.item_names):
                        errors.append(
                            f"{w}: effect 'rejoin' returns the weapon an item roll names, so "
                            "the table is rolled for items and needs 'item_names'"
                        )
                    if (
                        eff.do in ("replace_lower", "battle_harden", "harden")
                        and not self.leader_ladder
                    ):
                        errors.append(f"{w}: effect '{eff.do}' needs the module's leader_ladder")
                    if (
                        eff.do == "battle_harden"
                        and self.leader_ladder
                        and eff.unit not in self.leader_ladder.ratings
                    ):
                        errors.append(f"{w}: '{eff.unit}' is not on the leader_ladder")
                    # A chart still to be supplied may hold the RG; the supplied data is
                    # checked again then (rules.supply).
                    charts_known = not any(ch.missing for ch in self.rg_charts)
                    if eff.do == "group" and charts_known and eff.group not in all_groups:
                        errors.append(f"{w}.effect.group: unknown RG '{eff.group}'")
            for drm in tab.drms:
                cond(f"tables ({tab.id}).drms ({drm.id})", drm.when)
                cond(f"tables ({tab.id}).drms ({drm.id}).offer_when", drm.offer_when)
        date_ids = {d.id for d in self.dates}
        for j, rf in enumerate(self.result_fields):
            side(f"result_fields[{j}].side", rf.side)
            for asked in rf.dates or []:
                if asked not in date_ids:
                    errors.append(f"result_fields[{j}].dates: unknown CG date '{asked}'")
        fields = {rf.id for rf in self.result_fields}
        if self.scenario_winner is not None:
            sw = self.scenario_winner
            side("scenario_winner.winner", sw.winner)
            side("scenario_winner.otherwise", sw.otherwise)
            for n, term in enumerate(sw.any):
                side(f"scenario_winner.any[{n}].side", term.side)
                if term.field not in fields:
                    errors.append(f"scenario_winner.any[{n}]: unknown result field '{term.field}'")
        for j, vc in enumerate(self.victory_checks):
            side(f"victory_checks[{j}].winner", vc.winner)
            for n, term in enumerate(vc.all):
                side(f"victory_checks[{j}].all[{n}].side", term.side)
                if term.field not in fields:
                    errors.append(
                        f"victory_checks[{j}].all[{n}]: unknown result field '{term.field}'"
                    )
        side("default_winner", self.default_winner)
        self._check_settles(errors, sides, dates)
        for j, m in enumerate(self.missing):
            if m.supply is not None:
                problem = supply_problem(self, m.supply)
                if problem:
                    errors.append(f"missing[{j}].supply: {problem}")
        self._check_fortifications(errors)
        if self.initiative:
            self._check_initiative(errors, sides, steps, side)
        if errors:
            raise ValueError("; ".join(errors))
        return self

    def _check_settles(self, errors: list[str], sides: set[str], dates: list[str]) -> None:
        """A step's ``settles`` names known sides, dates and yes/no result fields; a
        price's ``needs_setup_area`` known sides of a module listing Setup Areas."""
        yes_no = {rf.id for rf in self.result_fields if rf.kind == "bool"}
        by_id = {t.id: t for t in self.tables}
        for t in self.tables:
            if t.after is None:
                continue
            earlier = by_id.get(t.after.table)
            if earlier is None:
                errors.append(f"tables ({t.id}).after.table: unknown table '{t.after.table}'")
                continue
            for r in t.after.ranges:
                if r not in {row.range for row in earlier.rows}:
                    errors.append(f"tables ({t.id}).after.ranges: '{r}' is no row of {earlier.id}")
        for st in self.steps:
            for n, row in enumerate(st.settles):
                w = f"steps ({st.id}).settles[{n}]"
                for s in row.sides or []:
                    if s not in sides:
                        errors.append(f"{w}.sides: unknown side '{s}'")
                for d in row.after_dates:
                    if d not in dates:
                        errors.append(f"{w}.after_dates: unknown date '{d}'")
                if row.result_yes is not None and row.result_yes not in yes_no:
                    errors.append(f"{w}.result_yes: '{row.result_yes}' is no yes/no result field")
                if any(e.do == "harden" for e in row.effects) and not self.leader_ladder:
                    errors.append(f"{w}: effect 'harden' needs the module's leader_ladder")
        for cv in self.cost_variants:
            for owner in cv.needs_setup_area:
                if owner not in sides:
                    errors.append(
                        f"cost_variants ({cv.id}).needs_setup_area: unknown side '{owner}'"
                    )
            if cv.needs_setup_area and (self.setup_areas is None or self.setup_areas.step is None):
                errors.append(
                    f"cost_variants ({cv.id}).needs_setup_area: the module lists no Setup Areas"
                )
        for cv in self.cost_variants:
            for owner in cv.implies_by_side:
                if owner not in {s.id for s in self.sides}:
                    errors.append(
                        f"cost_variants ({cv.id}).implies_by_side: unknown side '{owner}'"
                    )
        costs = {cv.id for cv in self.cost_variants}
        for j, cv in enumerate(self.cost_variants):
            before = {c.id for c in self.cost_variants[:j]}
            if cv.over is not None and cv.over not in before:
                errors.append(
                    f"cost_variants ({cv.id}).over: '{cv.over}' is no earlier cost variant"
                )
        for extra in self.add_later:
            for name in extra.with_variants:
                if name not in costs:
                    errors.append(f"add_later ({extra.id}): unknown cost variant '{name}'")

    def _check_fortifications(self, errors: list[str]) -> None:
        forts = self.fortifications
        if forts is None:
            return
        ids = {i.id for i in forts.items}
        supplied = {m.supply for m in self.missing if m.supply}
        for i in forts.items:
            if not i.priced and f"fortifications.items.{i.id}.cost" not in supplied:
                errors.append(
                    f"fortification {i.id} has no price: give one, or declare it missing "
                    f"(supply: fortifications.items.{i.id}.cost)"
                )
        for i in forts.items:
            if i.in_place_of is not None and i.in_place_of.item not in ids - {i.id}:
                errors.append(
                    f"fortification {i.id}: in_place_of names no other item '{i.in_place_of.item}'"
                )
        for j, cap in enumerate(forts.spend_caps):
            for item in cap.items:
                if item not in ids:
                    errors.append(f"fortifications.spend_caps[{j}]: unknown item '{item}'")
        for t in self.tables:
            for item in t.cleared_first.recorded if t.cleared_first else []:
                if item not in ids:
                    errors.append(f"{t.id}.cleared_first.recorded: unknown fortification '{item}'")

    def _check_start(
        self, errors: list[str], w: str, v: Variant, side: Callable[[str, str | None], None]
    ) -> None:
        start = v.start
        for field in ("points", "fortification_points", "ob", "san", "elr"):
            for owner in getattr(start, field):
                side(f"{w}.start.{field}", owner)
        side(f"{w}.start.sets_up_first", start.sets_up_first)
        side(f"{w}.start.moves_first", start.moves_first)
        for k in v.attack_chits or {}:
            side(f"{w}.attack_chits", k)
        for owner, ob in start.ob.items():
            chart_ids = {g.id for ch in self.rg_charts if ch.side == owner for g in ch.groups}
            for gid in ob.rgs:
                if gid not in chart_ids:
                    errors.append(f"{w}.start.ob.{owner}: side {owner} has no RG '{gid}'")
        for field in start.missing:
            given = v.attack_chits if field == "attack_chits" else getattr(start, field)
            if field == "ob" and not any(ob.rgs or ob.units for ob in start.ob.values()):
                continue  # only the OB as printed (its text): the players supply the rest
            if given:
                errors.append(f"{w}.start.missing: '{field}' is declared missing but is given")

    def _check_initiative(
        self,
        errors: list[str],
        sides: set[str],
        steps: list[str],
        side: Callable[[str, str | None], None],
    ) -> None:
        ini = self.initiative
        assert ini is not None
        results = {r.id for r in ini.results}
        seen = set()
        for k, cell in enumerate(ini.matrix):
            if set(cell.chits) != sides:
                errors.append(f"initiative.matrix[{k}]: chits must name both sides")
            if cell.result not in results:
                errors.append(f"initiative.matrix[{k}]: unknown result '{cell.result}'")
            seen.add(tuple(sorted(cell.chits.items())))
        if len(seen) != 4 or len(ini.matrix) != 4:
            errors.append("initiative.matrix: needs exactly the four chit combinations")
        for r in ini.results:
            for a in r.attackers:
                side(f"initiative.results ({r.id}).attackers", a)
            for name in ("sets_up_first", "moves_first"):
                val = getattr(r, name)
                if isinstance(val, str) and val != "sets_up_second":
                    side(f"initiative.results ({r.id}).{name}", val)
                elif isinstance(val, RollForSide):
                    side(f"initiative.results ({r.id}).{name}.roller", val.roller)
                    for row in val.rows:
                        side(f"initiative.results ({r.id}).{name}.rows", row["side"])
            if r.loops_to is not None and r.loops_to not in steps:
                errors.append(f"initiative.results ({r.id}).loops_to: unknown step")
        for c in ini.restrictions:
            side("initiative.restrictions", c.side)

    # ---------------------------------------------------------------- look-ups

    def table(self, table_id: str) -> Table:
        for t in self.tables:
            if t.id == table_id:
                return t
        raise KeyError(table_id)

    def side(self, side_id: str) -> Side:
        for s in self.sides:
            if s.id == side_id:
                return s
        raise KeyError(side_id)

    def variant(self, variant_id: str) -> Variant:
        for v in self.variants:
            if v.id == variant_id:
                return v
        raise KeyError(variant_id)

    def variant_words(self, variant_id: str) -> str:
        """A CG's name as players read it beside the module's title: with its own dates
        where the module offers several CGs (Sicily's CG III runs July 14 AM - July 14 PM,
        not the module's July 17 PM)."""
        v = self.variant(variant_id)
        if len(self.variants) == 1:
            return v.name
        return f"{v.name}, {self.date(v.start_date).label} – {self.date(v.last_date).label}"

    def campaign_title(self, variant_id: str) -> str:
        """The module's title with the CG played, where it offers several."""
        if len(self.variants) == 1:
            return self.title
        return f"{self.title} · {self.variant_words(variant_id)}"

    def date(self, date_id: str) -> CGDate:
        for d in self.dates:
            if d.id == date_id:
                return d
        raise KeyError(date_id)

    def chart(self, side_id: str) -> RGChart | None:
        return next((c for c in self.rg_charts if c.side == side_id), None)

    def group(self, side_id: str, group_id: str) -> ReinforcementGroup | None:
        chart = self.chart(side_id)
        return next((g for g in chart.groups if g.id == group_id), None) if chart else None

    def group_naming(self, side_id: str, counter: str) -> ReinforcementGroup | None:
        """The one RG of the side's chart whose row names the counter ``counter`` (its
        ``units`` or one of its ``unit_types``, any case): what the chart says of a unit
        added by hand with that name (Sicily 3.6141d "+1 if German": a StuG IIIG of the
        OB is the German V1's counter).  None: no row names it, or more than one."""
        chart = self.chart(side_id)
        wanted = counter.strip().casefold()
        naming = [
            g
            for g in (chart.groups if chart else ())
            if any(t.strip().casefold() == wanted for t in (g.unit_types or [g.units or ""]))
        ]
        return naming[0] if len(naming) == 1 else None


SUPPLIABLE_START = ("points", "fortification_points", "san", "elr")


def supply_problem(module: Module, path: str) -> str:
    """Why ``path`` is not a datum the players can supply ("" when it is; once
    supplied it stays suppliable, to be amended)."""
    parts = path.split(".")
    if len(parts) == 2 and parts[0] == "tables":
        found = any(t.id == parts[1] for t in module.tables)
        return "" if found else f"unknown table '{parts[1]}'"
    if len(parts) == 2 and parts[0] == "rg_charts":
        return "" if module.chart(parts[1]) else f"no RG chart for side '{parts[1]}'"
    if len(parts) == 2 and parts[0] == "cvp_per_kind":
        return "" if parts[1] in get_args(UnitKind) else f"unknown unit kind '{parts[1]}'"
    if len(parts) == 5 and parts[0] == "rg_charts" and parts[2::2] == ["groups", "depleted"]:
        # An RG's Depleted figure its chart does not print (Sicily I2: "2;2/c").
        group = module.group(parts[1], parts[3])
        if group is None:
            return f"unknown RG '{parts[3]}' of side '{parts[1]}'"
        return (
            "" if group.depletable and group.full is not None else f"{parts[3]} has no Full figure"
        )
    if len(parts) == 3 and parts[0] == "dates" and parts[2] == "vp_required":
        found = any(d.id == parts[1] for d in module.dates)
        return "" if found else f"unknown date '{parts[1]}'"
    if len(parts) == 4 and parts[:2] == ["fortifications", "items"] and parts[3] == "cost":
        forts = module.fortifications
        item = next((i for i in forts.items if i.id == parts[2]), None) if forts else None
        if item is None:
            return f"unknown fortification '{parts[2]}'"
        return "" if not (item.tiers or item.figures) else f"{parts[2]} is priced otherwise"
    return (
        f"'{path}' is not a datum the app can take (tables.<id>, rg_charts.<side>, "
        "dates.<id>.vp_required, fortifications.items.<id>.cost, cvp_per_kind.<kind>, "
        "rg_charts.<side>.groups.<id>.depleted)"
    )


def as_dict(module: Module) -> dict[str, Any]:
    return module.model_dump(mode="json", exclude_defaults=True)


def _field_comments() -> dict[tuple[str, str], str]:
    """Each model field's comment in this file (the lines of ``#`` just above it and
    the one after it on its line), by (class, field): what it means in the rules."""
    import ast
    import io
    import tokenize
    from pathlib import Path

    source = Path(__file__).read_text(encoding="utf-8")
    comments: dict[int, str] = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            comments[token.start[0]] = token.string.lstrip("#").strip()
    lines = source.splitlines()
    found: dict[tuple[str, str], str] = {}
    for cls in ast.parse(source).body:
        if not isinstance(cls, ast.ClassDef):
            continue
        for stmt in cls.body:
            if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
                continue
            above: list[str] = []
            n = stmt.lineno - 1
            while n >= 1 and lines[n - 1].strip().startswith("#"):
                above.insert(0, comments.get(n, ""))
                n -= 1
            inline = [comments[stmt.end_lineno]] if stmt.end_lineno in comments else []
            text = " ".join(t for t in above + inline if t)
            if text:
                found[(cls.name, stmt.target.id)] = text
    return found


def module_json_schema(read_by: Callable[[str], list[str]] | None = None) -> str:
    """The module format as a JSON Schema (draft 2020-12), generated from the models
    above: what an author's editor checks a module file against.  Each field's
    description is its comment here (what it means in the rules) and, given
    ``read_by`` (a field name to the code that reads it), which mechanism reads it."""
    import json

    schema = Module.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "Refit CG module"
    comments = _field_comments()
    models = [("Module", schema), *schema.get("$defs", {}).items()]
    for name, model in models:
        for field_name, prop in model.get("properties", {}).items():
            said = comments.get((name, field_name), "")
            if prop.get("documentation"):
                said = said or DOC_FIELDS.get(field_name, "")
                said += " Documentation: no mechanism reads it, no player sees it."
                prop["description"] = said.strip()
                continue
            readers = read_by(field_name) if read_by else []
            if readers:
                said = f"{said} Read by {', '.join(readers)}.".strip()
            if said:
                prop["description"] = said
    return json.dumps(schema, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
