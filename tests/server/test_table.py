"""Table features of the API: player colours, table options, hints on request."""

from __future__ import annotations

import httpx
from server_support import Server
from test_api import HUMAN, auth, create, view

from hansa.server.store import PALETTE


def test_colours_chosen_defaulted_and_validated(make_server) -> None:  # type: ignore[no-untyped-def]
    server: Server = make_server()
    palette = httpx.get(server.url + "/api/colours").json()
    assert [c["name"] for c in palette["colours"]] == list(PALETTE)
    assert palette["default"][:3] == ["red", "blue", "green"]
    g = create(server, [{"name": "Ann", "colour": "teal"}, {"name": "Bo"}, {"name": "Cy", "colour": "red"}])
    players = view(server, g["id"])["players"]
    assert [p["colour_name"] for p in players] == ["teal", "blue", "red"]
    assert players[0]["colour"] == PALETTE["teal"][0] and players[0]["symbol"] == PALETTE["teal"][1]
    assert len({p["symbol"] for p in players}) == 3
    for bad in ({"players": [{"name": "A", "colour": "red"}, {"name": "B", "colour": "red"}]},
                {"players": [{"name": "A", "colour": "orange"}, {"name": "B"}]},
                {"players": [{"name": "A", "colour": "#ff0000"}, {"name": "B"}]}):
        r = httpx.post(server.url + "/api/games", json=bad)
        assert r.status_code == 400 and set(r.json()) == {"error", "rule"}, r.text
    server.restart()  # colours are stored
    assert [p["colour_name"] for p in view(server, g["id"])["players"]] == ["teal", "blue", "red"]


def test_hints_for_the_deciding_player_only_and_when_allowed(make_server) -> None:  # type: ignore[no-untyped-def]
    server: Server = make_server()
    g = create(server, [HUMAN, {"name": "Bo"}], seed=5)
    gid = g["id"]
    v = view(server, gid)
    assert v["table"] == {"hints": True, "hotseat": False}
    decider = v["state"]["turn"]["decider"]
    me, other = g["seats"][decider]["token"], g["seats"][1 - decider]["token"]
    r = httpx.post(f"{server.url}/api/games/{gid}/hint", headers=auth(me))
    assert r.status_code == 200, r.text
    h = r.json()
    legal = [m["text"] for m in view(server, gid, me)["legal"]]
    assert h["move"] in legal and h["version"] == 0
    assert h["reason"]["kind"] in ("place", "income", "displace", "claim", "end", "lift") and "points" in h["reason"]
    assert httpx.post(f"{server.url}/api/games/{gid}/hint", headers=auth(other)).status_code == 403
    assert httpx.post(f"{server.url}/api/games/{gid}/hint").status_code == 403
    assert view(server, gid)["version"] == 0  # a hint changes nothing
    off = create(server, [HUMAN, {"name": "Bo"}], seed=5, table={"hints": False})
    assert view(server, off["id"])["table"] == {"hints": False, "hotseat": False}
    r = httpx.post(f"{server.url}/api/games/{off['id']}/hint", headers=auth(off["seats"][decider]["token"]))
    assert r.status_code == 409 and "off" in r.json()["error"]
    # the hot-seat token asks for the deciding seat's hint, when the game allows hints
    hot = create(server, [HUMAN, {"name": "Bo"}], hotseat=True, seed=5)
    assert view(server, hot["id"])["table"] == {"hints": True, "hotseat": True}
    r = httpx.post(f"{server.url}/api/games/{hot['id']}/hint", headers=auth(hot["hotseat_token"]))
    assert r.status_code == 200 and r.json()["move"] in [m["text"] for m in view(server, hot["id"], hot["hotseat_token"])["legal"]]
    off = create(server, [HUMAN, {"name": "Bo"}], hotseat=True, seed=5, table={"hints": False})
    assert view(server, off["id"])["table"] == {"hints": False, "hotseat": True}
    r = httpx.post(f"{server.url}/api/games/{off['id']}/hint", headers=auth(off["hotseat_token"]))
    assert r.status_code == 409 and "off" in r.json()["error"]
    r = httpx.post(server.url + "/api/games", json={"players": [HUMAN, {"name": "Bo"}], "table": {"hints": "yes"}})
    assert r.status_code == 400


def test_log_entries_say_what_each_move_changed(make_server) -> None:  # type: ignore[no-untyped-def]
    """The view's log carries each move's JSON and what it changed on the table (for captions and animation);
    the same after a restart (rebuilt from the record)."""
    from test_hostile import play_random_moves

    server: Server = make_server()
    g = create(server, [HUMAN, {"name": "Bo"}, {"name": "Cy"}], hotseat=True, seed=9)
    play_random_moves(server, g["id"], g["hotseat_token"], 120)
    log = view(server, g["id"])["log"]
    assert len(log) == 60 and log[-1]["n"] == 120
    assert {e["by"] for e in log} == {"hotseat"}  # every move was made with the hot-seat token
    places = [e for e in log if e["json"]["type"] == "place"]
    assert places
    for e in places:
        house = e["json"]["house"]
        assert e["delta"]["houses"] == {house: [None, [e["seat"], e["json"]["piece"]]]}
    for e in log:
        if e["json"]["type"] == "claim":  # the route is emptied (its pieces to an office, the stock or the table)
            route = e["json"]["route"]
            changed = {h: v for h, v in e["delta"]["houses"].items() if h.startswith(route + ":")}
            assert changed and all(after is None for _before, after in changed.values())
    server.restart()
    assert view(server, g["id"])["log"] == log
