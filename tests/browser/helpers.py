"""What every browser test checks of what the player sees: accessibility (axe-core,
shipped by axe-playwright-python), that the page fits a 390 px phone, and that the
server answered no click with a 5xx."""

from __future__ import annotations

from axe_playwright_python.sync_playwright import Axe

from tests.servers import ServerLog

__all__ = ["ServerLog", "accessibility_problems", "assert_accessible", "horizontal_overflow"]

BLOCKING = {"serious", "critical"}
PHONE = {"width": 390, "height": 844}
_axe = Axe()


def accessibility_problems(page) -> list[str]:
    """Serious and critical axe-core violations on the page as it is now."""
    results = _axe.run(page)
    return [
        f"{v['id']} ({v['impact']}): {v['help']} — "
        + "; ".join(n["target"][0] if n["target"] else "?" for n in v["nodes"][:3])
        for v in results.response["violations"]
        if v.get("impact") in BLOCKING
    ]


def assert_accessible(page, where: str = "") -> None:
    problems = accessibility_problems(page)
    assert not problems, f"axe on {where or page.url}:\n" + "\n".join(problems)


def horizontal_overflow(page) -> int:
    """How many pixels the page is wider than the window (0: it fits)."""
    return int(
        page.evaluate(
            "() => Math.max(document.documentElement.scrollWidth,"
            " document.body.scrollWidth) - window.innerWidth"
        )
    )
