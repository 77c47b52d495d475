"""The expansion maps (East, Britannia small and large) in a real browser: each created from the lobby with the map
chosen and played to the end by one human seat through the board (clicks only) against bots, with the final score
table (Britannia's countries column); and focused checks of what the maps add to the board: ship spaces, permanent
markers (and deciding them on the board: an office in a green city, *reuse 2*, *move any 2*), East's green cities and
Waren, Britannia's countries, legend and permissions (holder and "used this turn").

Screenshots at desktop (1280x800) and phone (390x844) size, mid-game and at the end, go to /tmp/shots-expansions/."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from browser_support import (
    CHROMIUM,
    CONTRAST,
    Server,
    open_game,
    page_view,
    version,
    wait_mine_or_over,
    wait_version_change,
)

pytest.importorskip("playwright.sync_api", reason="the Python playwright package is not installed")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"browser tests need Debian chromium at {CHROMIUM}")

SHOTS = Path("/tmp/shots-expansions")
DESKTOP = {"width": 1280, "height": 800}


def shot(page: Any, name: str, full: bool = False) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full)


# ---------------------------------------------------------------------------------------------- a player's policy


def route_of(house: str) -> str:
    return house.rsplit(":", 1)[0]


PERMANENT_PREFERENCE = ("green-office", "develop", "place", "exchange", "shift")
BENEFITS = ("office", "ability", "table", "extra", "nothing")
BOOK = {"BRE", "NOR"}  # the Liber Sophiae cities of East and Britannia: a Merchant for the ship spaces


def choose(view: dict[str, Any], layout: dict[str, Any]) -> dict[str, Any]:
    """A legal move that makes progress on the expansion maps and meets their new decisions: Merchants onto ship
    spaces, sea routes claimed first, every permanent marker used."""
    legal = view["legal"]
    state = view["state"]
    by_type: dict[str, list[dict[str, Any]]] = {}
    for m in legal:
        by_type.setdefault(m["json"]["type"], []).append(m)
    if state["turn"]["phase"] == "permanent":
        for kind in PERMANENT_PREFERENCE:
            if kind in by_type:
                return by_type[kind][0]
        return by_type["done"][0]
    sea = {r["code"] for r in layout["routes"] if r.get("permanent")}
    claims = by_type.get("claim", [])
    if claims:
        def benefit(m: dict[str, Any]) -> tuple[bool, bool, int]:
            j = m["json"]
            book = j["benefit"] == "ability" and j["target"] in BOOK
            return (j["route"] not in sea, not book, BENEFITS.index(j["benefit"]))

        return min(claims, key=benefit)
    for kind in ("marker", "relocate", "take", "done", "remove"):
        if kind in by_type:
            return by_type[kind][0]
    ships = {h["name"] for r in layout["routes"] for h in r["houses"] if h.get("ship")}
    me = state["turn"]["decider"]
    houses = state["houses"]
    places = [m for m in by_type.get("place", []) if m["json"]["piece"] == ("M" if m["json"]["house"] in ships else "T")]
    if places:
        size = {r["code"]: len(r["houses"]) for r in layout["routes"]}
        ship_count = {r["code"]: sum(1 for h in r["houses"] if h.get("ship")) for r in layout["routes"]}

        def rank(m: dict[str, Any]) -> tuple[bool, int, bool, int]:
            route = route_of(m["json"]["house"])
            occupants = [v for k, v in houses.items() if route_of(k) == route]
            others = sum(1 for v in occupants if v[0] != me)
            # A Merchant onto a ship space first (a sea route and its permanent marker), then the fullest route.
            return (m["json"]["piece"] != "M", ship_count[route], others > 0, size[route] - len(occupants))

        return min(places, key=rank)
    if "income" in by_type:
        return max(by_type["income"], key=lambda m: (m["json"].get("merchants", 0), m["json"].get("traders", 0)))
    return by_type["end"][0] if "end" in by_type else legal[0]


# ---------------------------------------------------------------------------------------------- acting by clicks

# A point of a route's line that a click reaches (between its houses), in page coordinates.
ROUTE_POINT = """(code) => {
  const g = document.querySelector(`svg.board g.route[data-key="r:${code}"]`);
  const path = g && g.querySelector('.route-hit');
  if (!path) return null;
  g.scrollIntoView({ block: "center", inline: "center" });
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


def press(page: Any, locator: Any) -> None:
    """Click a board target; one covered by another drawing (a badge) is reached from the keyboard (Tab + Enter,
    as a player may). Whether it is covered is asked first (a trial click sends nothing): a real click that times out
    on a busy machine has often been made already, and pressing Enter after it would act twice."""
    try:
        locator.click(trial=True, timeout=2000)
    except Exception:  # noqa: BLE001 - covered: the keyboard reaches every highlighted target
        locator.focus()
        page.keyboard.press("Enter")
        return
    locator.click()


def board(page: Any, key: str) -> Any:
    return page.locator(f"svg.board [data-key='{key}']").first


def choose_in_popup(page: Any, move: dict[str, Any]) -> None:
    popup = page.locator("#popup")
    if popup.is_visible():
        popup.locator(f"button[data-move='{move['text']}']").click()


def act(page: Any, move: dict[str, Any]) -> None:
    """Make ``move`` on the board and the action bar, as a player does: houses, cities, claim badges, routes,
    buttons."""
    j = move["json"]
    kind = j["type"]
    before = version(page)
    if kind in ("place", "relocate", "remove", "take-from", "lift", "drop"):
        press(page, board(page, f"h:{j['house']}"))
        choose_in_popup(page, move)
    elif kind == "claim":
        press(page, page.locator(f"svg.board .claim-badge[data-key='r:{j['route']}']"))
        page.locator(f"#popup button[data-move='{move['text']}']").click()
    elif kind in ("shift", "exchange"):
        press(page, board(page, f"h:{j['house']}"))
        page.wait_for_selector(f"svg.board .house.selected[data-key='h:{j['house']}']")
        press(page, board(page, f"h:{j['to'] if kind == 'shift' else j['other']}"))
    elif kind == "green-office":
        press(page, page.locator(f"svg.board g.city[data-key='c:{j['city']}'] .castle"))
        choose_in_popup(page, move)
    elif kind == "marker":
        point = page.evaluate(ROUTE_POINT, j["route"])
        assert point, f"no place to click on route {j['route']}"
        page.mouse.click(point[0], point[1])
    elif kind in ("end", "done"):
        page.locator(f"#action-buttons button[data-move='{kind}']").click()
    else:  # income, take, use, develop: the action bar's buttons
        page.locator(f"#action-buttons button[data-move='{move['text']}']").click()
    wait_version_change(page, before)


def api_view(server: Server, game: dict[str, Any], token: str | None = None) -> dict[str, Any]:
    return server.call("GET", f"/api/games/{game['id']}", token=token or game["hotseat_token"])  # type: ignore[no-any-return]


def api_play(server: Server, game: dict[str, Any], text: str) -> dict[str, Any]:
    view = api_view(server, game)
    return server.call(  # type: ignore[no-any-return]
        "POST", f"/api/games/{game['id']}/moves",
        {"move": text, "version": view["version"], "seat": view["state"]["turn"]["decider"]}, token=game["hotseat_token"],
    )


def script(server: Server, game: dict[str, Any], hero: int, plan: list[str]) -> dict[str, Any]:
    """Through the API: the hero plays ``plan`` (each move legal when its turn comes; the others end their turns)."""
    queue = list(plan)
    while queue:
        view = api_view(server, game)
        turn = view["state"]["turn"]
        legal = [m["text"] for m in view["legal"]]
        if turn["decider"] != hero:
            assert "end" in legal, (turn, legal[:5])
            api_play(server, game, "end")
            continue
        assert queue[0] in legal, (queue[0], legal[:12])
        api_play(server, game, queue.pop(0))
    return api_view(server, game)


def until_hero(server: Server, game: dict[str, Any], hero: int) -> dict[str, Any]:
    """The others end their turns until the hero decides."""
    while True:
        view = api_view(server, game)
        if view["state"]["turn"]["decider"] == hero:
            return view
        api_play(server, game, "end")


def hero_page(new_page: Any, server: Server, game: dict[str, Any], hero: int, plan: list[str]) -> Any:
    """The hero plays ``plan`` through the API and the others end their turns until it decides again; then its page
    at desktop size, ready for its decision."""
    script(server, game, hero, plan)
    until_hero(server, game, hero)
    page = new_page(viewport=DESKTOP)
    open_game(page, server, game["hotseat_url"])
    wait_mine_or_over(page)
    return page


# ---------------------------------------------------------------------------------------------- whole games


def create_from_lobby(page: Any, server: Server, map_name: str, players: int, bots: list[str], seed: int) -> dict[str, Any]:
    page.goto(server.base + "/")
    page.wait_for_selector("body[data-ready='1']")
    page.check(f"input[name=map][value={map_name}]")
    # No two players on the expansion maps: the choice is off, a note says why.
    assert page.locator("#player-count option[value='2']").is_disabled()
    assert page.locator("#map-note").is_visible()
    assert page.locator("#map-help").inner_text()
    assert page.evaluate(CONTRAST) == []
    page.select_option("#player-count", str(players))
    seats = page.locator("#seats .seat")
    seats.nth(0).locator(".seat-type").select_option("human")
    seats.nth(0).locator(".seat-name").fill("Alice")
    for i in range(1, players):
        seats.nth(i).locator(".seat-type").select_option("bot")
        seats.nth(i).locator(".seat-bot").select_option(bots[(i - 1) % len(bots)])
    page.click("#advanced summary")
    page.fill("#seed", str(seed))
    with page.expect_response(lambda r: urlsplit(r.url).path == "/api/games" and r.request.method == "POST") as info:
        page.click("#create-btn")
    assert info.value.status == 201, info.value.text()
    assert info.value.request.post_data_json["options"]["map"] == map_name
    game: dict[str, Any] = info.value.json()
    # The lobby's lists name the map.
    tag = page.locator(f"#my-games .game-item[data-id='{game['id']}'] .map-tag")
    tag.wait_for()
    assert tag.get_attribute("data-map") == map_name
    return game


GAMES = [
    # map, players, board side, the bots (in turn on the bot seats), seed.  The seeds give short games with every
    # kind of decision (the bots' seeds follow the game's, and this file's player is deterministic): about 20, 70
    # and 55 moves of the human seat, relocations, extra pieces and replacement markers among them on Britannia.
    pytest.param("east", 4, "east", ["heuristic"], 4, id="east-4"),
    pytest.param("britannia", 3, "britannia_3", ["purpose", "heuristic"], 5, id="britannia-3"),
    pytest.param("britannia", 5, "britannia_45", ["heuristic", "purpose"], 27, id="britannia-5"),
]


@pytest.mark.parametrize(("map_name", "players", "side", "bots", "seed"), GAMES)
def test_a_whole_game_on_the_map(new_page: Any, server: Server, map_name: str, players: int, side: str, bots: list[str], seed: int) -> None:
    page = new_page(viewport=DESKTOP)
    game = create_from_lobby(page, server, map_name, players, bots, seed)
    # My games names the map too.
    page.goto(server.base + "/my-games")
    tag = page.locator(f".mg-item[data-id='{game['id']}'] .map-tag")
    tag.wait_for()
    assert tag.get_attribute("data-map") == map_name
    open_game(page, server, game["seats"][0]["url"])
    layout = server.call("GET", f"/api/boards/{side}")
    view = page_view(page)
    assert view["board_side"] == side and view["options"]["map"] == map_name
    # A spectator on a phone sees the same table.
    phone = new_page(phone=True)
    open_game(phone, server, game["spectator_url"])
    deadline = time.monotonic() + 150
    moves = 0
    kinds: set[str] = set()
    while True:
        assert time.monotonic() < deadline, f"the game did not end in time ({moves} moves of the human seat)"
        wait_mine_or_over(page, timeout=60000)
        view = page_view(page)
        if view["status"] == "over":
            break
        if not view["legal"]:
            continue
        move = choose(view, layout)
        act(page, move)
        moves += 1
        kinds.add(move["json"]["type"])
        if moves == 12:
            shot(page, f"{side}-desktop-mid")
            phone.reload()
            phone.wait_for_selector("svg.board .house")
            shot(phone, f"{side}-phone-mid")
    # The end: the final table, with the special table named after its city, and Britannia's countries.
    page.wait_for_selector("#endgame .score-table")
    cols = page.locator("#endgame .score-table thead th[data-col]").evaluate_all("els => els.map((e) => e.dataset.col)")
    assert cols[-1] == "total" and "coellen" in cols
    table_head = page.locator("#endgame .score-table thead th[data-col='coellen']").get_attribute("title")
    assert table_head == ("Koenigsberg table" if map_name == "east" else "Plymouth table")
    result = page_view(page)["state"]["result"]
    if map_name == "britannia":
        assert "countries" in cols
        head = page.locator("#endgame .score-table thead th[data-col='countries']").get_attribute("title")
        assert head == ("Wales" if players == 3 else "Wales + Scotland")
        shown = page.locator("#endgame .score-table tbody td[data-col='countries']").all_inner_texts()
        assert sorted(int(x) for x in shown) == sorted(s["countries"] for s in result["scores"])
    else:
        assert "countries" not in cols
    # Every total in the table is the server's.
    totals = page.locator("#endgame .score-table tbody td.total").all_inner_texts()
    assert sorted(int(x) for x in totals) == sorted(s["total"] for s in result["scores"])
    shot(page, f"{side}-desktop-end", full=True)
    assert page.evaluate(CONTRAST) == []
    phone.reload()
    phone.wait_for_selector("#endgame .score-table")
    shot(phone, f"{side}-phone-end", full=True)
    # The whole table fits the phone's width, the totals column included (no sideways scrolling).
    assert phone.locator("#endgame .table-scroll").evaluate("(e) => e.scrollWidth <= e.clientWidth + 1")
    assert moves > 5 and {"place", "claim"} <= kinds
    # The replay shows the final scoring with the same columns.
    page.goto(server.base + f"/replay/{game['id']}")
    page.wait_for_selector("#final-scores")
    rows = page.locator("#final-scores tbody tr").evaluate_all("els => els.map((e) => e.dataset.row)")
    assert rows == cols


# ---------------------------------------------------------------------------------------------- what the maps draw


def test_east_board(new_page: Any, server: Server) -> None:
    game = server.create([{"name": n, "type": "human"} for n in ("Ann", "Bo", "Cy", "Di")], seed=3, options={"map": "east"}, hotseat=True)
    page = new_page(viewport=DESKTOP)
    open_game(page, server, game["hotseat_url"])
    # Ship spaces: a round slot in a boat, 6 on East; their tooltip says Merchants only.
    ships = page.locator("svg.board g.house.ship")
    assert ships.count() == 6
    assert ships.first.locator("circle.ship-slot").count() == 1 and ships.first.locator(".ship-hull").count() == 1
    assert "Merchants only" in ships.first.locator("title").text_content()
    # The four permanent markers, each a badge with a symbol and a short name, the whole rule in its tooltip.
    badges = page.locator("svg.board .permanent-marker")
    assert sorted(badges.evaluate_all("els => els.map((e) => e.dataset.effect)")) == [
        "develop_privilege", "move_any_2", "office_in_green_city", "reuse_2_from_route"]
    green = page.locator("svg.board .permanent-marker[data-route='MAL-VIS']")
    assert "Green office" in green.locator(".permanent-label").text_content()
    assert "green city" in green.locator("title").text_content()
    # Green cities: a castle each, empty; Waren with its two abilities; Koenigsberg's table; 10 cities to end.
    assert page.locator("svg.board g.city.green-city .castle").count() == 3
    assert page.locator("svg.board g.city[data-key='c:BEL'] .green-empty").count() == 1
    assert page.locator("svg.board g.city[data-key='c:WAR'] .ability").evaluate_all("els => els.map((e) => e.dataset.key)") == [
        "ab:WAR:actions", "ab:WAR:bags"]
    assert page.locator("svg.board .coellen-table .table-label").text_content() == "Koenigsberg table"
    assert page.locator("svg.track [data-completed]").count() == 11
    assert page.locator("svg.board .legend .legend-row").evaluate_all("els => els.map((e) => e.getAttribute('class'))") == [
        "legend-row legend-ship", "legend-row legend-permanent", "legend-row legend-green"]
    # The East-West cities say what they pay.
    assert "7/4/2" in page.locator("svg.board g.city[data-key='c:DAN'] .ew-label title").text_content()


def test_east_office_in_a_green_city_on_the_board(new_page: Any, server: Server) -> None:
    """Malmö–Visby claimed through the board; its permanent marker is resolved by clicking a green city: the
    piece goes right of the city's offices and completes it."""
    game = server.create([{"name": n, "type": "human"} for n in ("Ann", "Bo", "Cy", "Di")], seed=7, options={"map": "east"}, hotseat=True)
    hero = api_view(server, game)["state"]["turn"]["current"]
    page = hero_page(new_page, server, game, hero, ["place T MAL-VIS:1", "place M MAL-VIS:2", "place T MAL-VIS:3"])
    claim = next(m for m in page_view(page)["legal"] if m["text"] == "claim MAL-VIS office MAL")
    act(page, claim)
    # The marker's decision: the prompt says what it does; Decline; the badge glows; the green cities are targets.
    view = page_view(page)
    assert view["state"]["turn"]["phase"] == "permanent"
    prompt = page.locator("#prompt").inner_text()
    assert "Green office" in prompt and "green city" in prompt
    assert page.locator("#done-btn").inner_text() == "Decline"
    assert page.locator("svg.board .permanent-marker.active[data-route='MAL-VIS']").count() == 1
    assert page.locator("svg.board g.city.green-city.hl").count() == 3
    completed = view["state"]["completed_cities"]
    shot(page, "east-desktop-permanent")
    # On a phone: the same prompt and Decline button under the board.
    phone = new_page(phone=True)
    open_game(phone, server, game["hotseat_url"])
    assert phone.locator("#done-btn").inner_text() == "Decline"
    assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    shot(phone, "east-phone-permanent", full=True)
    move = next(m for m in view["legal"] if m["json"]["type"] == "green-office" and m["json"]["city"] == "BEL")
    act(page, move)
    after = page_view(page)
    assert after["state"]["right_offices"]["BEL"] == [[hero, move["json"]["piece"]]]
    assert after["state"]["completed_cities"] == completed + 1
    piece = page.locator("svg.board g.city[data-key='c:BEL'] [data-key='g:BEL:0'] .piece-g")
    assert piece.get_attribute("data-owner") == str(hero)
    assert "office in Belgard" in page.locator("#caption .cap-text").inner_text()
    assert page.locator("svg.board .permanent-marker.active").count() == 0


def test_east_reuse_two_pieces_then_done(new_page: Any, server: Server) -> None:
    """Danzig–Malmö's *reuse 2*: a piece left on the route, then a free house of another route; "Decline" becomes
    "Done" once one piece moved, and the rest goes to the stock."""
    game = server.create([{"name": n, "type": "human"} for n in ("Ann", "Bo", "Cy")], seed=5, options={"map": "east"}, hotseat=True)
    hero = api_view(server, game)["state"]["turn"]["current"]
    page = hero_page(new_page, server, game, hero, ["place T DAN-MAL:1", "place T DAN-MAL:2", "place T DAN-MAL:3", "place M DAN-MAL:4"])
    act(page, next(m for m in page_view(page)["legal"] if m["text"] == "claim DAN-MAL office DAN"))
    view = page_view(page)
    assert view["state"]["turn"]["permanent"] == {"route": "DAN-MAL", "effect": "reuse_2_from_route", "left": 2}
    assert "2 moves left" in page.locator("#prompt").inner_text()
    assert page.locator("#done-btn").inner_text() == "Decline"
    shift = next(m for m in view["legal"] if m["json"]["type"] == "shift" and m["json"]["house"] == "DAN-MAL:4")
    # The Merchant: first the piece (its targets light up, ship spaces among them), then where it goes.
    press(page, board(page, "h:DAN-MAL:4"))
    page.wait_for_selector("svg.board .house.selected[data-key='h:DAN-MAL:4']")
    assert page.locator("svg.board g.house.ship.hl").count() >= 1
    assert "free house" in page.locator("#prompt").inner_text()
    before = version(page)
    press(page, board(page, f"h:{shift['json']['to']}"))
    wait_version_change(page, before)
    view = page_view(page)
    assert view["state"]["houses"][shift["json"]["to"]] == [hero, "M"]
    assert "1 move left" in page.locator("#prompt").inner_text()
    assert page.locator("#done-btn").inner_text() == "Done"
    stock = view["state"]["players"][hero]["stock"]["T"]
    act(page, next(m for m in view["legal"] if m["text"] == "done"))
    view = page_view(page)
    assert view["state"]["turn"]["phase"] != "permanent"
    assert not any(route_of(h) == "DAN-MAL" for h in view["state"]["houses"])
    assert view["state"]["players"][hero]["stock"]["T"] == stock + 2


def test_britannia_countries_and_permissions(new_page: Any, server: Server) -> None:
    """Small side: Wales in brown (routes, city banners, legend); Cardiff's and London's permission seals show
    who holds them and fade once used this turn; then *move any 2* on Canterbury–Calais exchanges two pieces."""
    game = server.create([{"name": n, "type": "human"} for n in ("Ann", "Bo", "Cy")], seed=2, options={"map": "britannia"}, hotseat=True)
    hero = api_view(server, game)["state"]["turn"]["current"]
    page = new_page(viewport=DESKTOP)
    open_game(page, server, game["hotseat_url"])
    wales = page.locator("svg.board g.route[data-country='Wales']")
    assert wales.count() > 5
    stroke = wales.first.locator(".route-line").evaluate("(e) => getComputedStyle(e).stroke")
    assert stroke == "rgb(147, 89, 42)"
    assert page.locator("svg.board g.route[data-country='Scotland']").count() == 0
    assert sorted(page.locator("svg.board .country-banner").evaluate_all("els => els.map((e) => e.closest('g.city').dataset.key)")) == sorted(
        f"c:{c}" for c in ("CDF", "CHE", "CON", "IOM", "MON", "PEM"))
    legend = page.locator("svg.board .legend .legend-row").evaluate_all("els => els.map((e) => e.getAttribute('class'))")
    assert "legend-row legend-country-Wales" in legend and "legend-row legend-permission" in legend
    assert page.locator("svg.track [data-completed]").count() == 9
    assert page.locator("svg.board .permanent-marker[data-route='CAL-SOU'] .permanent-label").text_content().endswith("Place 2 Wales")
    seals = page.locator("svg.board .permission")
    assert sorted(seals.evaluate_all("els => els.map((e) => e.dataset.permission)")) == ["CDF", "LON"]
    assert page.locator("svg.board .permission[data-permission='CDF']").get_attribute("data-holder") == ""
    # The hero fills Coventry-Cardiff and Canterbury-Calais (a Merchant on its ship space), takes income.
    script(server, game, hero, ["place T COV-CDF:1", "place T COV-CDF:2", "place T COV-CDF:3",
                                "place T CAN-CAL:1", "place M CAN-CAL:2", "place T CAN-CAL:3", "income 3T", "end"])
    until_hero(server, game, hero)
    page.reload()
    page.wait_for_selector("svg.board .house")
    wait_mine_or_over(page)
    # No permission: no Wales house is a target (England's are).
    assert page.locator("svg.board g.house.country-Wales.free.hl").count() == 0
    assert page.locator("svg.board g.house.country-England.free.hl").count() > 0
    # Claim by clicking Cardiff's first office: the hero holds Cardiff's permission; Wales houses light up.
    before = version(page)
    press(page, board(page, "o:CDF:0"))
    wait_version_change(page, before)
    seal = page.locator("svg.board .permission[data-permission='CDF']")
    assert seal.get_attribute("data-holder") == str(hero) and "used" not in seal.get_attribute("class")
    name = page_view(page)["players"][hero]["name"]
    assert f"held by {name}" in seal.locator("title").text_content()
    assert page.locator("svg.board g.house.country-Wales.free.hl").count() > 0
    shot(page, "britannia_3-desktop-permission")
    act(page, next(m for m in page_view(page)["legal"] if m["text"] == "place T MON-CDF:1"))
    # The next turn: used once, the seal fades and Wales is closed again for this turn.
    until_hero(server, game, hero)
    page.reload()
    page.wait_for_selector("svg.board .house")
    wait_mine_or_over(page)
    assert "used" not in seal.get_attribute("class")
    act(page, next(m for m in page_view(page)["legal"] if m["text"] == "place T CDF-PEM:1"))
    assert "used" in seal.get_attribute("class")
    assert "already used this turn" in seal.locator("title").text_content()
    assert page.locator("svg.board g.house.country-Wales.free.hl").count() == 0
    shot(page, "britannia_3-desktop-permission-used")
    # Canterbury-Calais: its move any 2 by clicking two pieces (they exchange places).
    act(page, next(m for m in page_view(page)["legal"] if m["text"] == "claim CAN-CAL"))
    view = page_view(page)
    assert view["state"]["turn"]["permanent"]["effect"] == "move_any_2"
    assert page.locator("#done-btn").inner_text() == "Decline"
    exchange = next(m for m in view["legal"] if m["json"]["type"] == "exchange")
    press(page, board(page, f"h:{exchange['json']['house']}"))
    assert "exchange" in page.locator("#prompt").inner_text()
    assert page.locator(f"svg.board g.house.hl-swap[data-key='h:{exchange['json']['other']}']").count() == 1
    before = version(page)
    press(page, board(page, f"h:{exchange['json']['other']}"))
    wait_version_change(page, before)
    assert page_view(page)["log"][-1]["move"] == exchange["text"]
    assert "exchanged" in page.locator("#caption .cap-text").inner_text()
    # An exchange moves both pieces: the marker is used up.
    assert page_view(page)["state"]["turn"]["phase"] != "permanent"
    assert page.locator("svg.board .permanent-marker.active").count() == 0


def test_britannia_large_side(new_page: Any, server: Server) -> None:
    game = server.create([{"name": n, "type": "human"} for n in ("Ann", "Bo", "Cy", "Di")], seed=4, options={"map": "britannia"}, hotseat=True)
    page = new_page(phone=True)
    open_game(page, server, game["hotseat_url"])
    assert page.locator("svg.board g.route[data-country='Scotland']").count() > 5
    assert sorted(page.locator("svg.board .permission").evaluate_all("els => els.map((e) => e.dataset.permission)")) == ["CAR", "CDF", "LON"]
    london = page.locator("svg.board .permission[data-permission='LON']")
    assert london.locator(".permission-band").count() == 2  # Wales or Scotland
    legend = page.locator("svg.board .legend .legend-row").evaluate_all("els => els.map((e) => e.getAttribute('class'))")
    assert [x for x in legend if "country" in x] == [
        "legend-row legend-country-England", "legend-row legend-country-Wales", "legend-row legend-country-Scotland"]
    # The Isle of Man is in both countries: two banners.
    assert page.locator("svg.board g.city[data-key='c:IOM'] .country-banner").count() == 2
    # 2-point coins: Bristol, Ipswich, Plymouth.
    assert sorted(page.locator("svg.board .coin-2").evaluate_all("els => els.map((e) => e.closest('g.city').dataset.key)")) == ["c:BRI", "c:IPS", "c:PLY"]
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    shot(page, "britannia_45-phone-start")
