"""Issue 49: the live pages are declared once (``campaign.live_pages``), and the write
side says what changed (``campaign.changes``), never which part of which page."""

import ast
from pathlib import Path

import pytest

from campaign import changes
from campaign.changes import KINDS, ChitLocked, MessageSent, PurchaseAdded
from campaign.fragments import Part
from campaign.live_pages import CAMPAIGN, PAGES, ROSTER, page_named
from campaign.visibility import CHIT, PURCHASE

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("name", sorted(PAGES))
def test_every_page_places_every_kind_of_change(name):
    """A page that did not list a kind would never re-draw for it."""
    page = PAGES[name]
    assert set(page.touches) == set(KINDS.values())
    for kind, parts in page.touches.items():
        assert parts <= page.parts, kind.kind


def test_a_page_touches_only_its_own_parts():
    # A message touches the thread, the log and the reader's unread count (playtest 26).
    assert CAMPAIGN.touched([MessageSent()]) == {Part.MESSAGES, Part.LOG, Part.UNREAD}
    assert ROSTER.touched([MessageSent()]) == {Part.UNREAD}
    assert ROSTER.touched([PurchaseAdded()]) == {Part.ROSTER, Part.ROSTER_RECORD, Part.CHARTS}
    assert CAMPAIGN.touched([Part.ROSTER, Part.STEP]) == {Part.STEP}


def test_a_page_is_named_by_the_registry_only():
    assert page_named("roster") is ROSTER
    for name in (None, "", "campaign", "dice", "ROSTER"):
        assert page_named(name) is CAMPAIGN


def _compared_page_names(tree: ast.AST) -> list[int]:
    names = set(PAGES)
    lines = []

    def is_name(node: ast.AST) -> bool:
        if isinstance(node, ast.Constant) and node.value in names:
            return True
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            return any(is_name(e) for e in node.elts)
        return False

    def about_a_page(node: ast.Compare) -> bool:
        # "campaign" is also a model's and its foreign keys' name: a comparison with it
        # is about a page when it reads one ("page", "X-Refit-Page"); any other page's
        # name is a page's wherever it is compared.
        consts = {
            c.value
            for c in ast.walk(node)
            if isinstance(c, ast.Constant) and isinstance(c.value, str)
        }
        return bool(consts & (names - {"campaign"})) or "page" in ast.unparse(node).lower()

    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Compare)
            and any(is_name(n) for n in (node.left, *node.comparators))
            and about_a_page(node)
        ):
            lines.append(node.lineno)
        if isinstance(node, ast.match_case) and is_name(getattr(node.pattern, "value", None)):
            lines.append(node.pattern.lineno)
    return lines


def test_no_code_outside_the_registry_compares_a_page_name():
    """Nothing switches on a page's name: the consumer, the action's answer and the
    fragments read the page from the registry."""
    found = []
    for path in sorted((ROOT / "campaign").rglob("*.py")):
        if path.name == "live_pages.py" or "migrations" in path.parts:
            continue
        found += [
            f"{path.relative_to(ROOT)}:{n}"
            for n in _compared_page_names(ast.parse(path.read_text()))
        ]
    assert found == []


def test_the_check_finds_a_comparison():
    assert _compared_page_names(ast.parse('page = "roster" if p == "roster" else "x"')) == [1]
    assert _compared_page_names(ast.parse('ok = page in ("campaign", "dice")')) == [1]
    assert _compared_page_names(ast.parse('ok = f.name == "campaign"')) == []


def test_a_secret_change_is_heard_by_its_owner_only():
    """A purchase kept secret (RePh 3.617) concerns the buyer's seat only; a chit, whose
    existence the opponent sees (his log shows it was chosen), every seat."""
    assert PurchaseAdded(kept=PURCHASE.kept("axis", secret=True)).audience == "axis"
    assert PurchaseAdded(kept=PURCHASE.kept("axis", secret=False)).audience is None
    assert ChitLocked(kept=CHIT.kept("axis", side="Axis")).audience is None
    assert PurchaseAdded().kind == "PurchaseAdded" and KINDS["PurchaseAdded"] is PurchaseAdded


def test_changes_name_no_page():
    """The change module imports nothing of the page side."""
    tree = ast.parse(Path(changes.__file__).read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert imported <= {"__future__", "dataclasses", "typing", "campaign.visibility"}
