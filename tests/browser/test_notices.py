"""Nothing silent: a banner over the table and a line in the move log for every timeout, turn ended by the clock,
takeover vote, seat taken over or taken back, and the game's end — worded for the player concerned and for the others
(seats and a spectator, in two languages).  The clocks run on the server's injected time (tests/server/clock_support.py)
so a clock runs out at once."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import CHROMIUM, SCREENSHOTS, SIDEWAYS, Server, play_out_via_api

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
from clock_support import ClockServer, FakeTime, clock_server  # noqa: E402

pytest.importorskip("playwright.sync_api", reason="the Python playwright package is not installed")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"browser tests need Debian chromium at {CHROMIUM}")

DESKTOP = {"width": 1280, "height": 800}
HUMANS = [{"name": "Ada", "type": "human"}, {"name": "Bea", "type": "human"}, {"name": "Cy", "type": "human"}]


@pytest.fixture
def clocked(tmp_path: Path) -> Iterator[ClockServer]:
    with clock_server(f"sqlite:///{tmp_path / 'notices.sqlite3'}", FakeTime(), takeover_after=3600.0) as srv:
        yield srv


def shot(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(400)  # the newest banner's slide-in
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def with_lang(url: str, lang: str) -> str:
    path, _, fragment = url.partition("#")
    return f"{path}?lang={lang}" + (f"#{fragment}" if fragment else "")


def open_table(page: Any, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("svg.board .house")
    page.wait_for_function("() => document.body.dataset.version !== undefined")


def notice(page: Any, kind: str, text: str, timeout: float = 10000) -> Any:
    """The banner of ``kind`` saying ``text`` (waited for), checked to be a live region over the board."""
    item = page.locator(f"#notices .notice[data-kind='{kind}']", has_text=text)
    item.first.wait_for(state="visible", timeout=timeout)
    assert page.locator("#notices").get_attribute("aria-live") == "polite"
    assert page.locator("#notices").get_attribute("role") == "status"
    return item.first


def log_note(page: Any, kind: str, text: str) -> None:
    page.wait_for_function(
        "([kind, text]) => [...document.querySelectorAll(`#log .log-note[data-kind='${kind}']`)].some((li) => li.textContent.includes(text))",
        arg=[kind, text],
    )


def board_top(page: Any) -> float:
    return page.evaluate("() => document.querySelector('#board-viewport').getBoundingClientRect().top")  # type: ignore[no-any-return]


def test_timeout_vote_takeover_and_seat_taken_back_are_told(clocked: ClockServer, new_page: Any) -> None:
    clock = {"kind": "realtime", "base": 600, "increment": 0, "on_timeout": "bot", "bot": "random"}
    r = clocked.post("/api/games", {"players": HUMANS, "seed": 4, "clock": clock})
    assert r.status_code == 201, r.text
    g = r.json()
    gid = g["id"]
    seats = g["seats"]
    ada = new_page(viewport=DESKTOP)  # English, desktop: the one whose time runs out
    open_table(ada, clocked.url + with_lang(seats[0]["url"], "en"))
    bea = new_page(viewport=DESKTOP)  # Portuguese, desktop: another player
    open_table(bea, clocked.url + with_lang(seats[1]["url"], "pt"))
    watcher = new_page(phone=True)  # English, phone: a spectator
    open_table(watcher, clocked.url + with_lang(f"/game/{gid}", "en"))
    top = board_top(bea)
    # Ada's time runs out: the random bot plays for her.
    clocked.time.advance(601)
    clocked.tick()
    clocked.idle(gid)
    mine = notice(ada, "timeout", "Your time ran out: the random bot plays for you until you take your seat back.")
    assert mine.locator(".notice-back").inner_text() == "Take back my seat"
    assert "mine" in (mine.get_attribute("class") or "")
    notice(bea, "timeout", "O tempo de Ada acabou: o bot aleatório joga por Ada até que volte.")
    notice(watcher, "timeout", "Ada’s time ran out: the random bot plays for Ada until they come back.")
    log_note(ada, "timeout", "Your time ran out")
    log_note(bea, "timeout", "O tempo de Ada acabou")
    assert board_top(bea) == top  # the banner lies over the table: the board does not move (Ada's own away banner does)
    assert watcher.evaluate(SIDEWAYS) == []
    shot(ada, "notices-timeout-desktop")
    shot(watcher, "notices-timeout-phone")
    # Bea votes to hand Ada's seat to a bot, then withdraws the vote.
    bea.locator(".takeover-btn[data-seat='0']").click()
    notice(ada, "vote", "Bea voted to let a bot take over your seat (1 of 2 votes needed).")
    notice(bea, "vote", "Você votou para um bot assumir o lugar de Ada (1 de 2 votos necessários).")
    notice(watcher, "vote", "Bea voted to let a bot take over Ada’s seat (1 of 2 votes needed).")
    log_note(watcher, "vote", "Bea voted")
    bea.locator(".takeover-btn[data-seat='0']").click()
    notice(ada, "unvote", "Bea withdrew the vote to let a bot take over your seat.")
    notice(bea, "unvote", "Você retirou seu voto sobre o lugar de Ada.")
    notice(watcher, "unvote", "Bea withdrew the vote about Ada’s seat.")
    # Ada takes her seat back from the banner.
    notice(ada, "timeout", "Your time ran out").locator(".notice-back").click()
    notice(ada, "back", "You took your seat back: you play again.")
    notice(bea, "back", "Ada retomou seu lugar e volta a jogar.")
    notice(watcher, "back", "Ada took their seat back and plays again.")
    log_note(bea, "back", "Ada retomou seu lugar")
    assert not clocked.view(gid)["players"][0]["away"]
    # Bea's time runs out (she decides now); Ada and Cy vote, and the bot keeps her seat for good.
    assert clocked.view(gid)["state"]["turn"]["decider"] == 1
    clocked.time.advance(601)
    clocked.tick()
    clocked.idle(gid)
    notice(bea, "timeout", "Seu tempo acabou: o bot aleatório joga por você até você retomar seu lugar.")
    notice(ada, "timeout", "Bea’s time ran out: the random bot plays for Bea until they come back.")
    ada.locator("#takeover .takeover-bot").select_option("heuristic")
    ada.locator(".takeover-btn[data-seat='1']").click()
    notice(bea, "vote", "Ada votou para um bot assumir seu lugar (1 de 2 votos necessários).")
    r = clocked.post(f"/api/games/{gid}/takeover", {"seat": 1, "bot": "heuristic"}, seats[2]["token"])
    assert r.status_code == 200, r.text
    clocked.idle(gid)
    taken = notice(bea, "takenOver", "Os outros jogadores votaram: o bot heurístico joga no seu lugar até o fim da partida.")
    assert taken.locator(".notice-back").count() == 0
    notice(ada, "takenOver", "On the players’ vote, the heuristic bot plays Bea’s seat for the rest of the game.")
    notice(watcher, "takenOver", "On the players’ vote, the heuristic bot plays Bea’s seat for the rest of the game.")
    log_note(bea, "takenOver", "Os outros jogadores votaram")
    # Her page only watches now: the bot's moves for her seat are no longer worded as "for you" in her log.
    bea_log = " ".join(bea.locator("#log .log-move").all_inner_texts())
    assert "por você" not in bea_log and "O bot, por Bea" in bea_log, bea_log
    log_note(watcher, "takenOver", "On the players’ vote")
    shot(bea, "notices-takeover-desktop")
    shot(watcher, "notices-takeover-phone")
    # The creator stops the game: everyone is told.
    r = clocked.post(f"/api/games/{gid}/stop", {}, g["creator_token"])
    assert r.status_code == 200, r.text
    notice(ada, "end", "The game was stopped: no more moves can be made.")
    notice(bea, "end", "A partida foi interrompida: não se pode fazer mais jogadas.")
    notice(watcher, "end", "The game was stopped")
    # A banner goes when closed.
    first = ada.locator("#notices .notice").first
    count = ada.locator("#notices .notice").count()
    first.locator(".notice-close").click()
    assert ada.locator("#notices .notice").count() == count - 1


def test_turn_ended_by_the_clock_is_told(clocked: ClockServer, new_page: Any) -> None:
    clock = {"kind": "realtime", "base": 600, "increment": 0, "on_timeout": "end-turn"}
    r = clocked.post("/api/games", {"players": HUMANS[:2], "seed": 4, "clock": clock})
    assert r.status_code == 201, r.text
    g = r.json()
    gid = g["id"]
    ada = new_page(phone=True)
    open_table(ada, clocked.url + with_lang(g["seats"][0]["url"], "en"))
    bea = new_page(viewport=DESKTOP)
    open_table(bea, clocked.url + with_lang(g["seats"][1]["url"], "es"))
    watcher = new_page(viewport=DESKTOP)
    open_table(watcher, clocked.url + with_lang(f"/game/{gid}", "pt"))
    clocked.time.advance(601)
    clocked.tick()
    clocked.idle(gid)
    assert clocked.view(gid)["state"]["turn"]["decider"] == 1
    notice(ada, "clockEnd", "Your time ran out: the clock ended your turn.")
    notice(bea, "clockEnd", "Se acabó el tiempo de Ada: el reloj terminó el turno de Ada.")
    notice(watcher, "clockEnd", "O tempo de Ada acabou: o relógio encerrou o turno de Ada.")
    # The log's own line of the clock's move tells it (no second line).
    assert ada.locator("#log .log-move[data-by='clock']").count() >= 1
    assert ada.locator("#log .log-note").count() == 0
    assert ada.evaluate(SIDEWAYS) == []
    shot(ada, "notices-clock-end-phone")
    # Bea plays her turn; Ada's next turn is ended by the clock at once (she has no time left): told again.
    for _ in range(40):
        v = clocked.view(gid, g["seats"][1]["token"])
        if v["state"]["turn"]["decider"] != 1:
            break
        legal = v["legal"]
        end = next((m for m in legal if m["json"]["type"] == "end"), None)
        pick = end or next((m for m in legal if m["json"]["type"] in ("income", "place", "done")), legal[0])
        clocked.move(gid, g["seats"][1]["token"], pick["text"])
    clocked.tick()
    clocked.idle(gid)
    turn = clocked.view(gid)["log"][-1]["turn"]
    assert turn > 1 and clocked.view(gid)["log"][-1]["by"] == "clock"
    notice(ada, "clockEnd", "Your time ran out: the clock ended your turn.")
    ada.locator(f"#notices .notice[data-kind='clockEnd'][data-turn='{turn}']").wait_for()
    bea.locator(f"#notices .notice[data-kind='clockEnd'][data-turn='{turn}']", has_text="Se acabó el tiempo de Ada").wait_for()

def test_game_end_is_told_to_the_winner_and_the_others(server: Server, new_page: Any) -> None:
    game = server.create([{"name": "Ada", "type": "human"}, {"name": "Bea", "type": "human"}], seed=11)
    pages = []
    for i, lang in ((0, "en"), (1, "it")):
        page = new_page(viewport=DESKTOP)
        open_table(page, server.base + with_lang(game["seats"][i]["url"], lang))
        pages.append(page)
    watcher = new_page(phone=True)
    open_table(watcher, server.base + with_lang(f"/game/{game['id']}", "cs"))
    final = play_out_via_api(server, game, limit=120)
    winners = final["state"]["result"]["winners"]
    names = ", ".join(final["players"][w]["name"] for w in winners)
    texts = {
        0: ("Game over — you won!" if winners == [0] else "Game over — you share the win!" if 0 in winners else f"Game over — won by {names}."),
        1: ("Partita finita — hai vinto!" if winners == [1] else "Partita finita — condividi la vittoria!" if 1 in winners else f"Partita finita — vince {names}."),
    }
    for i, page in enumerate(pages):
        notice(page, "end", texts[i], timeout=45000)
        log_note(page, "end", texts[i])
    notice(watcher, "end", f"Konec hry — vítězí {names}.", timeout=45000)
