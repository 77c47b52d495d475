"""Screenshots of every page of the web app for review: lobby (and its options), table (3 players, the pawn variant,
the end, mid-game on every map and side, a long game's log from its first move), replay and rules, at 1280x800 and
390x844 (touch), in the languages asked for.

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

from browser_support import CHROMIUM, CHROMIUM_ARGS, Server, choose, play_out_via_api  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

SIZES = (("desktop", {"width": 1280, "height": 800}, False), ("phone", {"width": 390, "height": 844}, True))
#: Every map and side: players, options, a name.
MAPS = ((3, {}, "base-2-3"), (5, {}, "base-4-5"), (3, {"map": "east"}, "east"), (3, {"map": "britannia"}, "britannia-3"),
        (5, {"map": "britannia"}, "britannia-4-5"))
NAMES = ["Ana", "Bea", "Cy", "Dora", "Ed"]


def advance(server: Server, game: dict[str, object], moves: int) -> None:
    """Play ``moves`` moves of a hot-seat game through the API (browser_support.choose)."""
    token = str(game["hotseat_token"])
    for _ in range(moves):
        view = server.call("GET", f"/api/games/{game['id']}", token=token)
        if view["status"] != "running" or not view["legal"]:
            return
        move = choose(view)
        server.call("POST", f"/api/games/{game['id']}/moves",
                    {"move": move["text"], "version": view["version"], "seat": view["state"]["turn"]["decider"]}, token=token)


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
        mid = {}
        for players, options, name in MAPS:
            mid[name] = server.create([{"name": n, "type": "human"} for n in NAMES[:players]], seed=5, options=options, hotseat=True)
            advance(server, mid[name], 70)
        long_game = server.create([{"name": n, "type": "human"} for n in NAMES[:4]], seed=9, hotseat=True)
        advance(server, long_game, 240)
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
                    for name, game in mid.items():
                        page.goto(server.base + str(game["hotseat_url"]))
                        mine()
                        shot(f"table-{name}")
                    # a long game's log, read from its first move
                    page.goto(server.base + str(long_game["hotseat_url"]))
                    page.wait_for_selector("#log .log-move", state="attached")
                    if phone:
                        page.click("#side-tabs button[data-tab=log]")
                    for _ in range(3):
                        page.evaluate("document.querySelector('#log').scrollTop = 0")
                        time.sleep(0.8)
                    shot("table-long-log")
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
