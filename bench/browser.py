"""The reveal as players see it (part of ``make bench``): two real Chromium browsers
(Debian's ``/usr/bin/chromium`` driven by Playwright), one player in each, on a
campaign at the initiative step.  Red locks first; then Blue's "Lock Attack" is
clicked, and the figure is the time from that 2nd lock's request leaving Blue's page
(htmx's ``beforeSend``) until the reveal is painted in Red's page (the
``#initiative-result`` element inserted by the push, then the next animation frame
done), both read from the pages' own clocks.  Blue's own page is timed the same way.

Then a purchase as the player sees it: Red, on a Sicily page at the purchase step
(3.617), clicks a price of the RG chart, then cancels that RG, n times each: from the
request leaving the page to its RG's line painted in (or out of) the page's own list,
the Chromium CPU time per such change (every Chromium process, the page's clicks
included), and the step panel's size in elements.

``--backend embedded``: what ``make run`` serves, SQLite + in-memory layer, one
worker.  ``--backend real``: PostgreSQL + Redis, two workers, Red on one and Blue on
the other.  The last line printed is the figures as JSON (for ``bench/run.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import run as bench  # noqa: E402  (sets the bench's environment)
from tests.servers import CHROMIUM, CHROMIUM_ARGS  # noqa: E402  (as the test suite's)

WARM_UP = 2  # campaigns played first and not counted (cold caches in the workers)

# Armed in a page before an action: the time its request leaves the page (the first
# htmx ``beforeSend``), the time the first frame of its socket arrives (the ws
# extension's ``wsBeforeMessage``), the time the page's count of ``selector`` stops
# being ``count`` (the reveal's element inserted, an RG's line added or removed), and
# the time once the frame that shows it has been produced.
ARM = """([selector, count]) => {
  window.__dom = null; window.__painted = null; window.__sent = null; window.__frame = null;
  performance.clearResourceTimings();
  const now = () => performance.timeOrigin + performance.now();
  document.body.addEventListener('htmx:wsBeforeMessage', () => {
    if (window.__frame === null) window.__frame = now();
  }, {once: true});
  if (window.__pushed === undefined) {  // every frame's characters, counted once
    window.__pushed = 0;
    document.body.addEventListener('htmx:wsBeforeMessage', (e) => {
      window.__pushed += (e.detail.message || '').length;
    });
  }
  if (window.__watch) window.__watch.disconnect();
  window.__watch = new MutationObserver(() => {
    if (window.__dom !== null || document.querySelectorAll(selector).length === count) return;
    window.__dom = now();
    requestAnimationFrame(() => setTimeout(() => { window.__painted = now(); }, 0));
  });
  window.__watch.observe(document.body, {subtree: true, childList: true});
  document.body.addEventListener('htmx:beforeSend', () => {
    if (window.__sent === null) window.__sent = now();
  }, {once: true});
}"""


# Read in a page once its change is painted, each from the time ``sent`` (its own
# request's, or the other browser's): its own request answered (the first byte of the
# answer, from Resource Timing; null in a page that sent nothing), its socket's first
# frame in, the change in the DOM, the change painted.
STAGES = tuple(bench.STAGES)
READ = """(sent) => {
  const xhr = performance.getEntriesByType('resource')
    .filter(e => e.initiatorType === 'xmlhttprequest').pop();
  const at = (t) => (t === null ? null : t - sent);
  return {
    answered: xhr ? at(performance.timeOrigin + xhr.responseStart) : null,
    frame: at(window.__frame), dom: at(window.__dom), painted: at(window.__painted),
  };
}"""


def staged(samples: list[dict[str, float | None]]) -> dict[str, dict[str, float]]:
    """Each stage's summary over the samples that have it."""
    out = {}
    for stage in STAGES:
        values = [float(v) for s in samples if (v := s.get(stage)) is not None]
        if values:
            out[stage] = bench.summary(values)
    return out


def chromium_cpu_s() -> float:
    """User + system CPU time of every Chromium process alive now, in seconds."""
    found = bench.process_cpu(lambda pid, name: "chromium" if "chrom" in name else None)
    return sum(seconds for _, seconds in found.values())


def buying(page: Any, url: str, n: int) -> dict[str, object]:
    """Red buys I4 from the chart and cancels it, n times after the warm-up."""
    page.goto(url)
    page.wait_for_function("document.body.dataset.live === '1'")
    mine = ".purchases li"
    samples: list[dict[str, float | None]] = []
    cpu = 0.0
    pushed = 0
    for k in range(n + WARM_UP):
        if k == WARM_UP:
            page.wait_for_timeout(200)  # the last warm-up change's frames all in
            pushed = -page.evaluate("window.__pushed")
        started = chromium_cpu_s()
        for action in ("buy", "cancel"):
            page.evaluate(ARM, [mine, page.locator(mine).count()])
            if action == "buy":
                page.locator("#rg-I4 button").first.click()
            else:
                page.locator(mine, has_text="I4").get_by_role("button", name="Cancel").click()
            page.wait_for_function("window.__painted !== null")
            if k >= WARM_UP:
                samples.append(page.evaluate(READ, page.evaluate("window.__sent")))
        if k >= WARM_UP:
            cpu += chromium_cpu_s() - started
    page.wait_for_timeout(200)  # the last change's frames all in
    pushed += page.evaluate("window.__pushed")
    stages = staged(samples)
    return {
        "stages": stages,
        "change": stages["painted"],  # every sample has it: each was waited for
        "pushed_kb": pushed / len(samples) / 1000,
        "chromium_ms": cpu * 1000 / len(samples),
        "elements": page.evaluate("document.querySelectorAll('#campaign-step *').length"),
    }


