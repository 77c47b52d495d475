"""Hansa Teutonica as an OpenSpiel game, registered as ``python_hansa`` (needs the ``openspiel`` extra).

    import pyspiel, hansa.ai.openspiel_game
    game = pyspiel.load_game("python_hansa", {"players": 3})       # {"players": 4, "map": "east"}: an expansion map
    state = game.new_initial_state()                                # the setup's chance nodes come first
    rng = random.Random(1)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.randrange(256))                  # or sample state.chance_outcomes()
        else:
            state.apply_action(state.legal_actions()[0])

* Sequential, imperfect information, 2-5 players (``players``; ``variant`` "neutral" or "pawn" for two), general
  sum with returns = win share (1/k for each of k winners, 0 for the others).
* ``map``: ``base`` (default), ``east`` or ``britannia`` (3-5 players; the board side follows the player count),
  with that side's action index and observation.
* The Big Box modules: ``missions`` and ``emperors_favour`` (bools), ``marker_supply`` (the 12 marker names joined by
  ``/``, or by commas when given in a dict; ``""`` for none: the game's string joins them by ``/``, since OpenSpiel's
  game strings separate parameters by commas); with any of them the game has the action index and observation of its board with those
  modules (docs/ai.md).  Each player's mission card is hidden from the others: a player's observation and
  information state hold its own card only, and :meth:`HansaState.resample_from_infostate` deals the other players'
  cards again.
* **Explicit stochastic**: the game's randomness (start player, tavern markers, the face-down order of the bonus
  markers that claims draw, with the modules the mission cards dealt and the tiles displayed) is the engine's setup
  from a 32-bit seed, and the seed is drawn by :data:`SEED_BYTES` chance nodes at the start, one byte each (256
  equally likely outcomes).  The game holds no random state of its own, so OpenSpiel can serialize games and states
  (``pyspiel.serialize_game_and_state``, ``pickle``: a sampled-stochastic Python game cannot, since OpenSpiel 2.0.2's
  Python games cannot provide the game's RNG state that its serialization asks for).  The marker draws then follow
  the hidden order.  Nobody sees the seed bytes, the markers, or another player's card: the chance actions are in no
  information state, and :meth:`HansaState.resample_from_infostate` reshuffles the hidden markers and deals the other
  players' cards again (hansa's determinization for that player), so OpenSpiel's ISMCTS searches on worlds
  consistent with what the player knows.
* Actions are the :class:`hansa.ai.actions.ActionIndex` of the board side (a Move-3 shift is two actions, and so is
  an exchange on the expansion maps).
* Observation and information-state tensors are :func:`hansa.ai.observation.observe` (the position is a sufficient
  statistic: every move is public); the information-state string adds the whole move history.
* ``max_moves`` (default 3000) ends a game that has not ended by then, scored as if it had ended (random play in
  this game can run for a very long time; OpenSpiel needs a bounded game length).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pyspiel

from ..core.board import side_for_players
from ..core.options import GameOptions
from ..core.state import GameState
from .actions import ActionIndex, game_modules
from .observation import Observer, Vector, spec_for_side
from .rewards import final_rewards

#: Chance nodes at the start of a game, each one byte of the engine's setup seed.
SEED_BYTES = 4
#: Outcomes of each chance node.
SEED_BYTE_VALUES = 256

_DEFAULTS = {
    "players": 3, "variant": "neutral", "max_moves": 3000, "map": "base",
    "missions": False, "emperors_favour": False, "marker_supply": "",
}


def module_params(options: GameOptions) -> dict[str, Any]:
    """The game parameters of a hansa game's Big Box modules (``missions``, ``emperors_favour``, ``marker_supply``)."""
    return {
        "missions": options.missions, "emperors_favour": options.emperors_favour,
        "marker_supply": "/".join(options.marker_supply) if options.marker_supply is not None else "",
    }

_GAME_TYPE = pyspiel.GameType(
    short_name="python_hansa",
    long_name="Python Hansa Teutonica",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=5,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULTS,
)


