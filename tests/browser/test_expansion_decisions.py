"""Four decisions of the expansion maps made in a real browser by clicks, each set up through the JSON API and then
taken on the board or the action bar: East's *develop Privilege* permanent marker (Stralsund–Malmö), Britannia's
*place 2 in Wales* (Calais–Southampton, small side), a Swap-offices marker in a green city (two permanent-marker
offices in Belgard), and Waren's two ability pills (Actions or Money bags).  Each checks what the player is shown at
the decision (prompt, buttons, highlighted targets, the popup) and every consequence in the state and on the page.

Screenshots of each decision at desktop (1280x800) and phone (390x844) size go to /tmp/shots-expansions/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_support import CHROMIUM, Server, open_game, page_view, version, wait_mine_or_over, wait_version_change
from test_expansion_maps import DESKTOP, act, api_play, api_view, board, hero_page, route_of, shot, until_hero

pytest.importorskip("playwright.sync_api", reason="the Python playwright package is not installed")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"browser tests need Debian chromium at {CHROMIUM}")

PLAYERS = [{"name": n, "type": "human"} for n in ("Ann", "Bo", "Cy")]
NO_SIDEWAYS = "document.documentElement.scrollWidth <= window.innerWidth + 1"


def script_seats(server: Server, game: dict[str, Any], plan: list[tuple[int, str]]) -> dict[str, Any]:
    """Through the API: each ``(seat, move)`` of ``plan`` in turn, the seats not in it ending their turns."""
    queue = list(plan)
    while queue:
        view = api_view(server, game)
        seat, text = queue[0]
        legal = [m["text"] for m in view["legal"]]
        if view["state"]["turn"]["decider"] != seat:
            assert "end" in legal, (view["state"]["turn"], legal[:5])
            api_play(server, game, "end")
            continue
        assert text in legal, (seat, text, legal[:12])
        api_play(server, game, text)
        queue.pop(0)
    return api_view(server, game)


def desk_counts(page: Any, seat: int) -> dict[str, tuple[int, int]]:
    """The Supply and Stock shown on a seat's desk: Traders and Merchants."""
    cells = page.locator(f"#desks .desk[data-seat='{seat}'] .desk-counts .cnt")
    out = {}
    for i, name in enumerate(("supply", "stock")):
        t, m = (int(x) for x in cells.nth(i).locator("b").all_inner_texts())
        out[name] = (t, m)
    return out


def track_level(page: Any, seat: int, ability: str) -> int:
    """The level a desk's ability track shows (the index of its current cell)."""
    row = page.locator(f"#desks .desk[data-seat='{seat}'] .track-row[data-ability='{ability}']")
    return row.locator(".tcell").evaluate_all("els => els.findIndex((e) => e.classList.contains('now'))")  # type: ignore[no-any-return]


def bar_moves(page: Any) -> list[str]:
    """The moves the action bar's buttons make."""
    return page.locator("#action-buttons button[data-move]").evaluate_all("els => els.map((e) => e.dataset.move)")  # type: ignore[no-any-return]


def highlighted(page: Any, selector: str = "[data-key]") -> list[str]:
    """The keys of the highlighted board targets matching ``selector``."""
    return page.locator(f"svg.board {selector}.hl").evaluate_all("els => els.map((e) => e.dataset.key)")  # type: ignore[no-any-return]


def phone_at(new_page: Any, server: Server, game: dict[str, Any]) -> Any:
    phone = new_page(phone=True)
    open_game(phone, server, game["hotseat_url"])
    wait_mine_or_over(phone)
    return phone


# ---------------------------------------------------------------------------------------------- East: develop Privilege


