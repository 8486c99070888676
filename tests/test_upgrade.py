"""Issue 48: an operator's upgrade loses no campaign.

``tests/fixtures/upgrade/`` holds a database at the oldest migration state Refit still
supports (``pg_dump``), filled through that state's services with campaigns of all
three systems at several steps — secret purchases and rolls, a reveal, supplied data,
messages and the notices they sent — and what ``tests/upgrade.py`` read of them then
(every campaign's backup, row by row, and each seat's state.json).  The test restores
it into a database of its own, runs this tree's migrations over it as an operator
would (``manage.py migrate``), and reads the same again: nothing may be lost or
changed, new fields aside.  ``tests/build_upgrade_fixture.py`` rebuilds the fixture."""

from __future__ import annotations

import gzip
import importlib
import json
import os
import secrets
import subprocess
import sys

import psycopg
import pytest

from campaign.models import marker_words
from rules.schema import UNIT_STATUS_WORDS
from tests.conftest import BASE_DIR, _database_url
from tests.upgrade import losses

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]
FIXTURE = BASE_DIR / "tests" / "fixtures" / "upgrade"


@pytest.fixture
def upgraded_database():
    """A database of its own, restored from the fixture's dump; dropped afterwards."""
    from django.db import connection

    s = connection.settings_dict
    name = f"refit_upgrade_{secrets.token_hex(4)}"
    admin = {"host": s["HOST"], "port": s["PORT"], "user": s["USER"], "password": s["PASSWORD"]}
    with psycopg.connect(dbname="postgres", autocommit=True, **admin) as db:
        db.execute(f'CREATE DATABASE "{name}"')
    try:
        restore = subprocess.run(
            ["psql", "-q", "-v", "ON_ERROR_STOP=1", "-h", s["HOST"], "-p", str(s["PORT"])]
            + ["-U", s["USER"], "-d", name],
            input=gzip.decompress((FIXTURE / "database.sql.gz").read_bytes()),
            env={**os.environ, "PGPASSWORD": s["PASSWORD"]},
            capture_output=True,
        )
        assert restore.returncode == 0, restore.stderr.decode()[-2000:]
        yield _database_url({**s, "NAME": name})
    finally:
        with psycopg.connect(dbname="postgres", autocommit=True, **admin) as db:
            db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _manage(database_url: str, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "DATABASE_URL"}}
    env.update(DATABASE_URL=database_url, ALLOWED_HOSTS="testserver")
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=BASE_DIR, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    return done.stdout


def _migrate_and_read(database_url: str, read: str) -> str:
    """``manage.py migrate`` then ``read`` (a script writing what it read to stdout), in
    one ``manage.py shell`` process: the migrate command itself (``call_command``),
    then the read, as a fresh process would make it (a process's start costs ~1.5
    CPU-s)."""
    migrate = (
        "from django.core.management import call_command\n"
        "call_command('migrate', interactive=False, verbosity=0)\n"
    )
    return _manage(database_url, "shell", "--no-imports", "-c", migrate + read)


def test_the_migrations_keep_every_campaign_secret_and_roll(upgraded_database):
    expected = json.loads(gzip.decompress((FIXTURE / "expected.json.gz").read_bytes()))
    # The fixture's state: its campaign migrations applied up to the one it was built
    # at, no later (what showmigrations marks [X] is a row of django_migrations).
    applied = _sql(
        upgraded_database, "SELECT max(name) FROM django_migrations WHERE app = 'campaign'"
    )
    assert applied == [(expected["campaign_migration"],)]
    _manage(upgraded_database, "migrate", "--noinput", "-v0")
    read = (
        "import json, sys; from tests.upgrade import snapshot_all; "
        "sys.stdout.write(json.dumps(snapshot_all()))"
    )
    after = json.loads(_manage(upgraded_database, "shell", "--no-imports", "-c", read))
    campaigns = converted(expected["campaigns"])
    assert set(after) == set(campaigns)
    dated_variants(campaigns, after)
    confirmed_aheads(campaigns, after)
    left_out_words(campaigns, after)
    assert len(campaigns) >= 4
    found = losses(campaigns, after)
    assert not found, f"{len(found)} values lost or changed:\n" + "\n".join(found[:40])


