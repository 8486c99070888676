"""What every browser test checks of what the player sees: accessibility (axe-core,
shipped by axe-playwright-python), that the page fits a 390 px phone, and that the
server answered no click with a 5xx."""

from __future__ import annotations

from pathlib import Path

from axe_playwright_python.sync_playwright import Axe

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


class ServerLog:
    """The lines a worker logged since this was made: no request may end in a 5xx."""

    def __init__(self, path: Path):
        self.path = path
        self.start = path.stat().st_size if path.exists() else 0

    def new_lines(self) -> list[str]:
        with self.path.open() as fh:
            fh.seek(self.start)
            return fh.read().splitlines()

    def server_errors(self) -> list[str]:
        return [
            line
            for line in self.new_lines()
            if ('" 5' in line and " - - [" in line)
            or "Traceback" in line
            or "Internal Server Error" in line
        ]
