"""Browser tests of the replay viewer: the move list (grouped by turn; a click or Enter jumps the board to a move,
the shown move stays highlighted and in view), the scores after the shown move, the final scoring of a finished
game, the chart with the final totals, and a phone layout without sideways scrolling."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_support import CHROMIUM, SIDEWAYS, Server, choose, history_turns, move_log, play_out_via_api

pytest.importorskip("playwright.sync_api", reason="the Python playwright package is not installed")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"browser tests need Debian chromium at {CHROMIUM}")

PHONE = {"width": 390, "height": 844}

@pytest.fixture(scope="module")
def finished(server: Server) -> dict[str, Any]:
    """A finished two-player game (a human seat played through the API against the heuristic bot)."""
    game = server.create([{"name": "Hero", "type": "human"}, {"name": "Robo", "type": "bot", "bot": "heuristic"}], seed=17)
    view = play_out_via_api(server, game)
    history = {"turns": history_turns(server, game["id"])}
    return {"id": game["id"], "view": view, "history": history}


@pytest.fixture(scope="module")
def finished5(server: Server) -> dict[str, Any]:
    """A finished five-player game with long names (every seat played through the API)."""
    names = ["Annemarie-Luise", "Bartholomew K.", "Cunegonde", "Dietrich von Hansa", "Eve"]
    game = server.create([{"name": n, "type": "human"} for n in names], seed=5, hotseat=True)
    view = play_out_via_api(server, game, limit=120)
    return {"id": game["id"], "view": view}


def open_replay(page: Any, server: Server, game_id: str, k: int | None = None) -> None:
    page.goto(f"{server.base}/replay/{game_id}" + (f"?k={k}" if k is not None else ""))
    page.wait_for_selector("body[data-ready='1']")


def shown(page: Any) -> int:
    return int(page.evaluate("document.body.dataset.k"))


def wait_k(page: Any, k: int) -> None:
    page.wait_for_function(f"() => document.body.dataset.k === '{k}'")


def current_item(page: Any) -> int:
    items = page.locator("#move-list .ml-move.current")
    assert items.count() == 1
    assert items.get_attribute("aria-selected") == "true"
    return int(items.get_attribute("data-n"))


def in_list_view(page: Any, n: int) -> bool:
    return page.evaluate(  # type: ignore[no-any-return]
        """(n) => {
        const list = document.querySelector('#move-list');
        const li = list.querySelector(`.ml-move[data-n='${n}']`);
        const a = list.getBoundingClientRect(), b = li.getBoundingClientRect();
        return b.top >= a.top - 1 && b.bottom <= a.bottom + 1;
      }""",
        n,
    )


def test_move_list_jumps_to_a_move(new_page: Any, server: Server, finished: dict[str, Any]) -> None:
    history = finished["history"]["turns"]
    view = finished["view"]
    total = view["version"]
    page = new_page({"width": 1280, "height": 800})
    open_replay(page, server, finished["id"])
    # Every move is listed under its turn, the turn's header names its player.
    items = page.locator("#move-list .ml-move")
    assert items.count() == total + 1  # the start and every move
    assert [int(n) for n in items.evaluate_all("xs => xs.map(x => x.dataset.n)")] == list(range(total + 1))
    # Each move in a sentence (from GET /log), its notation in the tooltip.
    log = {e["n"]: e for e in move_log(server, finished["id"])}
    assert items.nth(5).get_attribute("title") == history[5]["move"]
    sentence = items.nth(5).locator(".ml-text").inner_text()
    names = [p["name"] for p in view["players"]]
    assert sentence != history[5]["move"] and names[log[5]["seat"]] in sentence
    for n in range(1, total + 1):
        if log[n]["json"]["type"] == "claim":
            text = items.nth(n).locator(".ml-text").inner_text()
            assert "claimed" in text and "–" in text, text  # "Ann claimed Kampen–Osnabrück ..."
            break
    turns = sorted({t["turn"] for t in history[1:]})
    headers = page.locator("#move-list .ml-turn")
    assert [int(x) for x in headers.evaluate_all("xs => xs.map(x => x.dataset.turn)")] == turns
    start = view["state"]["turn"]["start_player"]
    names = [p["name"] for p in view["players"]]
    for i in (0, 1, 2):
        assert headers.nth(i).locator(".nm").inner_text() == names[(start + turns[i] - 1) % len(names)]
    # The last move is shown, highlighted and in view.
    assert shown(page) == total and current_item(page) == total
    assert in_list_view(page, total)
    pieces_end = page.locator("svg.board .piece").count()
    # A click jumps the board to that move.
    page.locator("#move-list .ml-move[data-n='10']").click()
    wait_k(page, 10)
    assert page.locator("#move-num").inner_text() == f"10 / {total}"
    assert page.locator("#move-text").inner_text() == history[10]["move"]
    assert current_item(page) == 10
    assert page.locator("svg.board .piece").count() != pieces_end
    assert page.locator("#slider").input_value() == "10"
    # Enter on a focused move jumps to it.
    page.locator("#move-list .ml-move[data-n='25']").focus()
    page.keyboard.press("Enter")
    wait_k(page, 25)
    assert current_item(page) == 25
    assert page.locator("#move-text").inner_text() == history[25]["move"]
    # Arrows still step (and the list follows); up and down step inside the list.
    page.keyboard.press("ArrowRight")
    wait_k(page, 26)
    assert current_item(page) == 26
    page.keyboard.press("ArrowDown")
    wait_k(page, 27)
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    wait_k(page, 25)
    assert page.evaluate("document.activeElement.dataset.n") == "25"
    page.click("#prev-btn")
    wait_k(page, 24)
    assert current_item(page) == 24
    # Far jumps keep the highlighted move scrolled into view in the list.
    page.keyboard.press("Home")
    wait_k(page, 0)
    assert current_item(page) == 0 and in_list_view(page, 0)
    page.keyboard.press("End")
    wait_k(page, total)
    assert in_list_view(page, total)
    page.locator("#slider").fill(str(total // 2))
    wait_k(page, total // 2)
    assert current_item(page) == total // 2 and in_list_view(page, total // 2)


def test_scores_final_table_and_chart(new_page: Any, server: Server, finished: dict[str, Any]) -> None:
    history = finished["history"]
    view = finished["view"]
    total = view["version"]
    result = view["state"]["result"]
    page = new_page({"width": 1280, "height": 800})
    open_replay(page, server, finished["id"], k=total)
    # In-game scores after the shown move.
    rows = page.locator("#score-now tbody tr")
    assert rows.count() == len(view["players"])
    assert [int(x) for x in rows.locator(".sn-score").all_inner_texts()] == history["turns"][total]["scores"]
    k = next(t["n"] for t in history["turns"] if any(t["scores"]))  # the first move that scored
    page.locator(f"#move-list .ml-move[data-n='{k}']").click()
    wait_k(page, k)
    assert page.locator("#scores-title").inner_text() == f"Scores after move {k}"
    assert [int(x) for x in rows.locator(".sn-score").all_inner_texts()] == history["turns"][k]["scores"]
    assert any(x.startswith("+") for x in rows.locator(".sn-gain").all_inner_texts())
    # The final scoring: a column per player, best first, every category; the winner marked.
    assert page.locator("#final").is_visible()
    table = page.locator("#final-scores")
    order = sorted(result["scores"], key=lambda sc: (-sc["total"], sc["player"]))
    heads = table.locator("thead th.ft-player")
    assert [int(x) for x in heads.evaluate_all("xs => xs.map(x => x.dataset.seat)")] == [sc["player"] for sc in order]
    for key in ("in_game", "abilities", "markers", "coellen", "control", "network", "total"):
        cells = table.locator(f"tr[data-row='{key}'] td").all_inner_texts()
        assert [int(x) for x in cells] == [sc[key] for sc in order], key
    winners = {view["players"][w]["name"] for w in result["winners"]}
    assert {x.strip() for x in page.locator(".ft-winners .nm").all_inner_texts()} == winners
    assert table.locator("th.ft-player.winner").count() == len(result["winners"])
    # The chart: a line per player, the final totals as dots and in the legend; the shown move marked.
    chart = page.locator("#chart svg.chart")
    assert chart.locator("path.series").count() == len(view["players"])
    assert chart.locator("g.final-total").count() == len(view["players"])
    finals = {sc["player"]: sc["total"] for sc in result["scores"]}
    for seat, total_points in finals.items():
        assert page.locator(f"#chart .chart-key[data-seat='{seat}'] .key-final").inner_text() == str(total_points)
        assert chart.locator(f"text.final-value[data-seat='{seat}']").text_content() == str(total_points)
    assert chart.locator(".chart-cursor").get_attribute("visibility") == "visible"
    # A click on the chart jumps there.
    box = chart.bounding_box()
    assert box
    chart.click(position={"x": box["width"] * 0.3, "y": box["height"] / 2})
    page.wait_for_function(f"() => Number(document.body.dataset.k) > 0 && document.body.dataset.k !== '{k}'")
    assert 0 < shown(page) < total
    assert current_item(page) == shown(page)


def test_running_game_has_no_final_table(new_page: Any, server: Server) -> None:
    game = server.create([{"name": "Ann", "type": "human"}, {"name": "Ben", "type": "human"}], seed=9, hotseat=True)
    for _ in range(12):
        view = server.call("GET", f"/api/games/{game['id']}", token=game["hotseat_token"])
        move = choose(view)
        server.call(
            "POST", f"/api/games/{game['id']}/moves",
            {"move": move["text"], "version": view["version"], "seat": view["state"]["turn"]["decider"]}, token=game["hotseat_token"],
        )
    page = new_page()
    open_replay(page, server, game["id"], k=4)
    assert shown(page) == 4 and current_item(page) == 4
    assert page.locator("#move-list .ml-move").count() == 13
    assert page.locator("#final").is_hidden()
    assert page.locator("#chart .key-final").count() == 0
    assert page.locator("#chart g.final-total").count() == 0


@pytest.mark.parametrize("which", ["finished", "finished5"])
def test_replay_fits_a_phone(new_page: Any, server: Server, which: str, request: pytest.FixtureRequest) -> None:
    game = request.getfixturevalue(which)
    page = new_page(PHONE)
    open_replay(page, server, game["id"])
    assert page.evaluate(SIDEWAYS) == []
    # The board fills the width; the move list and the scores come below it.
    board = page.locator("svg.board").bounding_box()
    assert board and board["width"] >= PHONE["width"] - 40
    moves = page.locator("#move-list").bounding_box()
    assert moves and moves["y"] >= board["y"] + board["height"]
    # The final table: every column inside its box, which is inside the phone's width (no cut-off column).
    page.locator("#final").scroll_into_view_if_needed()
    frame = page.locator("#final-table .table-scroll").bounding_box()
    assert frame and frame["x"] >= 0 and frame["x"] + frame["width"] <= PHONE["width"]
    cols = page.locator("#final-scores thead th")
    assert cols.count() == len(game["view"]["players"]) + 1
    for i in range(cols.count()):
        b = cols.nth(i).bounding_box()
        assert b and b["x"] >= frame["x"] - 1 and b["x"] + b["width"] <= frame["x"] + frame["width"] + 1, cols.nth(i).inner_text()
    # Mid-game too.
    page.locator("#move-list .ml-move[data-n='30']").click()
    wait_k(page, 30)
    assert page.evaluate(SIDEWAYS) == []
