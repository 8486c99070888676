"""Drive a campaign through its steps at service level, as two players would."""

from __future__ import annotations

from django.db import connection

from campaign.models import Campaign, ModuleRecord, Roll, StepMark, Unit
from campaign.selectors import done_sides, module_of, owed_rolls, step_attacker
from campaign.services import fortification_areas, hosting, initiative, steps
from campaign.services.errors import ActionRefused
from rules import machine
from rules.availability import owed_for
from rules.effects import targets
from rules.registry import cached_module
from rules.schema import Module
from tests import walk_cache


def host_game(
    module_id: str,
    variant: str,
    host,
    guest=None,
    *,
    side: str | None = None,
    policy: str = "step_end",
    name: str = "test campaign",
    through_start: bool = True,
) -> Campaign:
    """``host`` hosts a campaign on ``side`` (the module's first side by default);
    ``guest``, if given, joins through the invitation.  With ``through_start`` both
    finish the steps before the Initial Scenario (buying nothing), so the campaign is
    at the Initial Scenario's result."""
    side = side or ModuleRecord.objects.get(id=module_id).data["sides"][0]["id"]
    c = hosting.create_campaign(
        host=host,
        module_id=module_id,
        variant_id=variant,
        side=side,
        name=name,
        reveal_policy=policy,
    )
    if guest is not None:
        hosting.join_campaign(token=c.invitations.get().token, user=guest)
        if through_start:
            players = players_of(c, host, guest)

            def start() -> None:
                while players.step.start:
                    players.finish()

            # Made once per process from the same state, copied after (tests/walk_cache.py).
            walk_cache.walked("through the start", c.pk, [host, guest], start)
    return c


def players_of(campaign: Campaign, host, guest) -> Players:
    module = module_of(campaign)
    host_side = campaign.seats.get(user=host).side
    other = next(s.id for s in module.sides if s.id != host_side)
    return Players(campaign, {host_side: host, other: guest})


# The campaign's position, its module's checksum and the sides done there, one row per
# side done (one row, its side NULL, when none is).
_C, _M = Campaign._meta.db_table, StepMark._meta.db_table
_WHERE = (
    f'SELECT c."cycle", c."step_index", c."ended_at", c."module_checksum", m."side"'
    f' FROM "{_C}" c LEFT JOIN "{_M}" m ON m."campaign_id" = c."id"'
    f' AND m."cycle" = c."cycle" AND m."step_index" = c."step_index"'
    f' WHERE c."id" = %s ORDER BY m."id"'
)
_CAMPAIGN_PK = Campaign._meta.pk


