"""Screenshots of every page of the web app for review: lobby (and its options), table (3 players, the pawn variant,
the end), replay and rules, at 1280x800 and 390x844 (touch), in the languages asked for.

    .venv/bin/python scripts/screenshots.py [--lang en pt cs] [--out artifacts/review]

Starts its own ``hansa serve`` on a temporary SQLite database (tests/browser/browser_support.Server) and drives
Debian's chromium with Playwright (both from the test extras).  Prints, per language and size, the page errors
seen and each page's scroll width (a page wider than the window scrolls sideways).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))

from browser_support import CHROMIUM, CHROMIUM_ARGS, Server, play_out_via_api  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

SIZES = (("desktop", {"width": 1280, "height": 800}, False), ("phone", {"width": 390, "height": 844}, True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lang", nargs="+", default=["en", "pt", "cs"], choices=["en", "pt", "it", "es", "cs"])
    parser.add_argument("--out", type=Path, default=ROOT / "artifacts" / "review")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="hansa-shots-"))
    server = Server(tmp)
    server.start()
    try:
        over = server.create([{"name": "Ana", "type": "human"}, {"name": "Bea", "type": "human"}, {"name": "Cy", "type": "human"}], seed=8)
        play_out_via_api(server, over, limit=120)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for lang in args.lang:
                live = server.create([{"name": "Ana", "type": "human"}, {"name": "Heuristic", "type": "bot", "bot": "heuristic"},
                                      {"name": "Purpose", "type": "bot", "bot": "purpose"}], seed=11)
                pawn = server.create([{"name": "Ana", "type": "human"}, {"name": "Bot", "type": "bot", "bot": "heuristic"}], seed=3,
                                     options={"two_player_variant": "pawn"})
                for size, viewport, phone in SIZES:
                    ctx = browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone, device_scale_factor=2 if phone else 1)
                    ctx.add_init_script(f"localStorage.setItem('hansa.lang', '{lang}');"
                                        "localStorage.setItem('hansa.settings', JSON.stringify({pace: 'instant'}))")
                    page = ctx.new_page()
                    errors: list[str] = []
                    page.on("pageerror", lambda exc: errors.append(str(exc)))  # noqa: B023
                    widths: dict[str, int] = {}

                    def shot(name: str, full: bool = False) -> None:
                        time.sleep(0.4)
                        page.screenshot(path=str(args.out / f"{name}-{lang}-{size}.png"), full_page=full)  # noqa: B023
                        widths[name] = page.evaluate("document.documentElement.scrollWidth")  # noqa: B023

                    def mine() -> None:
                        page.wait_for_selector("svg.board .house")  # noqa: B023
                        page.wait_for_function("() => document.body.dataset.mine === '1'", timeout=60000)  # noqa: B023

                    page.goto(server.base + "/")
                    page.wait_for_selector("body[data-ready='1']")
                    shot("lobby")
                    page.click("#advanced summary")
                    shot("lobby-options", full=True)
                    page.goto(server.base + live["seats"][0]["url"])
                    mine()
                    shot("table")
                    page.goto(server.base + pawn["seats"][0]["url"])
                    mine()
                    shot("table-pawn")
                    page.goto(server.base + over["seats"][0]["url"])
                    page.wait_for_selector("#endgame .score-table")
                    shot("table-end")
                    page.goto(server.base + f"/replay/{over['id']}")
                    page.wait_for_selector("#move-list li", state="attached")
                    shot("replay")
                    page.goto(server.base + "/rules#s2-6")
                    page.wait_for_selector("#toc li", state="attached")
                    shot("rules")
                    print(lang, size, "page errors:", errors or "none", "scroll widths:", widths)
                    ctx.close()
            browser.close()
    finally:
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    print("screenshots in", args.out)


if __name__ == "__main__":
    main()
