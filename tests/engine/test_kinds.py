"""Step kinds live in one registry; every module step names a registered kind, and
every hook and panel part a kind names has its one implementation."""

from __future__ import annotations

import pytest

from rules.kinds import AHEAD_GUARDED, KINDS, Action, Hook, Show
from rules.schema import Module

pytestmark = pytest.mark.rules


def test_every_step_of_the_three_systems_has_a_registered_kind(
    sicily: Module, phd: Module, apd: Module
) -> None:
    for module in (sicily, phd, apd):
        assert {s.kind for s in module.steps} <= set(KINDS)


def test_finishable_kinds_allow_done_and_the_others_do_not() -> None:
    assert Action.FINISH in KINDS["checklist"].all_actions
    assert Action.FINISH not in KINDS["initiative"].all_actions
    assert Action.FINISH not in KINDS["results"].all_actions


def test_kinds_name_only_known_hooks_and_parts() -> None:
    for kind in KINDS.values():
        assert set(kind.on_enter + kind.on_side_done + kind.on_complete) <= set(Hook)
        assert set(kind.shows) <= set(Show)
        assert kind.template.startswith("campaign/steps/")


def test_a_step_finished_ahead_never_skips_a_server_operation() -> None:
    for kind in KINDS.values():
        assert not (kind.finish_ahead and set(kind.on_side_done) - AHEAD_GUARDED), kind.name
