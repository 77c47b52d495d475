"""Notation and game records: every move round-trips through text and JSON; records replay exactly;
bad records fail clearly, naming the first bad move."""

from __future__ import annotations

import json
import random

import pytest

from hansa import Game, RecordError, parse_move
from hansa.bots import ClaimingRandomBot
from hansa.core.errors import HansaError, MalformedMoveError
from hansa.core.moves import Claim, Displace, Place, move_from_json
from hansa.record import game_from_record, game_to_record, replay_record, save_record


def random_game(players: int, seed: int, limit: int | None = None, options: dict | None = None) -> Game:
    game = Game(players, seed=seed, options=options, undo=False)
    bot = ClaimingRandomBot(seed)
    while not game.is_over and (limit is None or len(game.moves) < limit):
        game.play(bot.choose(game.state))
    return game


@pytest.mark.parametrize("players,seed", [(3, 1), (4, 2), (5, 3)])
def test_every_played_move_round_trips(players: int, seed: int) -> None:
    game = random_game(players, seed, limit=4000)
    board = game.state.board
    seen_types = set()
    for move in game.moves:
        seen_types.add(type(move).__name__)
        assert parse_move(move.text(), board) == move
        assert parse_move(move.text()) == move
        data = json.loads(json.dumps(move.to_json()))
        assert move_from_json(data, board) == move
    assert {"Place", "Lift", "Drop", "Claim", "Income"} <= seen_types


@pytest.mark.parametrize("players,seed", [(3, 11), (4, 12), (5, 13)])
def test_record_replays_to_identical_state(players: int, seed: int, tmp_path) -> None:
    game = random_game(players, seed)
    assert game.is_over
    path = tmp_path / "game.json"
    save_record(game, path)
    again = replay_record(path)
    assert again.state == game.state
    assert again.moves == game.moves
    assert again.to_record() == game.to_record()


@pytest.mark.parametrize("variant,seed", [("neutral", 31), ("pawn", 32)])
def test_two_player_record_replays_exactly(variant: str, seed: int, tmp_path) -> None:
    game = random_game(2, seed, options={"two_player_variant": variant})
    assert game.is_over
    kinds = {type(m).__name__ for m in game.moves}
    assert ("Pawn" in kinds) == (variant == "pawn")
    path = tmp_path / "2p.json"
    save_record(game, path)
    record = json.loads(path.read_text())
    assert record["options"] == ({"two_player_variant": "pawn"} if variant == "pawn" else {})
    again = replay_record(path)
    assert again.state == game.state and again.moves == game.moves
    for move in game.moves:
        assert parse_move(move.text(), game.state.board) == move


def test_unfinished_record_replays(tmp_path) -> None:
    game = random_game(4, 5, limit=321)
    record = game_to_record(game)
    assert record["result"]["over"] is False
    assert game_from_record(json.loads(json.dumps(record))).state == game.state


def test_record_with_json_moves_and_options() -> None:
    game = Game(["Ann", "Bo", "Cy"], seed=9, options={"marker_set": "PT15"})
    bot = ClaimingRandomBot(2)
    for _ in range(300):
        game.play(bot.choose(game.state))
    record = game_to_record(game)
    assert record["options"] == {"marker_set": "PT15"}
    record["moves"] = [m.to_json() for m in game.moves]
    replayed = game_from_record(record)
    assert replayed.state == game.state and replayed.names == ["Ann", "Bo", "Cy"]


def test_illegal_move_in_record_names_it() -> None:
    game = random_game(3, 21, limit=50)
    record = game_to_record(game)
    del record["result"]
    record["moves"][17] = "claim GRO-EMD office GRO"
    with pytest.raises(RecordError) as info:
        game_from_record(record)
    assert info.value.move_index == 17
    assert "move 18 (claim GRO-EMD office GRO)" in str(info.value)


@pytest.mark.parametrize(
    "mutate,message",
    [
        (lambda r: r.update(format="chess"), "not a hansa game record"),
        (lambda r: r.update(version=99), "unsupported record version"),
        (lambda r: r.update(players=["solo"]), "list of 2 to 5 names"),
        (lambda r: r.update(seed="x"), "'seed' must be an integer"),
        (lambda r: r.update(options={"colour": "red"}), "unknown option 'colour'"),
        (lambda r: r.update(options={"marker_set": "XX"}), "marker_set"),
        (lambda r: r.update(moves="place"), "'moves' must be a list"),
        (lambda r: r.update(extra=1), "unknown record field"),
        (lambda r: r["moves"].insert(3, "fly T GRO-EMD:1"), "move 4"),
        (lambda r: r["moves"].insert(0, {"type": "place", "house": "GRO-EMD:9", "piece": "T"}), "move 1"),
        (lambda r: r["result"].update(winners=[7]), "result says winners"),
    ],
)
def test_corrupt_records_fail_clearly(mutate, message: str) -> None:
    game = random_game(3, 4)
    record = game_to_record(game)
    mutate(record)
    with pytest.raises(RecordError, match=message.replace("(", r"\(").replace(")", r"\)")):
        game_from_record(record)


