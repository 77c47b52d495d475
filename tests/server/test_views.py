"""The view's JSON text, put together from cached parts (the public position once per revision, each log entry once
per move), is exactly the JSON of the view built whole, through moves, undos and a reload."""

from __future__ import annotations

import json
import random

from hansa.game import Game
from hansa.server.live import LiveGame, Seat, token_hash, view_for, view_json
from hansa.view import move_delta


def whole(live: LiveGame, seats: list[int]) -> str:
    return json.dumps(view_for(live, seats), separators=(",", ":"))


def test_view_text_from_parts_is_the_whole_view() -> None:
    rng = random.Random(5)
    names = ["Ada", "Bea", "Cy"]
    game = Game(names, seed=11, undo="own")
    seats = [Seat(n, "human", None, token_hash(n), c) for n, c in zip(names, ("red", "blue", "green"))]
    live = LiveGame("g1", game, seats, "")
    checked = 0
    for step in range(260):
        if step % 37 == 36 and game.undoable(game.movers[-1]):
            before = live.version
            game.undo_own(game.movers[-1])
            live.undone()
            live.scores.pop()
            live.deltas.pop(before, None)
        else:
            legal = game.legal_moves()
            claims = [m for m in legal if m.text().startswith("claim")]
            move = rng.choice(claims or legal)
            previous = game.state.copy()
            played = game.play(move)
            live.moved(played.text(), rng.choice(["seat", "hotseat", "bot", None]))
            live.record_delta(live.version, move_delta(previous, game.state))
            live.scores.append(list(game.state.score))
        live.revision += 1
        for viewer in ([], [0], [game.state.decider], [0, 1, 2]):
            text = view_json(live, viewer)
            assert text == whole(live, viewer), (step, viewer)
            checked += 1
        if game.state.is_over:
            break
    assert checked > 800
    view = json.loads(view_json(live, [0]))
    assert len(view["log"]) == 60 and {"n", "seat", "turn", "move", "json", "delta", "by"} <= set(view["log"][-1])
