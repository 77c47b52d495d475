"""Board data: both sides equal the verified facts of the reference board facts (tests/fixtures/boards.json, checked against ../shared when present); derived tables are right."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hansa.core.board import Board, board_for_players, load_board, side_for_players

HERE = Path(__file__).parent
VENDORED = HERE / "fixtures" / "boards.json"
SHARED = Path(os.environ.get("HANSA_SHARED", HERE.parent.parent / "shared")) / "boards.json"


def reference() -> dict:
    """The shared reference file when it is beside the project, else the vendored copy of it."""
    return json.loads((SHARED if SHARED.exists() else VENDORED).read_text(encoding="utf-8"))


@pytest.mark.skipif(not SHARED.exists(), reason="../shared is not beside this clone")
def test_vendored_copy_is_the_shared_file() -> None:
    assert json.loads(VENDORED.read_text()) == json.loads(SHARED.read_text())


@pytest.mark.parametrize("players,side", [(2, "2-3"), (3, "2-3"), (4, "4-5"), (5, "4-5")])
def test_side_by_player_count(players: int, side: str) -> None:
    assert side_for_players(players) == side
    assert board_for_players(players).side == side


@pytest.mark.parametrize("side", ["2-3", "4-5"])
def test_board_json_equals_reference(side: str) -> None:
    """`hansa board --json` schema: the loaded topology serialises back to exactly the reference entry."""
    assert load_board(side).to_json() == reference()["sides"][side]


@pytest.mark.parametrize(
    "side,routes,houses,offices,coins",
    [("2-3", 32, 101, 57, 6), ("4-5", 34, 107, 62, 4)],
)
def test_counts(side: str, routes: int, houses: int, offices: int, coins: int) -> None:
    b = load_board(side)
    assert len(b.cities) == 27
    assert len(b.routes) == routes
    assert b.house_count == houses
    assert b.office_count == offices
    assert sum(o.coin for c in b.cities for o in c.offices) == coins
    # coin offices sit in as many different cities as there are coins (docs/rules.md §1.2)
    assert sum(any(o.coin for o in c.offices) for c in b.cities) == coins


@pytest.mark.parametrize("side", ["2-3", "4-5"])
def test_fixed_facts(side: str) -> None:
    b = load_board(side)
    assert [b.routes[r].code for r in b.tavern_order] == ["OSN-BRE", "LUN-PER", "GOS-HIL"]
    assert b.coellen_table == ((7, 1), (8, 2), (9, 3), (11, 4))
    assert b.routes[b.coellen_route].code == "COE-WAR"
    assert [b.cities[c].name for c in b.east_west] == ["Stendal", "Arnheim"]
    abilities = {b.cities[c].name: a for c in range(27) if (a := b.cities[c].ability) is not None}
    assert abilities == {"Groningen": 3, "Stade": 2, "Luebeck": 4, "Goettingen": 1, "Halle": 0}


def test_four_five_side_extra_routes() -> None:
    small, big = load_board("2-3"), load_board("4-5")
    assert set(small.route_index) < set(big.route_index)
    assert set(big.route_index) - set(small.route_index) == {"EMD-STA", "WAR-GOE"}
    for code, r in small.route_index.items():
        assert small.routes[r].spaces == big.routes[big.route_index[code]].spaces


@pytest.mark.parametrize("side", ["2-3", "4-5"])
def test_distance_rings(side: str) -> None:
    """Rings are a partition of the other routes by BFS distance in the route graph (docs/rules.md §0)."""
    b = load_board(side)
    for r in b.routes:
        seen = [x for ring in b.rings[r.index] for x in ring]
        assert sorted(seen) == [x for x in range(len(b.routes)) if x != r.index]
        for d, ring in enumerate(b.rings[r.index], start=1):
            for r2 in ring:
                assert b.distance[r.index][r2] == d
                touching = set(r.cities) & set(b.routes[r2].cities)
                assert bool(touching) == (d == 1)


def test_house_names_round_trip() -> None:
    b = load_board("4-5")
    for h, name in enumerate(b.house_names):
        assert b.house_index[name] == h
        route, pos = name.split(":")
        assert b.house(route, int(pos)) == h
        a, z = route.split("-")
        assert b.route(f"{z}-{a}").code == route


def test_provinces_on_two_three_side() -> None:
    b = load_board("2-3")
    assert [p.code for p in b.provinces] == [f"P{i:02d}" for i in range(1, 17)]
    ref = reference()["provinces_2p_pawn_variant"]
    # Every route borders exactly the two provinces the reference names.
    for key, (p1, p2) in ref["route_sides"].items():
        a, z = key.split(" - ")
        r = b.route_between(a, z).index
        holders = {p.code for p in b.provinces if r in p.routes}
        assert holders == {p1, p2}, key
    for p in b.provinces:
        for q in p.neighbours:
            assert p.index in b.provinces[q].neighbours


def test_custom_board_needs_no_coellen() -> None:
    data = {"cities": [{"name": "Alpha", "offices": [{"privilege": "white", "shape": "square"}]},
                       {"name": "Beta", "offices": []}],
            "routes": [{"cities": ["Alpha", "Beta"], "spaces": 2}]}
    b = Board("custom", data)
    assert b.coellen_route == -1 and b.east_west == ()
    assert b.routes[0].code == "ALP-BET"