# Issue 45's migrations: a vehicle line's weapon conditions move onto its weapons, and
# each campaign's copy of a bundled module rolls its weapon tables for weapons; a
# unit's status becomes one of its markers.
WEAPONS = importlib.import_module("campaign.migrations.0020_unit_weapons")
MARKERS = importlib.import_module("campaign.migrations.0026_unit_state_is_its_markers")


def converted(campaigns: dict) -> dict:
    """What the fixture's campaigns must read after the migrations: as they were, but
    for what migrations 0020 and 0026 convert on purpose (their own conversions,
    applied here to what was read before them: every other value must still be as it
    was)."""
    campaigns = json.loads(json.dumps(campaigns))
    for c in campaigns.values():
        rows = c["backup"]["rows"]
        for key, fields in rows.items():
            if key.startswith("campaign.campaign:"):
                data = WEAPONS.patched_module(fields["module_data"])
                if data is not None:
                    fields["module_data"] = data
                    fields["module_checksum"] = WEAPONS.checksum(data)
            if key.startswith("campaign.unit:") and "status" in fields:
                fields["markers"] = MARKERS.fold(fields.get("markers") or [], fields.pop("status"))
    return campaigns


def dated_variants(campaigns: dict, after: dict) -> None:
    """Words, not data: a CG of a module offering several now reads with its own dates
    on the seat's page ("CG I, July 14 AM – July 17 PM", issue 44 pass 19).  The CG's
    name the fixture read must still lead them."""
    for cid, c in campaigns.items():
        for side, seat in (c.get("seats") or {}).items():
            state = seat.get("state") or {}
            now = ((after[cid].get("seats") or {}).get(side) or {}).get("state") or {}
            was, read = state.get("variant"), now.get("variant")
            if isinstance(was, str) and isinstance(read, str) and read.startswith(was + ", "):
                state["variant"] = read


def confirmed_aheads(campaigns: dict, after: dict) -> None:
    """Words, not data: each way of finishing several steps at once now carries the
    sentence its confirmation asks (Sicily 3.6223's "declare no Recon Location", issue
    44 pass 20).  The way the fixture read must still lead it."""
    for cid, c in campaigns.items():
        for side, seat in (c.get("seats") or {}).items():
            panel = (seat.get("state") or {}).get("panel") or {}
            now = ((after[cid].get("seats") or {}).get(side) or {}).get("state") or {}
            read = (now.get("panel") or {}).get("ahead")
            was = panel.get("ahead")
            if not isinstance(was, list) or not isinstance(read, list) or len(was) != len(read):
                continue
            panel["ahead"] = [
                r if isinstance(w, list) and r[: len(w)] == w and len(r) == len(w) + 1 else w
                for w, r in zip(was, read, strict=True)
            ]


GAP_WORDS = ("missing from the rules text", "The rules text lacks")


def left_out_words(campaigns: dict, after: dict) -> None:
    """Words, not data: a panel's sentence about what the printed rules leave out (a
    missing chart, the start's missing points) now reads in players' words, "the printed
    rules leave out ..." (issue 44 pass 25).  Only a sentence the fixture read with the
    old gap words, and now reads with the new, is taken as it reads now."""
    for cid, c in campaigns.items():
        for side, seat in (c.get("seats") or {}).items():
            panel = (seat.get("state") or {}).get("panel") or {}
            now = ((after[cid].get("seats") or {}).get(side) or {}).get("state") or {}
            read = now.get("panel") or {}
            for key, was in panel.items():
                new = read.get(key)
                if (
                    isinstance(was, str)
                    and isinstance(new, str)
                    and any(w in was for w in GAP_WORDS)
                    and "printed rules leave out" in new
                ):
                    panel[key] = new


def _sql(database_url: str, statement: str, *args) -> list[tuple]:
    with psycopg.connect(database_url, autocommit=True) as db:
        cursor = db.execute(statement, args)
        return cursor.fetchall() if cursor.description else []


