"""Build the "Learn to play" scripts: src/hansa/server/tutorial/basics.json and end.json.

The learner (seat 0) makes the moves of LEARNER, one lesson each; the two opponents' moves are chosen here by a fixed
rule (their planned blocks first, then claim a full route, place on their own routes, take income), so that the
script is a real game on the engine.

The chapter "end" starts from a late position: a game of three ``heuristic`` bots (END_SEED) played to move
END_PREFIX, where the learner (seat 0) begins a turn; the learner then makes the moves of END_LEARNER and plays on
freely against two server bots of the easiest level (END_BOTS) until the game ends.  The marker supply is empty
there, so the next claim of a route with a bonus marker ends the game; the unit test checks that the end comes
within a few turns whatever the learner does.

Run ``python scripts/tutorial_script.py`` to rebuild both files; the unit test ``tests/test_tutorial_script.py``
replays them and checks every lesson's condition.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from hansa.bots import make_bot
from hansa.core.moves import Claim, Income, Place, Relocate, TakeExtra
from hansa.game import Game

SEED = 1
NAMES = ["You", "Hanna", "Jan"]
DATA = Path(__file__).resolve().parents[1] / "src" / "hansa" / "server" / "tutorial"
OUT = DATA / "basics.json"
END_OUT = DATA / "end.json"
#: The chapter "end": the seed, the moves already played when the learner starts, the learner's scripted moves, and
#: the server bots that play the other seats (the lobby's easiest level).
END_SEED = 15
END_PREFIX = 194
END_LEARNER: list[tuple[str, str]] = [("end", "claim GOE-QUE ability GOE")]
END_BOTS = [None, "random", "random"]

#: The learner's moves in order: (lesson, move text).  A lesson names the text tutorial.basics.<lesson> of the i18n
#: files; the opponents move whenever the engine says another seat decides (their turns, a relocation).
LEARNER: list[tuple[str, str]] = [
    ("place", "place T GOE-QUE:1"), ("place2", "place T GOE-QUE:2"),
    ("displace", "displace GOE-QUE:3 with T pay T"), ("ability", "claim GOE-QUE ability GOE"), ("income", "income 3T"),
    ("office1", "place T GOS-MAG:1"), ("office1", "place T GOS-MAG:2"), ("office", "claim GOS-MAG office GOS"),
    ("prepare", "place T GOS-QUE:1"), ("prepare", "place T GOS-QUE:2"), ("merchant", "place M GOS-HIL:3"),
    ("move", "lift GOS-QUE:1"), ("move", "lift GOS-QUE:2"), ("move2", "drop T GOS-HIL:1"), ("move2", "drop T GOS-HIL:2"),
    ("points", "claim GOS-HIL"), ("income2", "income 3T"), ("marker", "marker MIN-HAN"),
    ("extra1", "place T GOS-MAG:1"), ("extra1", "place T GOS-MAG:2"), ("extra", "claim GOS-MAG extra GOS T"),
]

#: An opponent blocks a route of the learner's as soon as the learner has its first two houses: (route, move).
BLOCKS: dict[int, list[tuple[str, str]]] = {1: [("GOE-QUE", "place T GOE-QUE:3"), ("GOS-QUE", "place T GOS-QUE:3")]}
#: Each opponent's own routes, in order of preference.
OWN = {1: ["HAL-QUE", "STE-MAG", "STE-PER", "LUN-HAM"], 2: ["DUI-DOR", "MUN-MIN", "ARN-MUN", "KAM-ARN", "BRE-MIN"]}
#: Routes the opponents leave alone (the learner's).
KEEP_OUT = {"GOE-QUE", "GOS-MAG", "GOS-QUE", "GOS-HIL", "MIN-HAN"}


def learner_holds(game: Game, route: str) -> bool:
    state = game.state
    return all(state.piece_at(f"{route}:{k}") is not None and state.piece_at(f"{route}:{k}")[0] == 0 for k in (1, 2))


def opponent_move(game: Game, seat: int) -> str:
    state = game.state
    legal = game.legal_moves()
    texts = {m.text() for m in legal}
    blocks = BLOCKS.get(seat, [])
    if state.phase.name == "ACTIONS" and blocks and learner_holds(game, blocks[0][0]):
        text = blocks.pop(0)[1]
        if text not in texts:
            raise SystemExit(f"the block {text!r} of seat {seat} is not legal")
        return text
    if state.phase.name != "ACTIONS":  # relocation or a marker: keep away from the learner's routes
        for m in legal:
            if isinstance(m, (Relocate, TakeExtra)) and not any(r in m.text() for r in KEEP_OUT):
                return m.text()
        for m in legal:
            if not any(r in m.text() for r in KEEP_OUT):
                return m.text()
        return legal[0].text()
    claims = [m for m in legal if isinstance(m, Claim) and m.route not in KEEP_OUT]
    for benefit in ("office", "nothing"):
        for m in claims:
            if m.benefit == benefit:
                return m.text()
    for route in OWN[seat]:
        for m in legal:
            if isinstance(m, Place) and m.house.startswith(route + ":") and m.piece == "T":
                return m.text()
    incomes = [m for m in legal if isinstance(m, Income)]
    if incomes:
        return max(incomes, key=lambda m: m.traders + m.merchants).text()
    return "end"


def build() -> dict:
    game = Game(NAMES, seed=SEED)
    steps: list[dict] = []
    for lesson, text in LEARNER:
        while game.state.decider != 0:
            seat = game.state.decider
            move = game.play(opponent_move(game, seat))
            steps.append({"seat": seat, "move": move.to_json(), "text": move.text(), "lesson": None})
        move = game.play(text)
        steps.append({"seat": 0, "move": move.to_json(), "text": move.text(), "lesson": lesson})
    if any(BLOCKS.values()):
        raise SystemExit(f"blocks not played: {BLOCKS}")
    return {"seed": SEED, "names": NAMES, "options": {}, "steps": steps}


def build_end() -> dict:
    """The chapter "end": a game of heuristic bots up to END_PREFIX moves (the learner's turn begins there), then
    the learner's scripted moves."""
    game = Game(NAMES, seed=END_SEED)
    bots = [make_bot("heuristic", END_SEED * 10 + seat) for seat in range(len(NAMES))]
    steps: list[dict] = []
    while len(steps) < END_PREFIX:
        seat = game.state.decider
        move = game.play(bots[seat].choose(game.state).text())
        steps.append({"seat": seat, "move": move.to_json(), "text": move.text(), "lesson": None})
    for lesson, text in END_LEARNER:
        if game.state.decider != 0:
            raise SystemExit(f"the learner does not decide before {text!r}")
        move = game.play(text)
        steps.append({"seat": 0, "move": move.to_json(), "text": move.text(), "lesson": lesson})
    if game.state.is_over:
        raise SystemExit("the scripted moves end the game: nothing is left to play freely")
    return {"seed": END_SEED, "names": NAMES, "options": {}, "bots": END_BOTS, "prefix": END_PREFIX, "steps": steps}


def main() -> None:
    for out, data in ((OUT, build()), (END_OUT, build_end())):
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(data, indent=1) + "\n")
        print(f"{out}: {len(data['steps'])} moves, {sum(1 for s in data['steps'] if s['seat'] == 0)} by the learner",
              file=sys.stderr)


if __name__ == "__main__":
    main()