def test_east_develop_privilege_by_the_button(new_page: Any, server: Server) -> None:
    """Stralsund–Malmö (a Trader and two Merchants on its ship spaces; the second Merchant from Breslau's Book)
    claimed through its badge; its permanent marker offers *develop Privilege*: the prompt says so, the bar offers
    the button and Decline, the hero's Privilege track lights up; the button raises Privilege one step (white ->
    orange) and releases a Trader to the Supply."""
    game = server.create(PLAYERS, seed=1, options={"map": "east"}, hotseat=True)
    hero = api_view(server, game)["state"]["turn"]["current"]
    page = hero_page(new_page, server, game, hero, [
        "place T KRA-BRE:1", "place T KRA-BRE:2", "place T KRA-BRE:3", "claim KRA-BRE ability BRE",  # a 2nd Merchant
        "place T STR-MAL:1", "place M STR-MAL:2", "place M STR-MAL:3",
    ])
    view = page_view(page)
    before = view["state"]["players"][hero]
    assert before["abilities"]["privilege"]["value"] == "white"
    claim = next(m for m in view["legal"] if m["text"] == "claim STR-MAL")
    act(page, claim)
    # The decision: the marker's effect explained, its two answers on the bar, the badge glowing.
    view = page_view(page)
    assert view["state"]["turn"]["phase"] == "permanent"
    assert view["state"]["turn"]["permanent"] == {"route": "STR-MAL", "effect": "develop_privilege", "left": 1}
    assert sorted(m["text"] for m in view["legal"]) == ["develop privilege", "done"]
    prompt = page.locator("#prompt").inner_text()
    assert "Privilege +1" in prompt and "Stralsund" in prompt and "develop your Privilege by one step" in prompt
    assert sorted(bar_moves(page)) == ["develop privilege", "done"]
    develop = page.locator("#action-buttons button[data-move='develop privilege']")
    assert develop.inner_text() == "Develop Privilege (free)"
    assert page.locator("#done-btn").inner_text() == "Decline"
    assert page.locator("svg.board .permanent-marker.active").evaluate_all("els => els.map((e) => e.dataset.route)") == ["STR-MAL"]
    hl_rows = page.locator(f"#desks .desk[data-seat='{hero}'] .track-row.hl").evaluate_all("els => els.map((e) => e.dataset.ability)")
    assert hl_rows == ["privilege"]
    assert track_level(page, hero, "privilege") == before["abilities"]["privilege"]["level"]
    supply = desk_counts(page, hero)["supply"]
    shot(page, "develop-desktop")
    phone = phone_at(new_page, server, game)
    assert phone.locator("#action-buttons button[data-move='develop privilege']").is_visible()
    assert phone.locator("#done-btn").inner_text() == "Decline"
    assert "develop your Privilege" in phone.locator("#prompt").inner_text()
    assert phone.evaluate(NO_SIDEWAYS)
    shot(phone, "develop-phone", full=True)
    # Develop by the button.
    old = version(page)
    develop.click()
    wait_version_change(page, old)
    view = page_view(page)
    after = view["state"]["players"][hero]
    assert view["log"][-1]["move"] == "develop privilege"
    assert after["abilities"]["privilege"]["level"] == before["abilities"]["privilege"]["level"] + 1
    assert after["abilities"]["privilege"]["value"] == "orange"
    assert {a: v["level"] for a, v in after["abilities"].items() if a != "privilege"} == {
        a: v["level"] for a, v in before["abilities"].items() if a != "privilege"}
    assert after["supply"]["T"] == before["supply"]["T"] + 1  # the released Trader
    assert view["state"]["turn"]["phase"] != "permanent" and "permanent" not in view["state"]["turn"]
    assert page.locator("svg.board .permanent-marker.active").count() == 0
    assert page.locator("#action-buttons button[data-move='develop privilege']").count() == 0
    assert track_level(page, hero, "privilege") == after["abilities"]["privilege"]["level"]
    assert desk_counts(page, hero)["supply"] == (supply[0] + 1, supply[1])
    assert "developed Privilege" in page.locator("#caption .cap-text").inner_text()


# ---------------------------------------------------------------------------------------------- Britannia: place 2 Wales