def environment(backend: str) -> None:
    """The environment of this process and of the workers it starts."""
    if backend == "embedded":
        var = bench.ROOT / "var" / "bench" / "embedded"
        shutil.rmtree(var, ignore_errors=True)
        var.mkdir(parents=True)
        os.environ["REFIT_VAR_DIR"] = str(var)
        for name in ("DATABASE_URL", "REDIS_URL", "DB_POOL_MAX"):
            os.environ.pop(name, None)
        for cmd in (["migrate", "-v0"], ["loadmodules"]):
            subprocess.run([sys.executable, "manage.py", *cmd], cwd=bench.ROOT, check=True)
        subprocess.run(
            [sys.executable, "manage.py", "loadmodules", "--dir", "tests/fixtures/modules"],
            cwd=bench.ROOT,
            check=True,
            stdout=subprocess.DEVNULL,
        )
    else:
        name = f"{bench.DB}_browser"
        os.environ["DATABASE_URL"] = f"{bench.PG}/{name}"
        bench.fresh_database(name)


def play(n: int, server: str, backend: str) -> dict[str, object]:
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.db import connections
    from django.test import Client
    from playwright.sync_api import sync_playwright

    from bench.servers import Workers

    users = {
        name: get_user_model().objects.create_user(name, password="bench-pass-1")
        for name in ("alice", "bob")
    }
    ids = bench.initiative_campaigns(users, n + WARM_UP, "browser")
    (to_buy,) = bench.purchase_campaigns(users, 1, "browser-buy")
    sessions = {}
    for name, user in users.items():
        client = Client()
        client.force_login(user)
        sessions[name] = client.cookies["sessionid"].value
    connections.close_all()

    workers = Workers(server, 1 if backend == "embedded" else 2, log_dir=bench.LOG_DIR)
    red_url = f"http://127.0.0.1:{workers.ports[0]}"
    blue_url = f"http://127.0.0.1:{workers.ports[-1]}"
    other, own, other_dom = [], [], []
    seen: dict[str, list[dict[str, float | None]]] = {"other": [], "own": []}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            pages = {}
            for name, url in (("alice", red_url), ("bob", blue_url)):
                context = browser.new_context()
                context.set_default_timeout(20_000)
                context.add_cookies([{"name": "sessionid", "value": sessions[name], "url": url}])
                page = context.new_page()
                page.on("dialog", lambda d: d.accept())  # "Lock …? It cannot be changed."
                pages[name] = page
            red, blue = pages["alice"], pages["bob"]
            for k, cid in enumerate(ids):
                red.goto(f"{red_url}/campaigns/{cid}/")
                blue.goto(f"{blue_url}/campaigns/{cid}/")
                for page in (red, blue):
                    page.wait_for_function("document.body.dataset.live === '1'")
                red.get_by_role("button", name="Lock Idle").click()
                red.locator(".waiting", has_text="Your chit is locked").wait_for()
                blue.locator(".chits", has_text="has chosen").wait_for()
                for page in (red, blue):
                    page.evaluate(ARM, ["#initiative-result", 0])
                blue.get_by_role("button", name="Lock Attack").click()
                for page in (red, blue):
                    page.wait_for_function("window.__painted !== null")
                sent = blue.evaluate("window.__sent")
                if k < WARM_UP:
                    continue
                other.append(red.evaluate("window.__painted") - sent)
                other_dom.append(red.evaluate("window.__dom") - sent)
                own.append(blue.evaluate("window.__painted") - sent)
                seen["other"].append(red.evaluate(READ, sent))
                seen["own"].append(blue.evaluate(READ, sent))
            buys = buying(red, f"{red_url}/campaigns/{to_buy}/", n)
            browser.close()
    finally:
        workers.stop()
    return {
        "backend": backend,
        "server": server,
        "workers": len(workers.ports),
        "other": bench.summary(other),
        "other_dom": bench.summary(other_dom),
        "own": bench.summary(own),
        "stages": {who: staged(samples) for who, samples in seen.items()},
        "buy": buys,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", choices=("embedded", "real"), required=True)
    parser.add_argument("--server", default=bench.DEFAULT_SERVER)
    parser.add_argument("--n", type=int, default=int(os.environ.get("BENCH_BROWSER_N", 20)))
    args = parser.parse_args()
    began = time.perf_counter()
    environment(args.backend)
    figures = play(args.n, args.server, args.backend)
    where = (
        "embedded default (SQLite + in-memory layer), 1 worker"
        if args.backend == "embedded"
        else "PostgreSQL + Redis, Red and Blue on different workers"
    )
    print(f"in-browser reveal, {where}, {args.server}:", flush=True)
    print(bench.line("  2nd lock's request -> painted in the other browser", figures["other"]))
    print(bench.line("  ... in the other browser's DOM", figures["other_dom"]))
    print(bench.line("  ... painted in the acting browser", figures["own"]))
    stages = figures["stages"]
    print(f"  stages p50 ms, the other browser: {bench.stage_line(stages['other'])}")
    print(f"  stages p50 ms, the acting browser: {bench.stage_line(stages['own'])}")
    buys = figures["buy"]
    print(f"a purchase in the browser (Sicily 3.617, {buys['elements']} elements in the step):")
    print(bench.line("  buy or cancel's request -> the RG's line painted", buys["change"]))
    print(f"  stages p50 ms: {bench.stage_line(buys['stages'])}")
    print(f"  pushed to the page per buy or cancel: {buys['pushed_kb']:.1f} kB of frames")
    print(f"  Chromium CPU per buy or cancel: {buys['chromium_ms']:.0f} ms", flush=True)
    print(f"  ({time.perf_counter() - began:.0f} s)", flush=True)
    if args.backend == "real":
        bench.drop_database(f"{bench.DB}_browser")
    print(bench.MARK + json.dumps(figures), flush=True)


if __name__ == "__main__":
    main()