class HansaGame(pyspiel.Game):
    """The game: its parameters and its action and observation sizes (no random state: chance nodes deal)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        p = {**_DEFAULTS, **(params or {})}
        self.players = int(p["players"])
        self.map = str(p["map"])
        self.options: dict[str, Any] = {"two_player_variant": str(p["variant"])} if self.players == 2 else {}
        if self.map != "base":
            self.options["map"] = self.map
        if p["missions"]:
            self.options["missions"] = True
        if p["emperors_favour"]:
            self.options["emperors_favour"] = True
        if p["marker_supply"]:
            names = [name.strip() for name in str(p["marker_supply"]).replace(",", "/").split("/")]
            self.options["marker_supply"] = names
            # Joined by "/" in the game's string: OpenSpiel's game strings separate parameters by commas.
            p["marker_supply"] = "/".join(names)
        self.max_moves = int(p["max_moves"])
        side = self.side = side_for_players(self.players, self.map)
        #: The Big Box modules (checked by the engine: e.g. missions only on the base map).
        self.modules = game_modules(GameOptions.from_dict(self.options))
        self.actions = ActionIndex.for_side(side, self.modules)
        self.obs_size = spec_for_side(side, self.modules).size
        info = pyspiel.GameInfo(
            num_distinct_actions=self.actions.size, max_chance_outcomes=SEED_BYTE_VALUES, num_players=self.players,
            min_utility=0.0, max_utility=1.0, utility_sum=None, max_game_length=2 * self.max_moves,
        )
        super().__init__(_GAME_TYPE, info, p)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its parameters and loaded again with ``pyspiel.load_game`` (pyspiel's own pickling of a game
        would rebuild the C++ part only, without this Python object's attributes)."""
        return _load_game, (dict(self.get_parameters()),)

    def new_initial_state(self) -> HansaState:
        """A game before its setup: :data:`SEED_BYTES` chance nodes, then the first player's decision."""
        return HansaState(self, None)

    def max_chance_nodes_in_history(self) -> int:
        return SEED_BYTES

    def dealt_state(self, seed: int) -> HansaState:
        """A new game whose chance nodes dealt the setup seed ``seed`` (0 <= seed < 2**32): the engine's
        ``GameState.new(players, seed, options)``, with the seed's bytes (big-endian) in the history."""
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < SEED_BYTE_VALUES**SEED_BYTES:
            raise ValueError(f"a setup seed is an integer 0..{SEED_BYTE_VALUES**SEED_BYTES - 1}, not {seed!r}")
        state = self.new_initial_state()
        for byte in seed.to_bytes(SEED_BYTES, "big"):
            state.apply_action(byte)
        return state

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> HansaObserver:
        return HansaObserver(self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


def _load_game(params: dict[str, Any]) -> HansaGame:
    game: HansaGame = pyspiel.load_game(_GAME_TYPE.short_name, params)
    return game


class _Position:
    """Holds the hansa GameState so that OpenSpiel's clone (a deepcopy of every attribute) copies it cheaply."""

    __slots__ = ("gs",)

    def __init__(self, gs: GameState) -> None:
        self.gs = gs

    def __deepcopy__(self, memo: Any) -> _Position:
        return _Position(self.gs.copy())


_CHANCE = int(pyspiel.PlayerId.CHANCE)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)


