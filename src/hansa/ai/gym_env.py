"""Hansa Teutonica as a single-agent Gymnasium environment: one seat learns, hansa bots play the others (needs the
``rl`` extra).

    from hansa.ai.gym_env import HansaEnv
    env = HansaEnv(players=3, opponents="heuristic")
    obs, info = env.reset(seed=1)
    action = int(np.flatnonzero(obs["action_mask"])[0])
    obs, reward, terminated, truncated, info = env.step(action)

* The learner's seat is ``seat`` (default 0); the other seats are played by the bots ``opponents`` names (one spec
  for all, or a list, e.g. ``["heuristic", "mcts:easy"]``; specs as in ``hansa arena``), seeded from the reset seed.
* Observations are ``{"observation", "action_mask"}`` as in :mod:`hansa.ai.pettingzoo_env`; ``info["action_mask"]``
  holds the mask as bools too.  Move 3's shift is two steps (shift-from, shift-to), an exchange too (exchange-from,
  exchange-to).
* ``options`` are the game options, the map and the Big Box modules included (``{"map": "east"}``,
  ``{"missions": True, "emperors_favour": True, "marker_supply": [...]}``); the learner sees its own mission card only.
* An action outside the mask ends the episode with reward -1 and ``info["illegal"] = True`` (the convention of
  PettingZoo's TerminateIllegalWrapper), so sampling from the bare action space cannot corrupt a game.
* Rewards at the end as in the PettingZoo environment (``"win"``: 1/k for a winner, ``"margin"``); truncation after
  ``max_moves`` moves of all seats.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from ..bots import Bot, make_bot
from ..core.state import GameState
from .actions import ActionIndex
from .observation import observe, spec_for_state
from .rewards import check_reward, final_rewards

ObsType = dict[str, np.ndarray]


class HansaEnv(gymnasium.Env[ObsType, np.int64]):
    """One learning seat against hansa bots; see the module docstring."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        players: int = 3,
        seat: int = 0,
        opponents: str | list[str] = "heuristic",
        variant: str | None = None,
        options: dict[str, Any] | None = None,
        reward: str = "win",
        max_moves: int = 5000,
        render_mode: str | None = None,
    ) -> None:
        if not 0 <= seat < players:
            raise ValueError(f"seat {seat} is not one of the {players} seats")
        check_reward(reward)
        self.players, self.seat, self.reward_kind, self.max_moves = players, seat, reward, max_moves
        self.opponent_specs = [opponents] * players if isinstance(opponents, str) else list(opponents)
        if isinstance(opponents, list) and len(opponents) != players - 1:
            raise ValueError(f"{players - 1} opponent specs are needed, not {len(opponents)}")
        if isinstance(opponents, list):
            self.opponent_specs.insert(seat, "-")
        self.game_options = dict(options or {})
        if variant is not None:
            self.game_options["two_player_variant"] = variant
        self.render_mode = render_mode
        probe = GameState.new(players, 0, self.game_options)
        self.actions = ActionIndex.for_state(probe)
        self.obs_spec = spec_for_state(probe)
        self.observation_space = spaces.Dict({  # type: ignore[assignment]  # a Dict space of arrays
            "observation": spaces.Box(low=0.0, high=64.0, shape=(self.obs_spec.size,), dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(self.actions.size,), dtype=np.int8),
        })
        self.action_space = spaces.Discrete(self.actions.size)
        self.state: GameState = probe
        self.bots: dict[int, Bot] = {}
        self.pending: int | None = None
        self.moves = 0
        self._last_mask: npt.NDArray[np.int8] = np.zeros(self.actions.size, dtype=np.int8)  # of the last observation

    def _obs(self) -> ObsType:
        pending_house = pending_exchange = None
        if not self.state.is_over and self.state.decider == self.seat:
            mask = self.actions.mask(self.state, self.pending).view(np.int8)
            pending_house = self.actions.pending_house(self.pending)
            pending_exchange = self.actions.pending_exchange(self.pending)
        else:
            mask = np.zeros(self.actions.size, dtype=np.int8)
        self._last_mask = mask
        observation = observe(self.state, self.seat, pending_house, pending_exchange)
        return {"observation": observation, "action_mask": mask.copy()}

    def _info(self, obs: ObsType, **extra: Any) -> dict[str, Any]:
        return {"action_mask": obs["action_mask"].astype(bool), "moves": self.moves, **extra}

    def _bots_play(self) -> None:
        """The other seats move until the learner must decide, the game ends or the move limit is reached."""
        while not self.state.is_over and self.state.decider != self.seat and self.moves < self.max_moves:
            self.state.play(self.bots[self.state.decider].choose(self.state))
            self.moves += 1

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[ObsType, dict[str, Any]]:
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(0, 2**53))
        self.state = GameState.new(self.players, game_seed, self.game_options)
        self.bots = {
            p: make_bot(self.opponent_specs[p], game_seed + 1 + p) for p in range(self.players) if p != self.seat
        }
        self.pending = None
        self.moves = 0
        self._bots_play()
        obs = self._obs()
        return obs, self._info(obs)

    def step(self, action: np.int64 | int) -> tuple[ObsType, float, bool, bool, dict[str, Any]]:
        if self.state.is_over or self.moves >= self.max_moves:
            raise RuntimeError("the episode has ended: call reset()")
        a = int(action)
        if not (0 <= a < self.actions.size and self._last_mask[a]):
            obs = self._obs()
            return obs, -1.0, True, False, self._info(obs, illegal=True)
        move = self.actions.move(a, self.pending)
        if move is None:
            self.pending = a
        else:
            self.pending = None
            self.state.play(move)
            self.moves += 1
            self._bots_play()
        obs = self._obs()
        terminated = self.state.is_over
        truncated = not terminated and self.moves >= self.max_moves
        return obs, self._reward() if terminated else 0.0, terminated, truncated, self._info(obs)

    def _reward(self) -> float:
        return final_rewards(self.state, self.reward_kind)[self.seat]

    def render(self) -> str | None:
        return repr(self.state) if self.render_mode == "ansi" else None


if "hansa/Hansa-v1" not in gymnasium.registry:
    gymnasium.register(
        id="hansa/Hansa-v1", entry_point="hansa.ai.gym_env:HansaEnv",
        vector_entry_point="hansa.ai.vector_env:HansaVectorEnv",  # gymnasium.make_vec("hansa/Hansa-v1", 64, ...)
    )
