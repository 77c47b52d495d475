"""Reading and writing game records (docs/records.md).

A record is JSON::

    {"format": "hansa-record", "version": 1, "players": ["Ann", "Bo", "Cy"], "seed": 7,
     "options": {"marker_set": "EN16"}, "start_player": null,
     "moves": ["place T GRO-EMD:2", {"type": "end"}, ...],
     "result": {"over": true, "end_triggers": ["score"], "scores": [...], "winners": [1]}}

Moves may be given in text or JSON form.  ``result`` is optional; when present, replaying checks it.  A game with
Big Box modules also records its ``setup``: the Emperor's Favour tiles on the display at the start (``tiles``) and
the mission card dealt to each seat (``missions``; left out of a running game's record, whose cards are secret);
when present, replaying checks it against what the seed deals.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.errors import HansaError, RecordError

if TYPE_CHECKING:
    from ..core.state import GameState
    from ..game import Game

FORMAT = "hansa-record"
VERSION = 1
_KEYS = {"format", "version", "players", "seed", "options", "start_player", "moves", "result", "setup"}


def setup_json(state: GameState, secret: bool = False) -> dict[str, Any] | None:
    """The dealt Big Box setup of a new game ``state`` (``None`` without modules that deal anything): the tile codes
    on the display and, unless ``secret``, every seat's mission card."""
    from ..core.constants import TILE_CODES, TILE_DISPLAY

    out: dict[str, Any] = {}
    if state.favour:
        out["tiles"] = [TILE_CODES[t] for t, where in enumerate(state.favour) if where == TILE_DISPLAY]
    if state.missions and not secret:
        out["missions"] = list(state.missions)
    return out or None


def _initial(game: Game) -> GameState:
    from ..core.state import GameState

    return GameState.new(len(game.names), game.seed, game.options, start_player=game.start_player_override)


def game_to_record(game: Game) -> dict[str, Any]:
    """The record of ``game`` (moves in text form, options that differ from the defaults)."""
    from ..core.scoring import final_scores, winners

    state = game.state
    record: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "players": list(game.names),
        "seed": game.seed,
        "options": game.options.changed(),
        "start_player": game.start_player_override,
        "moves": [m.text() for m in game.moves],
    }
    if game.options.missions or game.options.emperors_favour:
        record["setup"] = setup_json(_initial(game))
    result: dict[str, Any] = {"over": state.is_over, "moves": len(game.moves), "turn": state.turn}
    if state.is_over:
        scores = final_scores(state)
        result["end_triggers"] = list(state.end_triggers)
        result["scores"] = [s.to_json() for s in scores]
        result["winners"] = winners(state, scores)
    record["result"] = result
    return record


def game_from_record(data: Any, *, check_result: bool = True) -> Game:
    """Replay a record and return the game.  Raises :class:`RecordError` naming the first bad move."""
    from ..game import Game

    if not isinstance(data, dict):
        raise RecordError("a game record must be a JSON object")
    unknown = set(data) - _KEYS
    if unknown:
        raise RecordError(f"unknown record field(s): {', '.join(sorted(unknown))}")
    if data.get("format") != FORMAT:
        raise RecordError(f"not a hansa game record (format must be {FORMAT!r})")
    if data.get("version") != VERSION:
        raise RecordError(f"unsupported record version {data.get('version')!r}; this hansa reads version {VERSION}")
    players = data.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players) or not 2 <= len(players) <= 5:
        raise RecordError("'players' must be a list of 2 to 5 names")
    seed = data.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise RecordError("'seed' must be an integer")
    if seed is None:
        raise RecordError("'seed' is required: without it the marker supply cannot be reproduced")
    options = data.get("options", {})
    start = data.get("start_player")
    moves = data.get("moves")
    if not isinstance(moves, list):
        raise RecordError("'moves' must be a list")
    try:
        game = Game(players, seed=seed, options=options, start_player=start)
    except HansaError as exc:
        raise RecordError(f"bad setup: {exc}") from exc
    for i, move in enumerate(moves):
        try:
            game.play(move)
        except HansaError as exc:
            shown = move if isinstance(move, str) else json.dumps(move)
            raise RecordError(f"move {i + 1} ({shown}) cannot be played: {exc}", i) from exc
    setup = data.get("setup")
    if setup is not None:
        _check_setup(game, setup)
    result = data.get("result")
    if check_result and result is not None:
        _check_result(game, result)
    return game


def _check_setup(game: Game, setup: Any) -> None:
    if not isinstance(setup, dict) or set(setup) - {"tiles", "missions"}:
        raise RecordError("'setup' must be an object with 'tiles' and/or 'missions'")
    dealt = setup_json(_initial(game)) or {}
    for key, value in setup.items():
        if key not in dealt:
            raise RecordError(f"the record's setup has {key}, but this game deals none")
        if value != dealt[key]:
            raise RecordError(f"the record's setup says {key} = {value!r}, but the seed deals {dealt[key]!r}")


def _check_result(game: Game, result: Any) -> None:
    if not isinstance(result, dict):
        raise RecordError("'result' must be an object")
    expected = game_to_record(game)["result"]
    for key, value in result.items():
        if key in expected and expected[key] != value:
            raise RecordError(f"the record's result says {key} = {value!r}, but replaying gives {expected[key]!r}")


def load_record(path: str | Path) -> dict[str, Any]:
    """Read a record file (JSON)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise RecordError(f"cannot read the file: {exc.strerror or exc}") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"the file is not valid JSON: {exc}") from exc
    return data  # type: ignore[no-any-return]


def replay_record(path: str | Path) -> Game:
    """Load and replay a record file."""
    return game_from_record(load_record(path))


def save_record(game: Game, path: str | Path) -> None:
    """Write ``game``'s record to ``path`` as JSON."""
    Path(path).write_text(json.dumps(game_to_record(game), indent=1) + "\n", encoding="utf-8")
