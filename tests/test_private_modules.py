"""Issue 50: private modules a host adds in the app.  A signed-in player uploads a
module file (size-capped, parsed safely, validated as ``validatemodule`` does with
each problem's line and column in the page) and hosts campaigns with it; only he and
the players of campaigns hosted from it see it, until an administrator publishes it.
The campaign keeps the module as hosted (an edited file is a new version), and its
backup carries it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from campaign.models import Campaign, ModuleRecord
from campaign.selectors import visible_modules
from campaign.services import backup, hosting
from campaign.services import modules as module_service
from campaign.services.errors import ActionRefused
from tests.walk import host_game

pytestmark = pytest.mark.django_db
HILL = Path(__file__).parent / "fixtures" / "authored" / "modules" / "hill-621.yaml"


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _upload(client: Client, text: str, name: str = "hill-621.yaml"):
    return client.post(
        "/modules/", {"file": SimpleUploadedFile(name, text.encode(), "application/x-yaml")}
    )


def test_a_player_uploads_a_module_and_hosts_from_it_alone(make_user):
    owner, stranger = make_user("author"), make_user("stranger")
    answer = _upload(_client(owner), HILL.read_text())
    assert answer.status_code == 302
    record = ModuleRecord.objects.get(owner=owner)
    assert not record.public and record.id.startswith("hill-621-")
    assert answer["Location"] == f"/campaigns/new/?cg={record.id}/cg"
    page = _client(owner).get(answer["Location"]).content.decode()
    assert "Hill 621 (invented) (private module)" in page
    # A stranger neither sees it nor hosts from it with a forged id.
    assert "Hill 621" not in _client(stranger).get("/campaigns/new/").content.decode()
    with pytest.raises(ActionRefused, match="no CG module"):
        hosting.create_campaign(
            host=stranger,
            module_id=record.id,
            variant_id="cg",
            side="german",
            name="Stolen",
            reveal_policy="step_end",
        )
    assert not Campaign.objects.filter(name="Stolen").exists()


def test_a_module_that_does_not_validate_is_refused_with_each_problem_placed(make_user):
    owner = make_user("author")
    text = HILL.read_text().replace("    dice: DR\n", "    dise: DR\n", 1)
    text = text.replace("do: eliminate}", "do: eliminat}", 1)
    answer = _upload(_client(owner), text)
    assert answer.status_code == 400
    page = answer.content.decode()
    assert "The module was not added: 3 problems." in page  # dise, dice missing, eliminat
    assert re.search(
        r"hill-621\.yaml:\d+:\d+: tables\[1\]\.dise: .*did you mean &#x27;dice&#x27;", page
    )
    assert re.search(r"hill-621\.yaml:\d+:\d+: tables\[0\]\.rows\[1\]\.effect\.do", page)
    assert not ModuleRecord.objects.filter(owner=owner).exists()


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"x" * (module_service.MAX_UPLOAD + 1), "at most 256 kB"),
        (b"\xff\xfe not text", "UTF-8 text"),
        (b"id: x\n  bad: [\n", "not valid YAML"),
        (b"!!python/object:os.system ls\n", "not valid YAML"),
    ],
    ids=["oversized", "binary", "broken-yaml", "unsafe-tag"],
)
def test_bad_files_are_refused_in_words_and_store_nothing(make_user, content, said):
    owner = make_user("author")
    answer = _client(owner).post(
        "/modules/", {"file": SimpleUploadedFile("m.yaml", content, "application/x-yaml")}
    )
    assert answer.status_code == 400 and said in answer.content.decode()
    assert not ModuleRecord.objects.filter(owner=owner).exists()


def test_a_campaign_keeps_its_module_and_its_players_see_it(make_user):
    owner, guest, stranger = make_user("author"), make_user("guest"), make_user("stranger")
    first = module_service.upload_module(user=owner, content=HILL.read_bytes())
    campaign = host_game(first.id, "cg", owner, guest, name="On the hill")
    assert first in visible_modules(guest) and first not in visible_modules(stranger)
    # The same file again is the same module; an edited one is a new version beside it.
    assert module_service.upload_module(user=owner, content=HILL.read_bytes()) == first
    edited = HILL.read_text().replace("russian: 15}", "russian: 16}", 1)
    second = module_service.upload_module(user=owner, content=edited.encode())
    assert second.id != first.id
    campaign.refresh_from_db()
    assert campaign.module_id == first.id and campaign.module_checksum == first.checksum
    assert campaign.module_data["variants"][0]["start"]["points"]["russian"] == 15


def test_an_administrator_publishes_a_module_to_everyone(make_user, django_user_model):
    owner, other = make_user("author"), make_user("other")
    record = module_service.upload_module(user=owner, content=HILL.read_bytes())
    admin = django_user_model.objects.create_superuser("admin", "a@example.org", "pw-12345678")
    answer = _client(admin).post(
        "/admin/campaign/modulerecord/",
        {"action": "publish", "_selected_action": [record.id]},
    )
    assert answer.status_code == 302
    record.refresh_from_db()
    assert record.public and record in visible_modules(other)


def test_the_backup_carries_a_private_module(make_user):
    owner, guest = make_user("author"), make_user("guest")
    record = module_service.upload_module(user=owner, content=HILL.read_bytes())
    campaign = host_game(record.id, "cg", owner, guest)
    data = backup.export_campaign(campaign_id=campaign.pk)
    Campaign.objects.filter(pk=campaign.pk).delete()
    ModuleRecord.objects.filter(pk=record.pk).delete()
    restored = backup.import_campaign(data=data)
    copy = ModuleRecord.objects.get(pk=record.pk)
    assert not copy.public and copy.owner is None  # private, shown to its players
    assert copy in visible_modules(guest) and restored.module_checksum == record.checksum


def test_an_alias_bomb_is_refused_with_a_sentence_before_it_is_expanded(make_user):
    """A "billion laughs": nine anchors of nine aliases each, a few hundred bytes that
    expand to nearly 400 million values.  Counted without expanding it, refused."""
    lines = ['a0: &a0 ["lol"]']
    lines += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 9)}]" for n in range(1, 10)]
    owner = make_user("author")
    answer = _client(owner).post("/modules/", {"text": "\n".join(lines) + "\nid: bomb\n"})
    assert answer.status_code == 400
    assert "expand to more than 200,000 values" in answer.content.decode()
    assert not ModuleRecord.objects.filter(owner=owner).exists()
    # The seed modules use anchors too, and stay far below the cap.
    from rules.loader import MODULE_DIR

    for path in MODULE_DIR.glob("*.yaml"):
        assert module_service.expanded_size(path.read_text()) < module_service.MAX_VALUES // 10


def test_a_strangers_pages_are_the_same_whether_or_not_a_module_was_uploaded(make_user):
    """Non-interference: what a third player can fetch does not depend on another
    player's private module — not its title, id, version or count."""
    author, stranger = make_user("author"), make_user("stranger")
    client = _client(stranger)
    pages = ["/campaigns/", "/campaigns/new/", "/modules/"]

    def seen() -> list[str]:
        token = re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"|"X-CSRFToken": "[^"]+"')
        return [token.sub("", client.get(p).content.decode()) for p in pages]

    before = seen()
    record = module_service.upload_module(user=author, content=HILL.read_bytes())
    after = seen()
    assert after == before
    assert not any(
        needle in page for page in after for needle in ("Hill 621", record.id, record.checksum[:8])
    )
