"""What the players may supply (``rules.supply.suppliable``): each datum the rules
documents lack is listed once, at the path its form writes to."""

from __future__ import annotations

import pytest

from rules import supply
from rules.schema import Module

pytestmark = pytest.mark.rules


@pytest.mark.parametrize("name", ["sicily", "phd", "apd"])
def test_each_datum_to_supply_is_listed_once(name, request):
    module: Module = request.getfixturevalue(name)
    for variant in module.variants:
        items = supply.suppliable(module, variant.id, set())
        paths = [it.path for it in items]
        labels = [it.label for it in items]
        assert len(paths) == len(set(paths)) and len(labels) == len(set(labels)), labels


def test_the_attack_chit_maxima_are_the_variants_not_its_starts(sicily):
    """3.6211: the Attack-chit maxima hold over the whole CG (``Variant.attack_chits``):
    one item, whose accepted value lands on the variant."""
    [item] = [it for it in supply.suppliable(sicily, "i", set()) if "Attack chits" in it.label]
    assert item.path == "variants.i.attack_chits"
    data = supply.patched(sicily.model_dump(mode="json", exclude_none=True), item.path, {"axis": 3})
    assert data["variants"][0]["attack_chits"] == {"axis": 3}
    assert "attack_chits" not in data["variants"][0]["start"]["missing"]
