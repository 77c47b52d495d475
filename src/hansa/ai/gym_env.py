"""Hansa Teutonica as a single-agent Gymnasium environment: one seat learns, hansa bots play the others (needs the
``rl`` extra).

    from hansa.ai.gym_env import HansaEnv
    env = HansaEnv(players=3, opponents="purpose", observation="flat", shaping="margin")
    obs, info = env.reset(seed=1)
    action = int(np.flatnonzero(env.action_masks())[0])
    obs, reward, terminated, truncated, info = env.step(action)

* The learner's seat is ``seat`` (default 0; ``None`` draws it at every reset from the reset's generator).  The
  other seats are played by ``opponents``: one opponent for all, or a list of ``players - 1``.  An opponent is a bot
  spec as in ``hansa arena`` (seeded from the reset seed), a :class:`~hansa.bots.base.Bot`, a numpy
  :class:`~hansa.ai.policy.PolicyNet`, a function ``(GameState) -> Move`` or a function
  ``(observation, mask) -> action index`` (:mod:`hansa.ai.opponents`), e.g. a frozen copy of the learner.
* ``observation="dict"`` (default): observations are ``{"observation", "action_mask"}`` as in
  :mod:`hansa.ai.pettingzoo_env`; ``observation="flat"``: the float32 observation vector alone (a ``Box``), the mask
  then only from :meth:`HansaEnv.action_masks` (sb3-contrib's MaskablePPO convention) and ``info["action_mask"]``.
  Move 3's shift is two steps (shift-from, shift-to), an exchange too (exchange-from, exchange-to).
* ``options`` are the game options, the map and the Big Box modules included (``{"map": "east"}``,
  ``{"missions": True, "emperors_favour": True, "marker_supply": [...]}``); the learner sees its own mission card only.
* An action outside the mask ends the episode with reward -1 (no shaping) and ``info["illegal"] = True`` (the
  convention of PettingZoo's TerminateIllegalWrapper), so sampling from the bare action space cannot corrupt a game.
* Rewards (:mod:`hansa.ai.rewards`, docs/ai.md "Learning"): ``reward`` (``"win"``: 1/k for a winner, ``"margin"``:
  final margin / 10) is paid at the end and, with ``truncation="score"`` (default), also when the game is truncated
  after ``max_moves`` moves of all seats (the final scoring of the position reached; ``truncation="zero"`` pays 0).
  ``shaping="margin"`` adds ``shaping_gamma * phi(s') - phi(s)`` at every step, ``phi`` = the learner's projected
  score margin / ``shaping_scale`` (0 once the game has ended); ``info["shaping"]`` holds that term.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from ..bots import Bot
from ..core.state import GameState
from .actions import ActionIndex
from .observation import Observer, spec_for_state
from .opponents import Opponent, as_bot
from .rewards import check_reward, check_shaping, check_truncation, final_rewards, margin_potential

ObsType = dict[str, np.ndarray] | np.ndarray

#: The observation layouts: ``dict`` (observation and mask) or ``flat`` (the observation alone).
OBSERVATIONS = ("dict", "flat")


class HansaEnv(gymnasium.Env[ObsType, np.int64]):
    """One learning seat against hansa bots; see the module docstring."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        players: int = 3,
        seat: int | None = 0,
        opponents: Opponent | Sequence[Opponent] = "heuristic",
        variant: str | None = None,
        options: dict[str, Any] | None = None,
        reward: str = "win",
        max_moves: int = 5000,
        render_mode: str | None = None,
        *,
        observation: str = "dict",
        shaping: str = "none",
        shaping_scale: float = 10.0,
        shaping_gamma: float = 1.0,
        truncation: str = "score",
    ) -> None:
        if seat is not None and not 0 <= seat < players:
            raise ValueError(f"seat {seat} is not one of the {players} seats")
        check_reward(reward)
        check_shaping(shaping, shaping_scale, shaping_gamma)
        check_truncation(truncation)
        if observation not in OBSERVATIONS:
            raise ValueError(f"observation must be one of {OBSERVATIONS}, not {observation!r}")
        if not isinstance(max_moves, int) or max_moves < 1:
            raise ValueError(f"max_moves must be a positive integer, not {max_moves!r}")
        self.players, self.reward_kind, self.max_moves = players, reward, max_moves
        self.fixed_seat = seat
        self.seat = seat if seat is not None else 0
        self.observation_kind, self.truncation = observation, truncation
        self.shaping, self.shaping_scale, self.shaping_gamma = shaping, float(shaping_scale), float(shaping_gamma)
        if isinstance(opponents, (list, tuple)):
            if len(opponents) != players - 1:
                raise ValueError(f"{players - 1} opponents are needed, not {len(opponents)}")
            self.opponents: list[Opponent] = list(opponents)
        else:
            self.opponents = [opponents] * (players - 1)  # type: ignore[list-item]  # one opponent, not a sequence
        for opponent in self.opponents:
            as_bot(opponent, 0)  # a clear error now for an unknown spec or an unusable object
        self.game_options = dict(options or {})
        if variant is not None:
            self.game_options["two_player_variant"] = variant
        self.render_mode = render_mode
        probe = GameState.new(players, 0, self.game_options)
        self.actions = ActionIndex.for_state(probe)
        self.obs_spec = spec_for_state(probe)
        box = spaces.Box(low=0.0, high=64.0, shape=(self.obs_spec.size,), dtype=np.float32)
        if observation == "flat":
            self.observation_space = box
        else:
            self.observation_space = spaces.Dict({  # type: ignore[assignment]  # a Dict space of arrays
                "observation": box,
                "action_mask": spaces.Box(low=0, high=1, shape=(self.actions.size,), dtype=np.int8),
            })
        self.action_space = spaces.Discrete(self.actions.size)
        self.state: GameState = probe
        self.bots: dict[int, Bot] = {}
        self.pending: int | None = None
        self.moves = 0
        self.potential = 0.0  # phi of the learner's current decision point (shaping="margin")
        self._last_mask: npt.NDArray[np.int8] = np.zeros(self.actions.size, dtype=np.int8)  # of the last observation
        self._observer = Observer()  # the learner's observations by differences from its last

    def _obs(self) -> ObsType:
        pending_house = pending_exchange = None
        if not self.state.is_over and self.state.decider == self.seat:
            mask = self.actions.mask(self.state, self.pending).view(np.int8)
            pending_house = self.actions.pending_house(self.pending)
            pending_exchange = self.actions.pending_exchange(self.pending)
        else:
            mask = np.zeros(self.actions.size, dtype=np.int8)
        self._last_mask = mask
        observation = self._observer.observe(self.state, self.seat, pending_house, pending_exchange)
        if self.observation_kind == "flat":
            return observation
        return {"observation": observation, "action_mask": mask.copy()}

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions of the current observation as bools (sb3-contrib's MaskablePPO reads this method);
        all False once the episode has ended."""
        return self._last_mask.astype(bool)

    def _info(self, **extra: Any) -> dict[str, Any]:
        return {"action_mask": self._last_mask.astype(bool), "moves": self.moves, "seat": self.seat, **extra}

    def _bots_play(self) -> None:
        """The other seats move until the learner must decide, the game ends or the move limit is reached."""
        while not self.state.is_over and self.state.decider != self.seat and self.moves < self.max_moves:
            self.state.play(self.bots[self.state.decider].choose(self.state))
            self.moves += 1

    def _potential(self) -> float:
        return margin_potential(self.state, self.seat, self.shaping_scale) if self.shaping == "margin" else 0.0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[ObsType, dict[str, Any]]:
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(0, 2**53))
        self.seat = self.fixed_seat if self.fixed_seat is not None else int(self.np_random.integers(self.players))
        self.state = GameState.new(self.players, game_seed, self.game_options)
        others = [p for p in range(self.players) if p != self.seat]
        self.bots = {p: as_bot(self.opponents[k], game_seed + 1 + p) for k, p in enumerate(others)}
        self.pending = None
        self.moves = 0
        self._bots_play()
        self.potential = self._potential()
        obs = self._obs()
        return obs, self._info()

    def step(self, action: np.int64 | int) -> tuple[ObsType, float, bool, bool, dict[str, Any]]:
        if self.state.is_over or self.moves >= self.max_moves:
            raise RuntimeError("the episode has ended: call reset()")
        a = int(action)
        if not (0 <= a < self.actions.size and self._last_mask[a]):
            obs = self._obs()
            return obs, -1.0, True, False, self._info(illegal=True)
        move = self.actions.move(a, self.pending)
        before = self.potential
        if move is None:
            self.pending = a
        else:
            self.pending = None
            self.state.play(move)
            self.moves += 1
            self._bots_play()
            self.potential = self._potential()
        obs = self._obs()
        terminated = self.state.is_over
        truncated = not terminated and self.moves >= self.max_moves
        reward = 0.0
        if terminated or (truncated and self.truncation == "score"):
            reward = final_rewards(self.state, self.reward_kind)[self.seat]
        shaping = self.shaping_gamma * self.potential - before if self.shaping != "none" else 0.0
        return obs, reward + shaping, terminated, truncated, self._info(shaping=shaping)

    def render(self) -> str | None:
        return repr(self.state) if self.render_mode == "ansi" else None


if "hansa/Hansa-v1" not in gymnasium.registry:
    gymnasium.register(
        id="hansa/Hansa-v1", entry_point="hansa.ai.gym_env:HansaEnv",
        vector_entry_point="hansa.ai.vector_env:HansaVectorEnv",  # gymnasium.make_vec("hansa/Hansa-v1", 64, ...)
    )