def test_britannia_place_two_in_wales(new_page: Any, server: Server) -> None:
    """Calais–Southampton claimed with no benefit (its Trader and two Merchants go to the Stock); *place 2 Wales*:
    only free Wales houses light up; a Trader from the Stock by the piece popup, then a Merchant onto a Wales ship
    space in one click; the Stock pays both, the Supply nothing, and the phase ends."""
    game = server.create(PLAYERS, seed=1, options={"map": "britannia"}, hotseat=True)
    hero = api_view(server, game)["state"]["turn"]["current"]
    page = hero_page(new_page, server, game, hero, [
        "place T CAM-NOR:1", "place T CAM-NOR:2", "place T CAM-NOR:3", "claim CAM-NOR ability NOR",  # a 2nd Merchant
        "place T CAL-SOU:1", "place M CAL-SOU:2", "place M CAL-SOU:3",
    ])
    layout = server.call("GET", "/api/boards/britannia_3")
    country = {r["code"]: r.get("country") for r in layout["routes"]}
    ships = {h["name"] for r in layout["routes"] for h in r["houses"] if h.get("ship")}
    act(page, next(m for m in page_view(page)["legal"] if m["text"] == "claim CAL-SOU"))
    view = page_view(page)
    assert view["state"]["turn"]["permanent"] == {"route": "CAL-SOU", "effect": "place_2_in_wales_or_scotland", "left": 2}
    me = view["state"]["players"][hero]
    assert me["stock"]["M"] == 2 and me["stock"]["T"] > 0  # the claimed route's pieces: place 2 takes from here
    prompt = page.locator("#prompt").inner_text()
    assert "Place 2 Wales" in prompt and "free house of a Wales route" in prompt and "2 moves left" in prompt
    assert page.locator("#done-btn").inner_text() == "Decline"
    assert page.locator("svg.board .permanent-marker.active[data-route='CAL-SOU']").count() == 1
    # The targets: exactly the free Wales houses, every one of them.
    places = [m for m in view["legal"] if m["json"]["type"] == "place"]
    targets = {m["json"]["house"] for m in places}
    free_wales = {h["name"] for r in layout["routes"] if r.get("country") == "Wales" for h in r["houses"]} - set(view["state"]["houses"])
    assert targets == free_wales and len(targets) > 5
    assert set(highlighted(page, "g.house")) == {f"h:{h}" for h in targets}
    assert page.locator("svg.board g.house.country-England.hl").count() == 0
    counts = desk_counts(page, hero)
    assert counts == {"supply": (me["supply"]["T"], me["supply"]["M"]), "stock": (me["stock"]["T"], me["stock"]["M"])}
    shot(page, "place2-desktop")
    phone = phone_at(new_page, server, game)
    assert "free house of a Wales route" in phone.locator("#prompt").inner_text()
    assert phone.locator("#done-btn").inner_text() == "Decline"
    assert phone.locator("svg.board g.house.country-Wales.free.hl").count() == len(targets)
    assert phone.evaluate(NO_SIDEWAYS)
    shot(phone, "place2-phone", full=True)
    # First a Trader on a land house: the popup asks which piece.
    land = next(m for m in places if m["json"]["piece"] == "T")
    old = version(page)
    board(page, f"h:{land['json']['house']}").click()
    popup = page.locator("#popup")
    popup.wait_for(state="visible")
    assert sorted(popup.locator("button[data-move]").evaluate_all("els => els.map((e) => e.dataset.move)")) == sorted(
        m["text"] for m in places if m["json"]["house"] == land["json"]["house"])
    shot(page, "place2-desktop-popup")
    popup.locator(f"button[data-move='{land['text']}']").click()
    wait_version_change(page, old)
    view = page_view(page)
    assert view["state"]["houses"][land["json"]["house"]] == [hero, "T"]
    assert view["state"]["turn"]["permanent"]["left"] == 1
    assert "1 move left" in page.locator("#prompt").inner_text()
    assert page.locator("#done-btn").inner_text() == "Done"
    assert desk_counts(page, hero) == {"supply": counts["supply"], "stock": (counts["stock"][0] - 1, counts["stock"][1])}
    # The second piece: the Wales houses still free light up (and still no England house).
    assert set(highlighted(page, "g.house")) == {f"h:{h}" for h in targets - {land["json"]["house"]}}
    # Then a Merchant onto a Wales ship space: a Merchant is all it takes, one click.
    ship = next(m for m in view["legal"] if m["json"]["type"] == "place" and m["json"]["house"] in ships)
    assert ship["json"]["piece"] == "M" and country[route_of(ship["json"]["house"])] == "Wales"
    old = version(page)
    board(page, f"h:{ship['json']['house']}").click()
    wait_version_change(page, old)
    view = page_view(page)
    assert view["state"]["houses"][ship["json"]["house"]] == [hero, "M"]
    assert [e["move"] for e in view["log"][-2:]] == [land["text"], ship["text"]]
    # Two placed: the marker is used up, the Stock paid for both, the Supply nothing.
    assert view["state"]["turn"]["phase"] != "permanent"
    assert page.locator("svg.board .permanent-marker.active").count() == 0
    assert page.locator("#done-btn").count() == 0
    me_after = view["state"]["players"][hero]
    assert me_after["stock"] == {"T": me["stock"]["T"] - 1, "M": me["stock"]["M"] - 1}
    assert me_after["supply"] == me["supply"]
    assert desk_counts(page, hero) == {"supply": counts["supply"], "stock": (counts["stock"][0] - 1, counts["stock"][1] - 1)}
    assert "placed a Merchant" in page.locator("#caption .cap-text").inner_text()


