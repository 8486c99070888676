"""Builds the upgrade test's fixture (``tests/fixtures/upgrade/``): campaigns of all
three systems at several steps, made through the services of the oldest migration
state Refit still supports, dumped by ``pg_dump``, with what ``tests/upgrade.py``
reads of them then.  Not part of the suite (its name is not ``test_*``): run it at the
oldest supported commit, on the real servers, when that state moves on:

    git worktree add /tmp/old <commit>
    cp tests/build_upgrade_fixture.py tests/upgrade.py /tmp/old/tests/
    cd /tmp/old && REFIT_UPGRADE_FIXTURE_DIR=<this repository>/tests/fixtures/upgrade \\
        DATABASE_URL=... REDIS_URL=... REFIT_TEST_BACKEND=real \\
        pytest -p no:cacheprovider tests/build_upgrade_fixture.py

The fixture in the repository was built at b58c31d (campaign migration 0012, the state
before the start sheet).

It uses only services that state has (buying, secret rolls, reveals, supplied data,
messages, the notices they send)."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
from pathlib import Path

import pytest
from django.db import connection
from django.db.migrations.recorder import MigrationRecorder

from campaign.services import messages, purchases, supplements
from tests.purchase_helpers import campaign_at
from tests.test_supplements import CAPTURED, GOOD_ROWS
from tests.upgrade import snapshot_all
from tests.walk import host_game, players_of

pytestmark = pytest.mark.django_db(transaction=True)

OUT = Path(os.environ.get("REFIT_UPGRADE_FIXTURE_DIR", "tests/fixtures/upgrade"))


def _sicily_purchases(make_user) -> None:
    """Sicily at 3.617: the British buy two RGs, roll one's secret rolls and reveal
    the other; the Axis buys one; a message each way."""
    players, _ = campaign_at(
        "sicily", "i", "jul14n", (make_user("up_axis"), make_user("up_brit")), policy="owner"
    )
    brit, axis = players.users["british"], players.users["axis"]
    cid = players.campaign_id
    rifles = purchases.purchase_rg(campaign_id=cid, user=brit, group_id="I1")
    cars = purchases.purchase_rg(campaign_id=cid, user=brit, group_id="V6")
    purchases.roll_for_purchase(campaign_id=cid, user=brit, purchase_id=rifles.ref)
    purchases.roll_for_purchase(campaign_id=cid, user=brit, purchase_id=cars.ref)
    purchases.reveal_purchase(campaign_id=cid, user=brit, purchase_id=cars.ref)
    purchases.purchase_rg(campaign_id=cid, user=axis, group_id="G1")
    messages.send_message(campaign_id=cid, user=brit, text="See you Sunday.")
    messages.send_message(campaign_id=cid, user=axis, text="Sunday it is.")


def _sicily_supplied(make_user) -> None:
    """Sicily before its start, one datum the rules lack supplied and accepted, one
    proposed and not yet answered."""
    axis, brit = make_user("sup_axis"), make_user("sup_brit")
    players = players_of(host_game("sicily", "i", axis, brit, through_start=False), axis, brit)
    cid = players.campaign_id
    proposal = supplements.propose_supplement(
        campaign_id=cid, user=axis, path=CAPTURED, form=GOOD_ROWS
    )
    supplements.accept_supplement(campaign_id=cid, user=brit, ref=proposal.ref)


def _phd(make_user) -> None:
    players, _ = campaign_at(
        "purple-heart-draw", "tm", "t0930", (make_user("phd_us"), make_user("phd_de"))
    )
    messages.send_message(
        campaign_id=players.campaign_id, user=players.users["us"], text="Ready at 0930."
    )


def _apd(make_user) -> None:
    campaign_at("pleasant-diversion", "cg", "dec6midday", (make_user("apd_a"), make_user("apd_b")))


def test_build_the_upgrade_fixture(modules, make_user):
    for build in (_sicily_purchases, _sicily_supplied, _phd, _apd):
        build(make_user)
    OUT.mkdir(parents=True, exist_ok=True)
    state = MigrationRecorder(connection).applied_migrations()
    head = max(name for app, name in state if app == "campaign")
    expected = {"campaign_migration": head, "campaigns": snapshot_all()}
    text = json.dumps(expected, indent=1, sort_keys=True) + "\n"
    (OUT / "expected.json.gz").write_bytes(gzip.compress(text.encode(), mtime=0))
    s = connection.settings_dict
    dump = subprocess.run(
        ["pg_dump", "--no-owner", "--no-privileges", "-h", s["HOST"], "-p", str(s["PORT"])]
        + ["-U", s["USER"], s["NAME"]],
        env={**os.environ, "PGPASSWORD": s["PASSWORD"]},
        capture_output=True,
        check=True,
    ).stdout
    (OUT / "database.sql.gz").write_bytes(gzip.compress(dump, mtime=0))
