"""The expansion maps through the web API: the ``map`` option at creation (two players refused there, in the
documented error format), the board layouts of every side, the options' per-map defaults, and the map named in the
lobby list and in "my games"."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from server_support import Server

HUMAN = {"name": "Ann", "type": "human"}


def post_game(server: Server, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(server.url + "/api/games", json=body, timeout=10)


@pytest.mark.parametrize("map_name", ["east", "britannia"])
def test_two_players_are_refused_on_the_expansion_maps(server: Server, map_name: str) -> None:
    r = post_game(server, {"players": [HUMAN, {"name": "Bo"}], "options": {"map": map_name}})
    assert r.status_code == 400, r.text
    # docs/api.md: every error is {"error": "message", "rule": "§…" | null}.
    body = r.json()
    assert set(body) == {"error", "rule"} and body["rule"] is None
    assert f"the {map_name} map is played by 3 to 5 players, not 2" in body["error"]
    # The same through the option's other name, and nothing was created.
    r = post_game(server, {"players": [HUMAN, {"name": "Bo"}], "options": {"board": map_name}})
    assert r.status_code == 400 and "3 to 5 players" in r.json()["error"]
    assert httpx.get(server.url + "/api/games").json()["games"] == []


def test_bad_map_values(server: Server) -> None:
    for options in ({"map": "mars"}, {"map": 3}, {"map": "east", "green_city_swap": "sometimes"}):
        r = post_game(server, {"players": [HUMAN, {"name": "Bo"}, {"name": "Cy"}], "options": options})
        assert r.status_code == 400, (options, r.text)
        assert r.json()["rule"] is None and "option" in r.json()["error"]


def test_expansion_games_name_their_map(server: Server) -> None:
    east = post_game(server, {"players": [HUMAN, {"name": "Bo"}, {"name": "Cy"}], "options": {"map": "east"}})
    assert east.status_code == 201, east.text
    brit = post_game(server, {"players": [HUMAN, {"name": "Bo"}, {"name": "Cy"}, {"name": "Di"}], "options": {"map": "britannia"}})
    assert brit.status_code == 201, brit.text
    base = post_game(server, {"players": [HUMAN, {"name": "Bo"}]})
    games = {g["id"]: g for g in httpx.get(server.url + "/api/games").json()["games"]}
    assert games[east.json()["id"]]["map"] == "east"
    assert games[brit.json()["id"]]["map"] == "britannia"
    assert games[base.json()["id"]]["map"] == "base"
    # The view: the board side and the options; Britannia's permissions (nobody holds one yet).
    view = httpx.get(f"{server.url}/api/games/{brit.json()['id']}").json()
    assert view["board_side"] == "britannia_45" and view["options"] == {"map": "britannia"}
    assert view["state"]["turn"]["permissions"] == [
        {"city": "CAR", "countries": ["Scotland"], "holder": None, "used": False},
        {"city": "CDF", "countries": ["Wales"], "holder": None, "used": False},
        {"city": "LON", "countries": ["Wales", "Scotland"], "holder": None, "used": False},
    ]
    # "My games" names the map too.
    token = east.json()["seats"][0]["token"]
    mine = httpx.post(server.url + "/api/my-games", json={"games": [{"id": east.json()["id"], "token": token}]}, timeout=10).json()
    assert mine["games"][0]["map"] == "east"


def test_boards_and_option_defaults(server: Server) -> None:
    for side, map_name, to_end in (("east", "east", 10), ("britannia_3", "britannia", 8), ("britannia_45", "britannia", 8)):
        layout = httpx.get(f"{server.url}/api/boards/{side}").json()
        assert layout["map"] == map_name and layout["cities_to_end"] == to_end and layout["side"] == side
        assert any(h.get("ship") for r in layout["routes"] for h in r["houses"])
        assert any(r.get("permanent") for r in layout["routes"])
    r = httpx.get(f"{server.url}/api/boards/mars")
    assert r.status_code == 404 and "east, britannia_3 and britannia_45" in r.json()["error"]
    options = httpx.get(f"{server.url}/api/options").json()
    assert options["options"]["map"] == {"values": ["base", "east", "britannia"], "default": "base"}
    assert options["map_defaults"] == {"britannia": {"remove3_mode": "move"}}