# ---------------------------------------------------------------------------------------------- East: a swap in a green city


def test_east_swap_offices_in_a_green_city(new_page: Any, server: Server) -> None:
    """Belgard holds two offices from the Malmö–Visby permanent marker, the hero's left of Bo's (so Bo controls it);
    the hero's Swap-offices marker (from the Brandenburg–Tangermünde tavern) swaps them by clicking: Swap offices…,
    both offices light up in the castle, one click; the hero's office is now the rightmost and controls Belgard, the
    marker is used."""
    game = server.create(PLAYERS, seed=1, options={"map": "east"}, hotseat=True)
    hero = api_view(server, game)["state"]["turn"]["current"]
    other = (hero + 1) % 3
    assert api_view(server, game)["state"]["route_markers"]["BRA-TAN"] == "swap"
    script_seats(server, game, [
        (hero, "place T BRA-TAN:1"), (hero, "place T BRA-TAN:2"), (hero, "claim BRA-TAN"),  # the Swap marker
        (hero, "place T MAL-VIS:1"), (hero, "marker MAG-HAL"),
        (hero, "place M MAL-VIS:2"), (hero, "place T MAL-VIS:3"), (hero, "claim MAL-VIS"), (hero, "green BEL T"),
        (other, "place T MAL-VIS:1"), (other, "place M MAL-VIS:2"), (other, "place T MAL-VIS:3"),
        (other, "claim MAL-VIS"), (other, "green BEL T"),
    ])
    until_hero(server, game, hero)
    page = new_page(viewport=DESKTOP)
    open_game(page, server, game["hotseat_url"])
    wait_mine_or_over(page)
    view = page_view(page)
    st = view["state"]
    assert st["right_offices"]["BEL"] == [[hero, "T"], [other, "T"]] and "BEL" not in st["extra_offices"]
    assert st["controllers"]["BEL"] == other
    assert st["players"][hero]["markers"] == ["swap"]
    swap = next(m for m in view["legal"] if m["json"]["type"] == "swap")
    assert swap["text"] == "use swap BEL 1"
    owners = "els => els.map((e) => e.querySelector('.piece-g').dataset.owner)"
    offices = page.locator("svg.board g.city[data-key='c:BEL'] g.green-office")
    assert offices.evaluate_all(owners) == [str(hero), str(other)]
    ring = page.locator("svg.board g.city[data-key='c:BEL'] .controller-ring")
    assert ring.get_attribute("stroke") == view["players"][other]["colour"]
    # Not a target before the marker is chosen.
    assert highlighted(page, "g.green-office") == []
    page.locator("#action-buttons button[data-action='swap']").click()
    assert page.locator("#action-buttons button[data-action='swap']").inner_text() == "Cancel swap"
    assert "swap it with its neighbour" in page.locator("#prompt").inner_text()
    assert sorted(highlighted(page)) == ["c:BEL", "g:BEL:0", "g:BEL:1"]
    shot(page, "green-swap-desktop")
    phone = phone_at(new_page, server, game)
    phone.locator("#action-buttons button[data-action='swap']").click()
    assert sorted(highlighted(phone)) == ["c:BEL", "g:BEL:0", "g:BEL:1"]
    assert "swap it with its neighbour" in phone.locator("#prompt").inner_text()
    assert phone.evaluate(NO_SIDEWAYS)
    shot(phone, "green-swap-phone", full=True)
    # Click Bo's office: the two change places.
    old = version(page)
    board(page, "g:BEL:1").click()
    wait_version_change(page, old)
    view = page_view(page)
    st = view["state"]
    assert view["log"][-1]["move"] == "use swap BEL 1"
    assert st["right_offices"]["BEL"] == [[other, "T"], [hero, "T"]]
    assert st["controllers"]["BEL"] == hero
    assert st["players"][hero]["markers"] == [] and st["players"][hero]["used_markers"] == ["swap"]
    assert offices.evaluate_all(owners) == [str(other), str(hero)]
    assert ring.get_attribute("stroke") == view["players"][hero]["colour"]  # Belgard's controller: the rightmost
    assert "swapped two offices in Belgard" in page.locator("#caption .cap-text").inner_text()
    assert page.locator("#action-buttons button[data-action='swap']").count() == 0
    assert highlighted(page, "g.green-office") == []


