"""Pass 20's shared words: what a player reads where the app names the units a roll or
an exchange is for."""

from campaign.services.units import describe_filter
from rules.schema import UnitFilter


def test_the_units_a_roll_is_for_read_with_one_bracket():
    """Sicily 3.6141a / 3.6042: the words that narrow the units come in one bracket,
    never two side by side ("(not immobilized or abandoned or withdrawn) (not a
    prisoner)")."""
    said = describe_filter(
        UnitFilter(
            kinds=["vehicle"],
            not_statuses=["immobilized", "abandoned", "withdrawn"],
            not_named=["prisoner"],
        )
    )
    assert said == "vehicles (not immobilized or abandoned or withdrawn, not a prisoner)"
    said = describe_filter(
        UnitFilter(kinds=["vehicle"], all_statuses=["isolated"], named=["Sherman"])
    )
    assert said == "isolated vehicles (a Sherman)"
    assert ") (" not in describe_filter(
        UnitFilter(kinds=["squad"], not_statuses=["captured"], named=["Hero"], not_named=["crew"])
    )
