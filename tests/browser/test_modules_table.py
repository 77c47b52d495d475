"""The Big Box modules (docs/rules.md §8) in a real browser: a game with Mission Cards, Emperor's Favour and the
promotional markers, created from the lobby with the three modules ticked and its marker supply set with the counters,
played to the end by one seat through the board and the buttons (clicks on a desktop in English, taps on a phone in
Portuguese) while the two other seats play through the API (the heuristic bot does not play module games yet).  On the
way: the player's own mission card (its cities marked on the board) and the tile display, taking a tile by clicking
(a tile, then two markers), Exchange, Tribute and Block markers used by clicking, a Place beside a Block paid in the
chooser, the share of income and the tribute answered with buttons, the new moves told in the log; at the end the
missions category of the final table and every dealt mission card.

The seeds and the policy of modules_play.py give short games in which these decisions come to the clicking seat.
Screenshots go to artifacts/screenshots/modules-*.png."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from browser_support import (
    CHROMIUM,
    CONTRAST,
    ROOT,
    SCREENSHOTS,
    SIDEWAYS,
    Server,
    open_game,
    page_view,
    version,
    wait_version_change,
)
from modules_play import PROMO_HEAVY, choose

pytest.importorskip("playwright.sync_api", reason="the Python playwright package is not installed")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"browser tests need Debian chromium at {CHROMIUM}")

I18N = ROOT / "src" / "hansa" / "server" / "static" / "i18n"
DESKTOP = {"width": 1280, "height": 800}
HERO = 0


def strings(lang: str) -> dict[str, str]:
    return json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def shot(page: Any, name: str, full: bool = False) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"modules-{name}.png"), full_page=full)


# ---------------------------------------------------------------------------------------------- the lobby


def create_from_lobby(page: Any, server: Server, seed: int) -> dict[str, Any]:
    """Three seats (this page's player and two players the test moves through the API), the three modules ticked,
    the marker supply set with the counters to every promotional marker the supply may hold; the creation answer."""
    page.goto(server.base + "/")
    page.wait_for_selector("body[data-ready='1']")
    page.select_option("#player-count", "3")
    seats = page.locator("#seats .seat")
    for i, name in enumerate(("Ana", "Bo", "Cy")):
        seats.nth(i).locator(".seat-type").select_option("human")
        seats.nth(i).locator(".seat-name").fill(name)
    for key in ("missions", "emperors_favour", "marker_supply"):
        page.locator(f"#mod-{key}").check()
    # the suggested mix has 2 Extra offices and 1 Block: one Extra office less, one Block more
    page.locator("#supply-editor .supply-row[data-marker='extra-office'] .less").click()
    page.locator("#supply-editor .supply-row[data-marker='block'] .more").click()
    page.locator("#advanced summary").click()
    page.fill("#seed", str(seed))
    with page.expect_response(lambda r: urlsplit(r.url).path == "/api/games" and r.request.method == "POST") as info:
        page.locator("#create-btn").click()
    assert info.value.status == 201, info.value.text()
    sent = info.value.request.post_data_json["options"]
    assert sent == {"missions": True, "emperors_favour": True, "marker_supply": PROMO_HEAVY}
    return info.value.json()  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------------------------- acting


# A point of a route's line that a click reaches (between its houses), in page coordinates.
ROUTE_POINT = """(code) => {
  const g = document.querySelector(`svg.board g.route[data-key="r:${code}"]`);
  const path = g && g.querySelector('.route-hit');
  if (!path) return null;
  const len = path.getTotalLength();
  const m = path.getScreenCTM();
  for (const f of [0.5, 0.35, 0.65, 0.2, 0.8, 0.12, 0.88, 0.05, 0.95]) {
    const p = path.getPointAtLength(len * f);
    const x = m.a * p.x + m.c * p.y + m.e, y = m.b * p.x + m.d * p.y + m.f;
    const el = document.elementFromPoint(x, y);
    const hit = el && el.closest('[data-key]');
    if (hit && hit.dataset.key === `r:${code}`) return [x, y];
  }
  return null;
}"""


class Player:
    """Clicks (desktop) or taps (phone) on the table, as a player does."""

    def __init__(self, page: Any, phone: bool) -> None:
        self.page = page
        self.phone = phone

    def button(self, locator: Any) -> None:
        locator.scroll_into_view_if_needed()
        if self.phone:
            locator.tap()
        else:
            locator.click()

    def board(self, locator: Any) -> None:
        """A board target: on a phone a target smaller than a fingertip zooms in there first (tap again)."""
        page = self.page
        if not self.phone:
            try:
                locator.click(trial=True, timeout=2000)
            except Exception:  # noqa: BLE001 - covered by a badge: the keyboard reaches every highlighted target
                locator.focus()
                page.keyboard.press("Enter")
                return
            locator.click()
            return
        for _ in range(3):
            page.wait_for_function("() => !document.querySelector('#board-wrap').style.transition")
            locator.scroll_into_view_if_needed()
            box = locator.bounding_box()
            assert box, "the target is not on screen"
            page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            page.wait_for_timeout(120)
            if page.locator("#popup").is_visible() or not page.locator("#board-viewport.zoomed").count() or box["width"] >= 30:
                return
        raise AssertionError("the tap never acted")

    def route(self, code: str) -> None:
        """Click a route's line (a replacement marker goes on it, a Tribute or Block marker beside it); on a phone,
        tap one of its houses (it stands for the route there)."""
        page = self.page
        if self.phone:
            self.board(page.locator(f"svg.board [data-key='h:{code}:1']"))
            return
        page.locator(f"svg.board g.route[data-key='r:{code}']").scroll_into_view_if_needed()
        point = page.evaluate(ROUTE_POINT, code)
        assert point, f"no place to click on route {code}"
        page.mouse.click(point[0], point[1])

    def choice(self, text: str) -> None:
        """A choice of the popup (or the phone's sheet)."""
        popup = self.page.locator("#popup")
        popup.wait_for(state="visible")
        self.button(popup.locator(f"button[data-move='{text}']"))

    def act(self, move: dict[str, Any], seen: dict[str, Any]) -> None:
        page = self.page
        j = move["json"]
        kind = j["type"]
        before = version(page)
        if kind in ("place", "relocate", "remove", "take-from", "lift", "drop"):
            self.board(page.locator(f"svg.board [data-key='h:{j['house']}']"))
            if j.get("pay"):
                # beside a Block the chooser always opens: it says what the Place costs
                page.locator("#popup").wait_for(state="visible")
                seen.setdefault("pay-popup", page.locator("#popup").inner_text())
                if "place-pay" not in seen:
                    shot(page, f"{seen['name']}-block-pay")
                    seen["place-pay"] = True
            if page.locator("#popup").is_visible():
                self.choice(move["text"])
        elif kind == "claim":
            for _ in range(3):  # a tap lost while the board glided back is made again
                self.board(page.locator(f"svg.board .claim-badge[data-key='r:{j['route']}']"))
                try:
                    page.locator("#popup").wait_for(state="visible", timeout=2000)
                    break
                except Exception:  # noqa: BLE001 - no popup yet
                    continue
            self.choice(move["text"])
        elif kind == "marker":
            self.route(j["route"])
        elif kind == "tile":
            self.take_tile(move, seen)
        elif kind == "use-exchange":
            self.button(page.locator("#action-buttons button[data-action='use-exchange']"))
            page.locator("#popup").wait_for(state="visible")
            seen["exchange-popup"] = page.locator("#popup").inner_text()
            shot(page, f"{seen['name']}-exchange")
            self.choice(move["text"])
        elif kind in ("use-tribute", "use-block"):
            self.button(page.locator(f"#action-buttons button[data-action='{kind}']"))
            page.wait_for_selector(f"svg.board g.route.hl[data-key='r:{j['route']}']")
            seen[f"{kind}-prompt"] = page.locator("#prompt").inner_text()
            shot(page, f"{seen['name']}-{kind}-route")
            self.route(j["route"])
        elif kind in ("share", "tribute") or (kind == "done" and page_view(page)["state"]["turn"]["phase"] == "share"):
            phase = page_view(page)["state"]["turn"]["phase"]
            seen[f"{phase}-prompt"] = page.locator("#prompt").inner_text()
            if f"{phase}-shot" not in seen:
                shot(page, f"{seen['name']}-{phase}")
                seen[f"{phase}-shot"] = True
            self.button(page.locator(f"#action-buttons button[data-move='{move['text']}']"))
        elif kind in ("end", "done"):
            self.button(page.locator(f"#action-buttons button[data-move='{kind}']"))
        else:  # income, take, use: the action bar's buttons
            self.button(page.locator(f"#action-buttons button[data-move='{move['text']}']"))
        wait_version_change(page, before)
        if self.phone and page.locator("#board-viewport.zoomed").count():
            page.locator("#zoom-reset").tap()

    def take_tile(self, move: dict[str, Any], seen: dict[str, Any]) -> None:
        """A tile of the display, then the two markers turned face down for it, then the button that takes it."""
        page = self.page
        j = move["json"]
        card = page.locator(f"#modules-panel .favour-tiles .tile-card.hl[data-tile='{j['tile']}']")
        self.button(card)
        popup = page.locator("#popup")
        popup.wait_for(state="visible")
        assert popup.locator(f".tile-choice.selected[data-tile='{j['tile']}']").count() == 1
        confirm = popup.locator("#tile-confirm")
        assert confirm.is_disabled()  # two markers first
        first = popup.locator(f".marker-choice[data-marker='{j['first']}']")
        self.button(first.nth(0))
        assert confirm.is_disabled()
        second = popup.locator(f".marker-choice[data-marker='{j['second']}']")
        self.button(second.nth(1 if j["second"] == j["first"] else 0))
        assert confirm.is_enabled() and confirm.get_attribute("data-move") == move["text"]
        seen["tile-popup"] = popup.inner_text()
        shot(page, f"{seen['name']}-tile-chooser")
        self.button(confirm)


# ---------------------------------------------------------------------------------------------- a whole game


def api_move(server: Server, game: dict[str, Any], seat: int) -> dict[str, Any]:
    """The seat's move by the policy, through the API with its own token."""
    token = game["seats"][seat]["token"]
    view = server.call("GET", f"/api/games/{game['id']}", token=token)
    move = choose(view)
    server.call("POST", f"/api/games/{game['id']}/moves", {"move": move["text"], "version": view["version"]}, token=token)
    return move


GAMES = [
    # language, phone, seed.  With modules_play.py's policy seed 51 gives the clicking seat a tile, an Exchange, a
    # Tribute marker and a tribute to choose, and a Place beside a Block in about 50 of its moves; seed 147 a tile, a
    # Block marker, the share of income and a Place beside a Block in about 65.
    pytest.param("en", False, 51, id="en-desktop"),
    pytest.param("pt", True, 147, id="pt-phone"),
]


@pytest.mark.parametrize(("lang", "phone", "seed"), GAMES)
def test_a_module_game_to_the_end(new_page: Any, server: Server, lang: str, phone: bool, seed: int) -> None:
    tr = strings(lang)
    started = time.monotonic()
    page = new_page(phone=True) if phone else new_page(viewport=DESKTOP)
    page.add_init_script(f"localStorage.setItem('hansa.lang', '{lang}')")
    game = create_from_lobby(page, server, seed)
    name = f"{lang}-{'phone' if phone else 'desktop'}"
    open_game(page, server, game["seats"][HERO]["url"])
    assert page.evaluate("document.documentElement.lang") == lang
    view = page_view(page)
    # The player's own mission card, and no other seat's.
    mission = view["missions"][str(HERO)]
    assert set(view["missions"]) == {str(HERO)}
    card = page.locator("#modules-panel .mission")
    assert card.locator(".mission-no").inner_text() == tr["mission.card"].replace("{n}", str(mission["card"]))
    assert card.locator(".mission-city").evaluate_all("els => els.map((e) => e.dataset.city)") == mission["cities"]
    # Pointing at it (tapping it on a phone) rings its three cities on the board; again: the marks go.
    player = Player(page, phone)
    if phone:
        card.tap()
    else:
        card.hover()
    marked = page.locator("svg.board .mark-mission")
    assert marked.count() == 3
    # The display: as many tiles as players, each with its name and effect in the page's language.
    tiles = page.locator("#modules-panel .favour-tiles .tile-card")
    assert tiles.evaluate_all("els => els.map((e) => e.dataset.tile)") == view["state"]["favour"]["display"]
    assert tiles.count() == 3
    first = view["state"]["favour"]["display"][0]
    assert tr[f"favour.{first}"] in tiles.first.inner_text()
    assert tr[f"favourHelp.{first}"] in tiles.first.get_attribute("title")
    shot(page, f"{name}-start", full=phone)
    if phone:
        card.tap()
        assert marked.count() == 0
        assert page.evaluate(SIDEWAYS) == []
    else:
        page.mouse.move(5, 5)
    seen: dict[str, Any] = {"name": name}
    kinds: list[str] = []
    deadline = time.monotonic() + 240
    while True:
        assert time.monotonic() < deadline, f"the game did not end in time ({len(kinds)} moves of the clicking seat)"
        public = server.call("GET", f"/api/games/{game['id']}")
        if public["status"] == "over":
            break
        decider = public["state"]["turn"]["decider"]
        if decider != HERO:
            api_move(server, game, decider)
            continue
        page.wait_for_function(f"() => document.body.dataset.version === '{public['version']}' && document.body.dataset.mine === '1'", timeout=20000)
        view = page_view(page)
        move = choose(view)
        player.act(move, seen)
        kinds.append(move["json"]["type"] + (" pay" if move["json"].get("pay") else ""))
        after = page_view(page)
        if move["json"]["type"] in ("tile", "use-exchange", "use-tribute", "use-block", "share", "tribute"):
            # the log tells the move in a sentence of the page's language
            entry = next(e for e in reversed(after["log"]) if e["move"] == move["text"])
            text = page.locator(f"#log .log-move[data-n='{entry['n']}'] .log-text").inner_text()
            assert text, move
            if lang != "en":
                assert not re.search(r"\b(took|used|put|moved|Exchange|Tribute|Block)\b", text), text
            seen.setdefault("log", []).append(text)
        if move["json"]["type"] == "tile":
            # the tile is on the player's desk now, with the two markers face down
            tile = move["json"]["tile"]
            assert after["state"]["favour"]["owners"][tile] == HERO
            desk = page.locator(f"#desks .desk[data-seat='{HERO}'] .desk-modules")
            assert desk.locator(f".tile-card[data-tile='{tile}']").count() == 1
            assert desk.locator(".chip.facedown").count() == 2
            assert page.locator(f"#modules-panel .favour-taken .taken-item[data-tile='{tile}']").count() == 1
        if move["json"]["type"] in ("use-tribute", "use-block"):
            which = move["json"]["type"].removeprefix("use-")
            marker = page.locator(f"svg.board .beside-marker[data-beside='{which}'][data-route='{move['json']['route']}'][data-owner='{HERO}']")
            assert marker.count() == 1
            shot(page, f"{name}-{which}-marker")
    elapsed = time.monotonic() - started
    # What the clicking seat met on the way.
    assert "tile" in kinds, kinds
    expected = {"en": {"use-exchange", "use-tribute", "tribute", "place pay"}, "pt": {"use-block", "share", "place pay"}}[lang]
    assert expected <= set(kinds), (expected - set(kinds), kinds)
    # The end: the missions category, and every dealt card with its owner and points.
    page.wait_for_selector("#endgame .score-table")
    result = page_view(page)["state"]["result"]
    cols = page.locator("#endgame .score-table thead th[data-col]").evaluate_all("els => els.map((e) => e.dataset.col)")
    assert cols[-2:] == ["missions", "total"], cols
    head = page.locator("#endgame .score-table thead th[data-col='missions']")
    assert head.get_attribute("title") == tr["score.missions"]
    shown = page.locator("#endgame .score-table tbody td[data-col='missions']").all_inner_texts()
    assert sorted(int(x) for x in shown) == sorted(s["missions"] for s in result["scores"])
    cards = page.locator("#missions-result li")
    assert cards.count() == 3
    for seat, dealt in enumerate(result["missions"]):
        li = page.locator(f"#missions-result li[data-seat='{seat}']")
        assert li.locator(".mission-no").inner_text() == tr["mission.card"].replace("{n}", str(dealt["card"]))
        assert li.locator(".mission-city").evaluate_all("els => els.map((e) => e.dataset.city)") == dealt["cities"]
    # The running card is gone from the panel once the game is over (every card is in the result instead).
    assert page.locator("#modules-panel .mission").count() == 0
    if phone:
        page.locator("#endgame").scroll_into_view_if_needed()
        assert page.locator("#endgame .table-scroll").evaluate("(e) => e.scrollWidth <= e.clientWidth + 1")
        assert page.evaluate(SIDEWAYS) == []
    else:
        assert page.evaluate(CONTRAST) == []
    shot(page, f"{name}-end", full=True)
    print(f"{name}: {len(kinds)} moves of the clicking seat, {elapsed:.1f} s; {seen.get('log')}")
    if not phone:
        # The replay's final scoring has the missions row too.
        page.goto(server.base + f"/replay/{game['id']}")
        page.wait_for_selector("#final-scores")
        rows = page.locator("#final-scores tbody tr").evaluate_all("els => els.map((e) => e.dataset.row)")
        assert rows == cols, rows


# ---------------------------------------------------------------------------------------------- who sees what


def test_hot_seat_cards_and_a_spectators_table(new_page: Any, server: Server) -> None:
    """A hot-seat page plays every seat: it shows every seat's card, each under its player's name.  A spectator sees
    the tiles, the Tribute and Block markers and the desks' modules, but no mission card."""
    game = server.create([{"name": n, "type": "human"} for n in ("Ana", "Bo", "Cy")], seed=51,
                         options={"missions": True, "emperors_favour": True, "marker_supply": PROMO_HEAVY}, hotseat=True)
    # Through the API until a Tribute and a Block stand beside routes and a tile is taken (seed 51: about 70 moves).
    for _ in range(400):
        view = server.call("GET", f"/api/games/{game['id']}", token=game["hotseat_token"])
        state = view["state"]
        if state["tributes"] and state["blocks"] and state["favour"]["owners"]:
            break
        move = choose(view)
        server.call("POST", f"/api/games/{game['id']}/moves", {"move": move["text"], "version": view["version"],
                    "seat": state["turn"]["decider"]}, token=game["hotseat_token"])
    else:
        raise AssertionError("no Tribute, Block and tile in time")
    page = new_page(viewport=DESKTOP)
    open_game(page, server, game["hotseat_url"])
    cards = page.locator("#modules-panel .mission")
    assert cards.count() == 3
    assert cards.locator(".name-tag .nm").all_inner_texts() == ["Ana", "Bo", "Cy"]
    spectator = new_page(viewport=DESKTOP)
    open_game(spectator, server, game["spectator_url"])
    assert "missions" not in page_view(spectator)
    assert spectator.locator("#modules-panel .mission").count() == 0
    assert spectator.locator("#modules-panel .favour-tiles .tile-card").count() == len(state["favour"]["display"])
    assert spectator.locator("#modules-panel .favour-tiles .tile-card.hl").count() == 0  # nothing to take
    for route, owner in state["tributes"]:
        marker = spectator.locator(f"svg.board .beside-marker[data-beside='tribute'][data-route='{route}'][data-owner='{owner}']")
        assert marker.count() == 1
        assert view["players"][owner]["name"] in marker.locator("title").text_content()
        stroke = marker.locator(".beside-tile").get_attribute("stroke")
        assert stroke == view["players"][owner]["colour"]
    assert spectator.locator("svg.board .beside-marker[data-beside='block']").count() == len(state["blocks"])
    for code, owner in state["favour"]["owners"].items():
        assert spectator.locator(f"#desks .desk[data-seat='{owner}'] .desk-modules .tile-card[data-tile='{code}']").count() == 1
    assert spectator.evaluate(CONTRAST) == []
    shot(spectator, "spectator-desktop")