# ---------------------------------------------------------------------------------------------- East: Waren's two abilities


def test_east_waren_ability_pills(new_page: Any, server: Server) -> None:
    """Waren–Havelberg full of the hero's Traders: both of Waren's ability pills are targets and the route's claim
    popup lists both abilities; clicking the Money bags pill claims with that ability at once: Bags up one step, a
    Trader released to the Supply, Actions unchanged."""
    game = server.create(PLAYERS, seed=1, options={"map": "east"}, hotseat=True)
    hero = api_view(server, game)["state"]["turn"]["current"]
    page = hero_page(new_page, server, game, hero, ["place T WAR-HAV:1", "place T WAR-HAV:2", "place T WAR-HAV:3"])
    view = page_view(page)
    before = view["state"]["players"][hero]
    claims = sorted(m["text"] for m in view["legal"] if m["json"]["type"] == "claim")
    assert {"claim WAR-HAV ability WAR actions", "claim WAR-HAV ability WAR bags"} <= set(claims)
    # Both pills are targets; each names its ability.
    assert highlighted(page, "g.ability") == ["ab:WAR:actions", "ab:WAR:bags"]
    pills = page.locator("svg.board g.city[data-key='c:WAR'] g.ability")
    labels = pills.locator(".ability-label").all_text_contents()
    assert len(labels) == 2 and all(x.startswith("▲ ") for x in labels) and labels[0] != labels[1]
    assert "Actions" in pills.nth(0).locator("title").text_content()
    assert "Money bags" in pills.nth(1).locator("title").text_content()
    # The route's claim popup offers both abilities (with the others).
    page.locator("svg.board .claim-badge[data-key='r:WAR-HAV']").click()
    popup = page.locator("#popup")
    popup.wait_for(state="visible")
    assert sorted(popup.locator("button[data-move]").evaluate_all("els => els.map((e) => e.dataset.move)")) == claims
    texts = {b: popup.locator(f"button[data-move='claim WAR-HAV ability WAR {b}']").inner_text() for b in ("actions", "bags")}
    assert "Actions" in texts["actions"] and "Money bags" in texts["bags"]
    shot(page, "waren-desktop-popup")
    phone = phone_at(new_page, server, game)
    assert sorted(highlighted(phone, "g.ability")) == ["ab:WAR:actions", "ab:WAR:bags"]
    phone.locator("#action-buttons button.claim-btn[data-route='WAR-HAV']").click()
    phone.locator("#popup").wait_for(state="visible")
    assert phone.locator("#popup button[data-move='claim WAR-HAV ability WAR bags']").is_visible()
    assert phone.evaluate(NO_SIDEWAYS)
    shot(phone, "waren-phone-popup")
    phone.locator("#popup .popup-cancel").click()
    # Close the popup and choose by the pill.
    popup.locator(".popup-cancel").click()
    assert popup.is_hidden()
    shot(page, "waren-desktop-pills")
    old = version(page)
    board(page, "ab:WAR:bags").click()
    wait_version_change(page, old)
    assert popup.is_hidden()  # the pill is the whole choice: no popup
    view = page_view(page)
    after = view["state"]["players"][hero]
    assert view["log"][-1]["move"] == "claim WAR-HAV ability WAR bags"
    assert after["abilities"]["bags"]["level"] == before["abilities"]["bags"]["level"] + 1
    assert after["abilities"]["actions"]["level"] == before["abilities"]["actions"]["level"]
    assert after["supply"]["T"] == before["supply"]["T"] + 1  # the Trader uncovered on the Bags track
    assert not any(route_of(h) == "WAR-HAV" for h in view["state"]["houses"])
    assert track_level(page, hero, "bags") == after["abilities"]["bags"]["level"]
    assert track_level(page, hero, "actions") == before["abilities"]["actions"]["level"]
    assert highlighted(page, "g.ability") == []
    assert "improved Money bags (Waren)" in page.locator("#caption .cap-text").inner_text()