class Players:
    def __init__(self, campaign: Campaign, users: dict[str, object]):
        self.campaign_id = campaign.pk
        self.users = users  # side -> user
        # The sides done at (cycle, step index), as the last ``_where`` read them;
        # taken by the next ``_done`` (None: read again).
        self._marks: tuple[int, int, frozenset[str]] | None = None

    @property
    def campaign(self) -> Campaign:
        # Without the module's data (read once per process by ``module_of``): the walks
        # read the campaign at every step, and decoding that JSON each time was a tenth
        # of a walk's time.
        return Campaign.objects.defer("module_data").get(pk=self.campaign_id)

    @property
    def step(self):
        c = self.campaign
        return module_of(c).steps[c.step_index]

    def waiting(self) -> list[str]:
        from rules import machine

        c = self.campaign
        module = module_of(c)
        return machine.sides_to_act(module, module.steps[c.step_index], done_sides(c))

    def results(self, **values):
        """Enter (first waiting side) and confirm (the other) a scenario result."""
        first = self.waiting()[0]
        steps.enter_scenario_result(
            campaign_id=self.campaign_id, user=self.users[first], values=values
        )
        other = self.waiting()[0]
        steps.confirm_scenario_result(campaign_id=self.campaign_id, user=self.users[other])

    def position(self) -> tuple[int, int, bool]:
        """(cycle, step index, ended), read without the campaign's module data."""
        return self._where()[:3]

    def _where(self) -> tuple[int, int, bool, Module]:
        """The position and the module, in one read of four columns (the module is
        parsed once per process and checksum), with the sides done there (the same
        statement: a walk reads both before each Done), kept for the ``_done`` that
        follows."""
        with connection.cursor() as cursor:
            cursor.execute(_WHERE, [_CAMPAIGN_PK.get_db_prep_value(self.campaign_id, connection)])
            rows = cursor.fetchall()
        cycle, index, ended, checksum, _ = rows[0]
        self._marks = (cycle, index, frozenset(side for *_, side in rows if side is not None))
        module = cached_module(checksum) or module_of(self.campaign)
        return cycle, index, ended is not None, module

    def _done(self, cycle: int, index: int) -> frozenset[str]:
        """The sides done at a position: as the last ``_where`` read them, if it read
        this position and nothing was done since (read once), else read by the
        services' own selector."""
        marks, self._marks = self._marks, None
        if marks is not None and marks[:2] == (cycle, index):
            return marks[2]
        return done_sides(Campaign(pk=self.campaign_id, cycle=cycle, step_index=index))

    def finish(self, where: tuple[int, int, bool, Module] | None = None):
        """Every side that must act finishes the current step; the position after it."""
        cycle, index, ended, module = where or self._where()
        step = module.steps[index]
        while not ended:
            # The Attacker first where the step says so (PHD C5.14): the Defender's Done
            # is refused until his.
            attacker = step_attacker(self.campaign, module, step) if step.attacker_first else ""
            waiting = machine.sides_to_act(module, step, self._done(cycle, index), attacker)
            if not waiting:
                break
            self.finish_side(waiting[0])
            after = self._where()
            if after[:2] != (cycle, index):
                return after
            ended = after[2]
        return cycle, index, ended, module

    def finish_side(self, side: str) -> None:
        """``side`` presses Done, going on where a step lacks its data ("Go on without
        it"), and first makes the compulsory rolls the step refuses Done without ("Roll
        first: ..."), as a player told so would."""

        def done() -> None:
            steps.finish_step(
                campaign_id=self.campaign_id, user=self.users[side], without_data=True
            )

        try:
            done()
        except ActionRefused as exc:
            if str(exc).startswith("State first where each of your Fortifications lies"):
                self.state_fortifications_on_map(side)
            elif not str(exc).startswith("Roll first"):
                raise
            else:
                self.make_owed_rolls(side)
            done()

    def state_fortifications_on_map(self, side: str) -> None:
        """``side`` states each of its Fortifications the step asks about on the map, none
        hidden (Sicily 3.605, 3.6073), as a player told so at Done would."""
        c = self.campaign
        for buy in fortification_areas.to_state(c, module_of(c), side):
            if buy.area_cycle != c.cycle:
                fortification_areas.state_area(
                    campaign_id=self.campaign_id,
                    user=self.users[side],
                    fortification_id=buy.ref,
                    area=fortification_areas.ON_MAP,
                )

    def make_owed_rolls(self, side: str) -> None:
        """The compulsory rolls ``side`` owes at the current step, made."""
        c = self.campaign
        module = module_of(c)
        step = module.steps[c.step_index]
        for table_id, what in owed_rolls(c, module, side):
            table = module.table(table_id)
            if table_id not in step.tables or table.missing:
                continue
            if table.per_group is not None:  # for each RG held (PHD C5.34), named
                steps.roll_on_table(
                    campaign_id=c.pk, user=self.users[side], table_id=table_id, item=what
                )
                continue
            if table.once == "side":
                steps.roll_on_table(campaign_id=c.pk, user=self.users[side], table_id=table_id)
                continue
            rolled = set(
                Roll.objects.filter(campaign=c, cycle=c.cycle, table_id=table_id).values_list(
                    "unit_ref", flat=True
                )
            )
            # A typed DRM the roll needs (a Repair Number): its mildest value.
            typed = {d.id: d.max if d.max is not None else 0 for d in table.drms if d.required}
            for unit in Unit.objects.filter(campaign=c, side=side):
                # A vehicle's weapons each owe their own roll (Sicily 3.6142).
                for ref, target in targets(table.for_units, unit.state):
                    key = f"{unit.ref}.{ref}" if ref else unit.ref
                    if key not in rolled and owed_for(table, target):
                        steps.roll_on_table(
                            campaign_id=c.pk,
                            user=self.users[side],
                            table_id=table_id,
                            unit_id=key,
                            typed=typed,
                        )

    def _until(self, reached, goal: str, limit: int, must_move: bool):
        """Finish steps until ``reached``; a walk made earlier in the run from the same
        state to the same goal is copied, or one to a step on the way walked on
        (tests/walk_cache.py)."""
        users = [self.users[side] for side in sorted(self.users)]
        module: list[Module] = []  # read only where a shorter walk is looked at

        def reached_at(index: int) -> bool:
            module[:] = module or [self._where()[3]]
            return reached(module[0].steps[index])

        def walk_from(left: int) -> walk_cache.Trail:
            return self._walk_until(reached, goal, left, must_move)

        walk_cache.walked(
            f"until {goal} ({limit}, {must_move})",
            self.campaign_id,
            users,
            lambda: walk_from(limit),
            walk_cache.Until(reached_at, limit, must_move, walk_from),
        )

    def _walk_until(self, reached, goal: str, limit: int, must_move: bool) -> walk_cache.Trail:
        """The walk itself; the steps it finished (their indices) and whether each
        finish moved the campaign on."""
        where = self._where()
        finished: list[int] = []
        moved = True
        for _ in range(limit):
            cycle, index, ended, module = where
            if ended or reached(module.steps[index]):
                return walk_cache.Trail(tuple(finished), moved)
            where = self.finish(where)
            finished.append(index)
            moved = moved and where[:2] != (cycle, index)
            assert not must_move or where[:2] != (cycle, index), "did not move"
        raise AssertionError(f"no {goal} within {limit} steps")

    def until(self, kind: str, limit: int = 80):
        """Finish every step until one of ``kind`` is current."""
        self._until(lambda step: step.kind == kind, f"{kind} step", limit, must_move=True)

    def until_step(self, step_id: str, limit: int = 80):
        """Finish every step until the one numbered ``step_id`` is current."""
        self._until(lambda step: step.id == step_id, f"step {step_id}", limit, must_move=False)

    def chits(self, **chits):
        for side, chit in chits.items():
            initiative.lock_initiative(
                campaign_id=self.campaign_id, user=self.users[side], chit=chit
            )