def test_issue_45_a_vehicle_lines_weapon_conditions_become_its_weapons(upgraded_database):
    """Issue 45 migration, on the fixture's campaigns of the three systems (Sicily,
    PHD, APD) at the oldest supported state: a vehicle line marked malfunctioned (its
    MA, Sicily 3.6142), MG malfunctioned (its MG, APD 3.3) or disabled (PHD C5.26a: its
    failed weapon; APD's vehicular MG row) keeps its line, in good order, and carries
    its MA or MG so marked; its other condition stays; a squad or SW is unchanged; and
    each campaign's weapon tables are then rolled for those weapons (the roll's
    targets), so today's vehicles keep working."""
    campaigns, mg_rows = {}, set()
    for cid, module, text in _sql(
        upgraded_database, "SELECT id, module_data->>'id', module_data::text FROM campaign_campaign"
    ):
        campaigns[module] = cid
        if "mg_malfunctioned" in text:  # its module records a vehicle's MG apart
            mg_rows.add(module)
    assert {"sicily", "purple-heart-draw", "pleasant-diversion"} <= set(campaigns)
    lines = [
        ("Sherman III(a)", "vehicle", "malfunctioned"),
        ("Daimler AC", "vehicle", "mg_malfunctioned"),
        ("M4A1", "vehicle", "disabled"),
        ("PzIVH", "vehicle", "immobilized"),
        ("MMG", "sw", "malfunctioned"),
        ("4-6-7", "squad", "ok"),
    ]
    for module, cid in campaigns.items():
        side = _sql(upgraded_database, "SELECT side FROM campaign_seat WHERE campaign_id = %s", cid)
        for n, (name, kind, status) in enumerate(lines):
            _sql(
                upgraded_database,
                "INSERT INTO campaign_unit (side, name, status, location, created_at, "
                "campaign_id, purchase_id, ref, count, kind) "
                "VALUES (%s, %s, %s, '', now(), %s, NULL, %s, 1, %s)",
                side[0][0],
                name,
                status,
                cid,
                f"issue45{module[:3]}{n}",
                kind,
            )
    read = (
        "import json, sys\n"
        "from campaign.models import Campaign, Unit\n"
        "from campaign.selectors import module_of\n"
        "from rules.effects import targets\n"
        "out = {}\n"
        "for c in Campaign.objects.all():\n"
        "    m = module_of(c)\n"
        "    for u in Unit.objects.filter(campaign=c, ref__startswith='issue45'):\n"
        "        rolls = sorted({t.id + ':' + (u.state.weapon(r).kind if r else 'unit')\n"
        "                 for t in m.tables for r, _ in targets(t.for_units, u.state)})\n"
        "        out[m.id + '/' + u.name] = [u.markers,\n"
        "            [(w['kind'], w['name'], w['markers']) for w in u.weapons], rolls]\n"
        "sys.stdout.write(json.dumps(out))\n"
    )
    after = json.loads(_migrate_and_read(upgraded_database, read))
    ma = [["ma", "MA", ["malfunctioned"]]]
    mg = [["mg", "MG", ["malfunctioned"]]]
    assert after["sicily/Sherman III(a)"] == [[], ma, ["weapon_repair:ma"]]
    # The fixture's Sicily module predates its vehicular MG row: its MG is recorded,
    # and rolled for where the module has the row.
    mg_rolls = ["vehicular_mg_repair:mg"] if "sicily" in mg_rows else []
    assert after["sicily/Daimler AC"] == [[], mg, mg_rolls]
    assert after["pleasant-diversion/Sherman III(a)"] == [[], ma, ["repair_ma_gun:ma"]]
    assert after["pleasant-diversion/Daimler AC"] == [[], mg, ["repair_vehicular_mg:mg"]]
    assert after["purple-heart-draw/Sherman III(a)"] == [[], ma, ["weapon_repair:ma"]]
    assert after["purple-heart-draw/Daimler AC"] == [[], mg, ["weapon_repair:mg"]]
    # A disabled vehicle: its failed weapon is disabled (APD: its MG's row disables).
    assert after["purple-heart-draw/M4A1"][:2] == [[], [["ma", "MA", ["disabled"]]]]
    assert after["pleasant-diversion/M4A1"][:2] == [[], [["mg", "MG", ["disabled"]]]]
    for module in campaigns:
        # Its status is its marker now (migration 0026).
        assert after[f"{module}/PzIVH"][:2] == [["immobilized"], []]
        assert after[f"{module}/4-6-7"][:2] == [[], []]
        assert after[f"{module}/MMG"][:2] == [["malfunctioned"], []]


