"""The Big Box modules through the web API (docs/rules.md §8): creating a game with them (bad values refused in the
documented error format), the tiles and the promo markers in the public state, each seat's secret mission card in
its own view only (not in another seat's, a spectator's, the move log, the replay positions or a running game's
record), and every card shown once the game has ended."""

from __future__ import annotations

from typing import Any

import httpx
from server_support import Server

PROMO = [
    "extra-office", "extra-office", "swap", "+3", "+4", "improve", "remove3",
    "exchange", "exchange", "tribute", "tribute", "block",
]  # fmt: skip
ALL = {"missions": True, "emperors_favour": True, "marker_supply": PROMO}
PLAYERS = [{"name": "Ann", "type": "human"}, {"name": "Bo", "type": "human"}, {"name": "Cy", "type": "human"}]


def post_game(server: Server, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(server.url + "/api/games", json=body, timeout=10)


def view(server: Server, gid: str, token: str | None = None) -> dict[str, Any]:
    headers = {"X-Hansa-Token": token} if token else {}
    r = httpx.get(f"{server.url}/api/games/{gid}", headers=headers, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def secrets(value: Any) -> list[Any]:
    """Every mission card found in a JSON answer: a "missions" or "mission" key holding anything but the option's
    true/false."""
    found: list[Any] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("missions", "mission") and not isinstance(item, bool):
                found.append(item)
            found += secrets(item)
    elif isinstance(value, list):
        for item in value:
            found += secrets(item)
    return found


def test_bad_module_options_are_refused(server: Server) -> None:
    cases = [
        ({"marker_supply": PROMO[:11]}, "marker_supply"),
        ({"marker_supply": PROMO[:9] + ["block"] * 3}, "marker_supply"),
        ({"marker_supply": "block"}, "marker_supply"),
        ({"marker_supply": PROMO + ["block"] * 5}, "marker_supply"),
        ({"missions": True, "map": "east"}, "missions"),
        ({"missions": "yes"}, "missions"),
    ]
    for options, name in cases:
        r = post_game(server, {"players": PLAYERS, "options": options})
        assert r.status_code in (400, 422), (options, r.text)
        body = r.json()
        assert set(body) == {"error", "rule"}, body
        assert name in body["error"], (options, body)
    r = post_game(server, {"players": PLAYERS, "options": {"marker_supply": ["x" * 41] * 12}})
    assert r.status_code in (400, 422) and set(r.json()) == {"error", "rule"}
    assert httpx.get(server.url + "/api/games").json()["games"] == []


def test_options_list_the_modules(server: Server) -> None:
    options = httpx.get(f"{server.url}/api/options").json()["options"]
    assert options["missions"] == {"values": [True, False], "default": False}
    assert options["emperors_favour"] == {"values": [True, False], "default": False}
    supply = options["marker_supply"]
    assert supply["default"] is None and supply["length"] == 12
    assert supply["values"][-3:] == ["exchange", "tribute", "block"] and supply["most"]["block"] == 2


def test_missions_are_seen_only_by_their_seat(server: Server) -> None:
    r = post_game(server, {"players": PLAYERS, "options": ALL})
    assert r.status_code == 201, r.text
    game = r.json()
    gid = game["id"]
    tokens = [s["token"] for s in game["seats"]]
    cards = []
    for seat, token in enumerate(tokens):
        mine = view(server, gid, token)
        assert set(mine["missions"]) == {str(seat)}
        card = mine["missions"][str(seat)]
        assert len(card["cities"]) == 3 and 1 <= card["card"] <= 9
        cards.append(card["card"])
    assert len(set(cards)) == 3
    spectator = view(server, gid)
    assert "missions" not in spectator
    # the public state: the tiles on display and the promo markers beside routes
    state = spectator["state"]
    assert len(state["favour"]["display"]) == 3 and state["favour"]["owners"] == {}
    assert state["tributes"] == [] and state["blocks"] == []
    assert spectator["options"]["marker_supply"] == PROMO
    # no card in anything public while the game runs
    answers = [
        httpx.get(f"{server.url}/api/games/{gid}/record").json(),
        httpx.get(f"{server.url}/api/games/{gid}/replay/0").json(),
        httpx.get(f"{server.url}/api/games/{gid}/log").json(),
        httpx.get(f"{server.url}/api/games/{gid}/history").json(),
        spectator,
    ]
    for answer in answers:
        assert not secrets(answer), answer
    record = httpx.get(f"{server.url}/api/games/{gid}/record").json()
    assert record["seed"] is None and record["setup"] == {"tiles": state["favour"]["display"]}
    # a move, then the creator stops the game: the cards are shown to everybody
    first = view(server, gid, tokens[0])
    decider = first["state"]["turn"]["decider"]
    move = next(m for m in view(server, gid, tokens[decider])["legal"] if m["text"].startswith("place"))
    r = httpx.post(f"{server.url}/api/games/{gid}/moves", json={"move": move["text"], "version": first["version"]},
                   headers={"X-Hansa-Token": tokens[decider]}, timeout=10)
    assert r.status_code == 200, r.text
    assert set(r.json()["missions"]) == {str(decider)}
    log = httpx.get(f"{server.url}/api/games/{gid}/log").json()
    assert log["moves"] == 1 and not secrets(log)
    r = httpx.post(f"{server.url}/api/games/{gid}/stop", headers={"X-Hansa-Token": game["creator_token"]}, timeout=10)
    assert r.status_code == 200, r.text
    record = httpx.get(f"{server.url}/api/games/{gid}/record").json()
    assert record["setup"]["missions"] == cards and record["seed"] is not None


def test_a_game_without_modules_has_no_module_fields(server: Server) -> None:
    r = post_game(server, {"players": PLAYERS})
    game = r.json()
    mine = view(server, game["id"], game["seats"][0]["token"])
    assert "missions" not in mine
    assert not {"favour", "tributes", "blocks"} & set(mine["state"])
    assert "facedown_markers" not in mine["state"]["players"][0]
    assert "setup" not in httpx.get(f"{server.url}/api/games/{game['id']}/record").json()
