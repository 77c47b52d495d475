"""The "Learn to play" script (src/hansa/server/tutorial/basics.json, made by scripts/tutorial_script.py) replayed on
the engine: every move legal for its seat, and each lesson's condition true (the claim for an office really gives an
office, the displaced player relocates, the marker is taken and then used...)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from hansa.core.state import Phase
from hansa.game import Game
from hansa.server.tutorial import chapter

ROOT = Path(__file__).resolve().parents[1]


def test_script_is_a_legal_game_teaching_every_lesson() -> None:
    data = chapter("basics")
    game = Game(data["names"], seed=data["seed"])
    seen: dict[str, bool] = {}
    for step in data["steps"]:
        state = game.state
        assert state.decider == step["seat"], step
        assert step["text"] in [m.text() for m in game.legal_moves()], step
        before = {
            "offices": sum(1 for code in state.offices if code >= 0 and code >> 1 == 0),
            "actions": state.allowance(), "stock": state.stk_t[0], "score": state.score[0],
            "markers": len(state.markers[0]), "supply": state.sup_t[0] + state.sup_m[0],
        }
        game.play(step["move"])
        after = game.state
        lesson = step["lesson"]
        if step["seat"] != 0:
            assert lesson is None
            continue
        if lesson == "displace":
            assert after.phase == Phase.RELOCATE and after.decider == 1  # Hanna relocates
        elif lesson == "ability":
            assert after.allowance() == before["actions"] + 1  # Actions improved
        elif lesson in ("income", "income2"):
            assert after.sup_t[0] + after.sup_m[0] == before["supply"] + 3
        elif lesson == "office":
            assert sum(1 for code in after.offices if code >= 0 and code >> 1 == 0) == before["offices"] + 1
            assert after.controller(after.board.city("GOS").index) == 0
        elif lesson == "points":
            assert after.score[0] == before["score"] + 1 and len(after.markers[0]) == before["markers"] + 1
        elif lesson == "extra":
            assert after.score[0] == before["score"] + 1 and len(after.markers[0]) == before["markers"] - 1
            assert after.extras[after.board.city("GOS").index]
        seen[lesson] = True
    assert set(seen) == {"place", "place2", "displace", "ability", "income", "office1", "office", "prepare", "merchant",
                         "move", "move2", "points", "income2", "marker", "extra1", "extra"}


def test_script_file_is_what_the_generator_makes() -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import tutorial_script
    finally:
        sys.path.pop(0)
    assert json.loads(json.dumps(tutorial_script.build())) == chapter("basics")


def test_end_chapter_is_late_and_ends_soon_whatever_the_learner_does() -> None:
    """The chapter "end": a legal game whose prefix leaves the learner at the start of a turn with the marker supply
    empty; the scripted claim does not end the game; from there, against the server's easiest bots, the game ends
    within three turns of the learner's, whether the learner plays at random or with purpose."""
    from hansa.bots import make_bot
    from hansa.core.state import Phase

    data = chapter("end")
    assert data["bots"] == [None, "random", "random"]
    game = Game(data["names"], seed=data["seed"])
    for n, step in enumerate(data["steps"]):
        state = game.state
        if n == data["prefix"]:
            assert state.decider == 0 and state.phase == Phase.ACTIONS and state.actions_used == 0
            assert not state.marker_supply and not state.is_over
        assert state.decider == step["seat"], step
        assert (step["lesson"] is not None) == (n >= data["prefix"]) == (step["seat"] == 0 and n >= data["prefix"])
        game.play(step["move"])
    assert not game.state.is_over
    for k in range(12):
        state = game.state.copy()
        bots = [make_bot("uniform" if k % 2 else "purpose", k), make_bot("random", 100 + k), make_bot("random", 200 + k)]
        turns, last = 0, state.turn
        while not state.is_over:
            if state.turn != last and state.decider == 0:
                turns, last = turns + 1, state.turn
            state.play(bots[state.decider].choose(state))
        assert turns <= 3, (k, turns)


def test_end_chapter_file_is_what_the_generator_makes() -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import tutorial_script
    finally:
        sys.path.pop(0)
    assert json.loads(json.dumps(tutorial_script.build_end())) == chapter("end")