class HansaState(pyspiel.State):
    """A game in progress: a hansa GameState, the pending shift-from, and the actions so far.  Its attributes are
    plain values (OpenSpiel clones a Python state by deep-copying them, and serializes it by pickling them: the
    position, hidden markers and cards included, travels whole).  ``state`` None: the setup's chance nodes are
    still to come (:meth:`HansaGame.new_initial_state`)."""

    def __init__(self, game: HansaGame, state: GameState | None) -> None:
        super().__init__(game)
        self.position = _Position(state) if state is not None else None
        self.seed_bytes: list[int] = []
        self.options = game.options
        self.side = game.side
        self.modules = game.modules
        self.players = game.players
        self.max_moves = game.max_moves
        self.pending: int | None = None
        self.moves = 0
        self.actions_taken: list[int] = []
        self.observer = Observer()  # its tensors by differences from the last (copied and pickled empty)

    @property
    def gs(self) -> GameState:
        if self.position is None:
            raise ValueError("the game is not set up yet: its chance nodes come first")
        return self.position.gs

    @property
    def actions(self) -> ActionIndex:
        return ActionIndex.for_side(self.side, self.modules)

    def _ended(self) -> bool:
        return self.gs.is_over or self.moves >= self.max_moves

    def current_player(self) -> int:
        if self.position is None:
            return int(pyspiel.PlayerId.CHANCE)
        return int(pyspiel.PlayerId.TERMINAL) if self._ended() else self.gs.decider

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The next byte of the setup seed: 256 equally likely values."""
        if self.position is not None:
            raise ValueError("not a chance node: the game is set up")
        return [(b, 1.0 / SEED_BYTE_VALUES) for b in range(SEED_BYTE_VALUES)]

    def legal_actions(self, player: int | None = None) -> list[int]:
        """The legal actions (of ``player``, default the current one), as OpenSpiel's ``legal_actions`` gives them
        (the chance outcomes at a chance node, none for a player not to act), made here without the round trip
        through OpenSpiel's C++ state."""
        current = self.current_player()
        if current == _TERMINAL:
            return []
        if current == _CHANCE:  # for any player, as OpenSpiel's Python states answer
            return list(range(SEED_BYTE_VALUES))
        if player is not None and player != current:
            if player < 0:
                raise ValueError(f"legal actions of the pseudo-player {player}")
            return []
        return self.actions.legal(self.gs, self.pending)

    def observation_tensor(self, player: int | None = None) -> Vector:
        """The observation of ``player`` (default the current one) as a new float32 numpy array: the values of
        OpenSpiel's ``observation_tensor``, which would build a Python list of thousands of floats
        (``list(...)`` gives one).  Zeros before the setup's chance nodes are done."""
        if player is None:
            player = self.current_player()
        if not 0 <= player < self.players:
            raise ValueError(f"player {player} is not one of the {self.players} players")
        if self.position is None:
            return np.zeros(spec_for_side(self.side, self.modules).size, np.float32)
        pending = self.pending
        actions = self.actions
        return self.observer.observe(
            self.gs, player, actions.pending_house(pending) if pending is not None else None,
            actions.pending_exchange(pending) if pending is not None else None,
        )

    #: The information state tensor is the observation (every move is public: the position is a sufficient statistic).
    information_state_tensor = observation_tensor

    def _legal_actions(self, player: int) -> list[int]:
        if self.position is None or self._ended() or player != self.gs.decider:
            return []
        return self.actions.legal(self.gs, self.pending)

    def _apply_action(self, action: int) -> None:
        if self.position is None:
            if not 0 <= action < SEED_BYTE_VALUES:
                raise ValueError(f"a chance outcome is a byte 0..{SEED_BYTE_VALUES - 1}, not {action}")
            self.seed_bytes.append(action)
            if len(self.seed_bytes) == SEED_BYTES:
                seed = int.from_bytes(bytes(self.seed_bytes), "big")
                self.position = _Position(GameState.new(self.players, seed, self.options))
            return
        move = self.actions.move(action, self.pending)
        self.actions_taken.append(action)
        if move is None:
            self.pending = action
            return
        self.pending = None
        self.gs.play(move)
        self.moves += 1

    def _action_to_string(self, player: int, action: int) -> str:
        if player == int(pyspiel.PlayerId.CHANCE):
            return f"seed byte {action}"
        return self.actions.labels[action]

    def is_terminal(self) -> bool:
        return self.position is not None and self._ended()

    def returns(self) -> list[float]:
        if self.position is None or not self._ended():
            return [0.0] * self.players
        return final_rewards(self.gs, "win")

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> HansaState:
        """A state the player cannot tell from this one: the hidden markers (face-down supply and plates)
        reshuffled and, with ``missions``, the other players' cards dealt again (``player_id``'s own card kept),
        seeded from ``probability_sampler``."""
        other: HansaState = self.clone()
        rng = random.Random(int(probability_sampler() * 2**31))
        other.position = _Position(self.gs.determinized(rng, viewer=player_id))
        return other

    def __str__(self) -> str:
        if self.position is None:
            return f"setup: {len(self.seed_bytes)} of {SEED_BYTES} seed bytes dealt"
        return f"{self.gs!r} pending={self.pending} moves={self.moves}"


class HansaObserver:
    """OpenSpiel's PyObserver: the tensor is the seat's observation; the string is the public position (and, with
    perfect recall, the whole action history), with the seat's own mission card when the game has Mission Cards."""

    def __init__(self, game: HansaGame, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.tensor = np.zeros(game.obs_size, np.float32)
        self.dict = {"observation": self.tensor}
        self.observer = Observer()

    def set_from(self, state: HansaState, player: int) -> None:
        if state.position is None:  # the setup's chance nodes: nothing is known yet
            self.tensor[:] = 0.0
            return
        actions = state.actions
        pending = state.pending
        self.observer.observe(
            state.gs, player, actions.pending_house(pending) if pending is not None else None,
            actions.pending_exchange(pending) if pending is not None else None, out=self.tensor,
        )

    def string_from(self, state: HansaState, player: int) -> str:
        if state.position is None:  # the seed bytes are nobody's information
            return f"p{player} setup {len(state.seed_bytes)}/{SEED_BYTES}"
        public = f"{state.gs.public_key()!r} pending={state.pending}"
        missions = state.gs.missions
        own = f"p{player} mission={missions[player]} " if 0 <= player < len(missions) else f"p{player} "
        if self.perfect_recall:
            return own + " ".join(map(str, state.actions_taken)) + " | " + public
        return own + public


pyspiel.register_game(_GAME_TYPE, HansaGame)