def test_issue_45_a_units_status_becomes_one_of_its_markers(upgraded_database):
    """Issue 45 ("a unit has one status"): on campaigns of the three systems (Sicily,
    PHD, APD), upgraded to the state before migration 0026 where a unit had a status
    and more markers beside it, each unit comes out of the upgrade with one state, the
    set of its markers: its status among them, each once, in the vocabulary's order
    (an Isolated unit Recalled, Sicily 3.6142 / PHD C5.1; a captured malfunctioned SW,
    PHD C5.26c; a Battle Hardened leader, PHD C5.23); "ok" is none.  The roster reads
    them in the same words."""
    _manage(upgraded_database, "migrate", "campaign", "0024", "--noinput", "-v0")
    campaigns = dict(
        _sql(upgraded_database, "SELECT module_data->>'id', id FROM campaign_campaign")
    )
    assert {"sicily", "purple-heart-draw", "pleasant-diversion"} <= set(campaigns)
    lines = [  # name, kind, status, markers, the markers it must come out with
        ("Sherman III(a)", "vehicle", "isolated", ["recalled"], ["isolated", "recalled"]),
        ("PzIVH", "vehicle", "recalled", ["isolated"], ["isolated", "recalled"]),
        ("MMG", "sw", "captured", ["malfunctioned", "captured"], ["malfunctioned", "captured"]),
        ("9-1 leader", "leader", "ok", ["battle_hardened"], ["battle_hardened"]),
        ("8-0 leader", "leader", "wounded", [], ["wounded"]),
        ("4-6-7", "squad", "ok", [], []),
    ]
    for module, cid in campaigns.items():
        side = _sql(upgraded_database, "SELECT side FROM campaign_seat WHERE campaign_id = %s", cid)
        for n, (name, kind, status, markers, _) in enumerate(lines):
            _sql(
                upgraded_database,
                "INSERT INTO campaign_unit (side, name, status, markers, weapons, location, "
                "created_at, campaign_id, purchase_id, ref, count, kind) "
                "VALUES (%s, %s, %s, %s::jsonb, '[]'::jsonb, '', now(), %s, NULL, %s, 1, %s)",
                side[0][0],
                name,
                status,
                json.dumps(markers),
                cid,
                f"state45{module[:3]}{n}",
                kind,
            )
    read = (
        "import json, sys\n"
        "from campaign.models import Campaign, Unit\n"
        "from campaign.selectors import module_of\n"
        "out = {}\n"
        "for c in Campaign.objects.all():\n"
        "    for u in Unit.objects.filter(campaign=c, ref__startswith='state45'):\n"
        "        out[module_of(c).id + '/' + u.name] = [u.markers, u.state_words,\n"
        "            sorted(u.state.marked)]\n"
        "sys.stdout.write(json.dumps(out))\n"
    )
    after = json.loads(_migrate_and_read(upgraded_database, read))
    for module in campaigns:
        for name, kind, _, _, markers in lines:
            got, said, marked = after[f"{module}/{name}"]
            assert got == markers, (module, name)
            assert marked == sorted(markers or ["ok"])
            # In the words a unit of its kind reads ("wounded" on a leader).
            words = [marker_words(m, kind) for m in markers]
            assert said == (words or ["in good order"])
            pairs = zip(markers, words, strict=True)
            assert all(UNIT_STATUS_WORDS[m].startswith(w) for m, w in pairs)
        assert after[f"{module}/PzIVH"][1] == ["isolated", "recalled (BU)"]