def test_undo_restores_every_field() -> None:
    game = Game(4, seed=8)
    bot = ClaimingRandomBot(3)
    keys = [game.state.key()]
    for _ in range(400):
        game.play(bot.choose(game.state))
        keys.append(game.state.key())
    for expected in reversed(keys[:-1]):
        game.undo()
        assert game.state.key() == expected
    with pytest.raises(HansaError):
        game.undo()


def test_undo_own_keeps_only_what_players_can_take_back() -> None:
    """``undo="own"`` (the server's setting) drops snapshots undo_own can never reach, and allows exactly the
    same take-backs as a game that keeps every snapshot."""
    full, own = Game(3, seed=5), Game(3, seed=5, undo="own")
    bot = ClaimingRandomBot(2)
    most = 0
    for _ in range(300):
        move = bot.choose(full.state)
        full.play(move)
        own.play(move)
        for seat in range(3):
            assert own.undoable(seat) == full.undoable(seat)
        most = max(most, len(own._snapshots))
    assert most < 40 and len(full._snapshots) == 300
    seat = own.movers[-1]
    n = own.undoable(seat)
    for _ in range(n):
        assert own.undo_own(seat) == full.undo_own(seat)
        assert own.state.key() == full.state.key()
    with pytest.raises(HansaError, match="undo"):
        Game(3, seed=5, undo="some")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "text",
    ["", "place", "place X GRO-EMD:1", "place T GRO-EMD", "place T GRO-EMD:0", "displace GRO-EMD:1 with T pay X",
     "claim GRO-EMD castle GRO", "claim COE-WAR table gold", "use +5", "use improve wisdom", "use swap LUB zero",
     "income lots", "marker", "pawn Z9", "jump"],
)
def test_malformed_text_is_refused(text: str) -> None:
    with pytest.raises(MalformedMoveError):
        parse_move(text)


def test_board_checks_names_and_normalises_direction() -> None:
    game = Game(3, seed=1)
    board = game.state.board
    assert parse_move("place T EMD-GRO:1", board) == Place("GRO-EMD:3", "T")
    assert parse_move("claim EMD-GRO office EMD", board) == Claim("GRO-EMD", "office", "EMD")
    assert parse_move("displace GRO-EMD:2 with M pay MT", board) == Displace("GRO-EMD:2", "M", "TM")
    with pytest.raises(MalformedMoveError, match="no route"):
        parse_move("place T GRO-LUB:1", board)
    with pytest.raises(MalformedMoveError, match="has 3 houses"):
        parse_move("place T GRO-EMD:4", board)
    with pytest.raises(MalformedMoveError, match="no route"):
        parse_move("place T EMD-STA:1", board)  # exists only on the 4-5 side


@pytest.mark.parametrize(
    "data",
    [None, [], {"type": "fly"}, {"type": "place", "house": "GRO-EMD:1"}, {"type": "place", "house": 3, "piece": "T"},
     {"type": "income", "traders": "3", "merchants": 0}, {"type": "end", "now": True}],
)
def test_malformed_json_is_refused(data) -> None:
    with pytest.raises(MalformedMoveError):
        move_from_json(data)


def test_game_play_accepts_text_and_refuses_illegal_without_change() -> None:
    game = Game(3, seed=2)
    before = game.state.key()
    with pytest.raises(HansaError):
        game.play("claim GRO-EMD")
    assert game.state.key() == before and game.moves == []
    legal = game.legal_moves()
    rng = random.Random(1)
    move = rng.choice([m for m in legal if isinstance(m, Place)])
    game.play(move.text())
    assert game.moves == [move]


@pytest.mark.parametrize("players,options", [(2, {"two_player_variant": "pawn"}), (2, {}), (3, {"marker_set": "PT15"}), (5, {})])
def test_snapshot_round_trips_through_json(players: int, options: dict) -> None:
    """GameState.to_snapshot / from_snapshot (the server's storage form) keep the whole position."""
    from hansa.core.state import GameState

    state = GameState.new(players, 17, options)
    bot = ClaimingRandomBot(4)
    step = 0
    while not state.is_over and step < 3000:
        if step % 97 == 0:
            twin = GameState.from_snapshot(json.loads(json.dumps(state.to_snapshot())))
            assert twin == state
            assert twin.legal_moves() == state.legal_moves()
        state.play(bot.choose(state))
        step += 1
