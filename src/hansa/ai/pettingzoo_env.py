"""Hansa Teutonica as a PettingZoo AEC environment (needs the ``rl`` extra: ``pip install -e '.[rl]'``).

    from hansa.ai.pettingzoo_env import env
    e = env(players=3)                        # env(players=4, options={"map": "east"}) for an expansion map
    e.reset(seed=7)
    for agent in e.agent_iter():
        obs, reward, termination, truncation, info = e.last()
        action = None if termination or truncation else int(np.flatnonzero(obs["action_mask"])[0])
        e.step(action)

* ``agent_selection`` is the seat that must decide now, off-turn decisions included (a displaced player relocating,
  the choice of a neutral office's city); agents are ``player_0`` .. ``player_{n-1}`` by seat.
* Observations are ``{"observation": float32 vector, "action_mask": int8 vector}`` (:mod:`hansa.ai.observation`,
  :mod:`hansa.ai.actions`); only the deciding agent's mask has ones.  Move 3's shift takes two steps of the same
  agent (shift-from, then shift-to), and so does an exchange (exchange-from, exchange-to) on the expansion maps.
* ``options`` are the game options (``hansa.core.options``), the map included: ``{"map": "east"}`` or
  ``{"map": "britannia"}`` plays an expansion map (3-5 players) with its own action index and observation.
  The Big Box modules (``{"missions": True, "emperors_favour": True, "marker_supply": [...12 names]}``) select the
  action index and observation of the board with those modules (docs/ai.md); each agent's observation holds its own
  mission card, never another agent's.
* ``state()`` (space ``state_space``) is a global state for a centralized critic: seat 0's observation plus the
  hidden markers and every mission card (:mod:`hansa.ai.global_state`).  For centralized training only: it leaks
  hidden information by design.
* Rewards come at the end: ``reward="win"`` gives each winner 1/k (k winners) and the others 0; ``reward="margin"``
  gives each seat (its final score - the best other final score) / 10.
* ``max_moves`` truncates a game that has not ended (random play on this game can run for a long time); with
  ``truncation="score"`` (default) the truncated game pays every seat the reward of the final scoring of the
  position reached, with ``truncation="zero"`` it pays 0.
* ``shaping="margin"`` (:mod:`hansa.ai.rewards`) adds to every agent, at every step, ``phi(s') - phi(s)``, ``phi``
  its projected score margin / ``shaping_scale`` (0 once the game has ended): each agent's shaping sums to
  ``phi(end) - phi(start)`` over the game (undiscounted; docs/ai.md "Learning").
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator

from ..core.features import action_flags
from ..core.state import GameState
from .actions import ActionIndex
from .global_state import global_spec_for_state, global_state
from .observation import Observer, spec_for_state
from .rewards import check_reward, check_shaping, check_truncation, final_rewards, projected_margins


def env(**kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's order-enforcing wrapper (``raw_env`` without it)."""
    return _OrderEnforcing(raw_env(**kwargs))


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order-enforcing wrapper whose ``last()``, ``step()``, ``agents`` and ``agent_selection`` ask the
    environment directly: the wrapper's own go through its attribute forwarding (``__getattr__``) eight times a step
    (``agent_iter``'s ``agents`` and ``agent_selection``, and in ``last()`` the observation, the reward, termination,
    truncation and info dictionaries).  The same answers, checks and errors before ``reset()``."""

    @property
    def agents(self) -> list[str]:  # read-only here, as through PettingZoo's wrapper
        if not self._has_reset:
            raise AttributeError("agents cannot be accessed before reset")
        agents: list[str] = self.env.agents
        return agents

    @property
    def agent_selection(self) -> str:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        agent: str = self.env.agent_selection
        return agent

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)  # type: ignore[no-any-return]

    def agent_iter(self, max_iter: int = 2**63) -> AECOrderEnforcingIterable[str, Any, Any]:
        """PettingZoo's order-enforcing ``agent_iter`` (same checks) whose iterator reads the environment directly."""
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _Iterable(self, max_iter)

    def step(self, action: Any) -> None:
        """The wrapper's ``step`` (same checks, same warnings) without its attribute forwarding."""
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        self._has_updated = True
        if not self.env.agents:
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self.env.step(action)


class _Iterable(AECOrderEnforcingIterable[str, Any, Any]):
    def __iter__(self) -> _Iterator:
        return _Iterator(self.env, self.max_iter)


class _Iterator(AECOrderEnforcingIterator[str, Any, Any]):
    """PettingZoo's order-enforcing iterator (the same stop, the same assertion) reading the wrapped environment's
    ``agents`` and ``agent_selection`` without two property calls a step."""

    def __next__(self) -> str:
        wrapper = self.env
        env = wrapper.env
        if not env.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert wrapper._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        wrapper._has_updated = False
        agent: str = env.agent_selection
        return agent


class raw_env(AECEnv):  # noqa: N801 - PettingZoo's naming convention
    """Hansa Teutonica for 2-5 players; see the module docstring."""

    metadata = {"name": "hansa_v1", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(
        self,
        players: int = 3,
        variant: str | None = None,
        options: dict[str, Any] | None = None,
        reward: str = "win",
        max_moves: int = 5000,
        render_mode: str | None = None,
        *,
        shaping: str = "none",
        shaping_scale: float = 10.0,
        truncation: str = "score",
    ) -> None:
        super().__init__()
        check_reward(reward)
        check_shaping(shaping, shaping_scale, 1.0)
        check_truncation(truncation)
        self.shaping, self.shaping_scale, self.truncation = shaping, float(shaping_scale), truncation
        self.players = players
        self.game_options = dict(options or {})
        if variant is not None:
            self.game_options["two_player_variant"] = variant
        self.reward_kind = reward
        self.max_moves = max_moves
        self.render_mode = render_mode
        probe = GameState.new(players, 0, self.game_options)
        self.actions = ActionIndex.for_state(probe)
        self.obs_spec = spec_for_state(probe)
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self._seats = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self.agents = self.possible_agents[:]
        obs_space = spaces.Dict({
            "observation": spaces.Box(low=0.0, high=64.0, shape=(self.obs_spec.size,), dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(self.actions.size,), dtype=np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.actions.size) for a in self.possible_agents}
        #: The space of :meth:`state` (centralized training only: it holds hidden information).
        self.state_space = spaces.Box(
            low=0.0, high=64.0, shape=(global_spec_for_state(probe).size,), dtype=np.float32
        )
        self.state_: GameState = probe
        self.pending: int | None = None
        self.moves = 0
        self._rng = np.random.default_rng()
        self._mask: npt.NDArray[np.int8] | None = None  # the deciding agent's mask, made once per decision
        self._observer = Observer()  # observations by differences from each agent's last
        self._potentials = [0.0] * players  # every seat's phi (shaping="margin")

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def _seat(self, agent: str) -> int:
        seat = self._seats.get(agent)
        if seat is None:
            raise ValueError(f"{agent!r} is not one of {self.possible_agents}")
        return seat

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        game_seed = int(self._rng.integers(0, 2**53))
        self.state_ = GameState.new(self.players, game_seed, self.game_options)
        self.pending = None
        self.moves = 0
        self._mask = None
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.state_.decider]
        self._potentials = self._phi()

    def _phi(self) -> list[float]:
        """Every seat's shaping potential (zeros without shaping or once the game is over)."""
        if self.shaping == "none" or self.state_.is_over:
            return [0.0] * self.players
        return [m / self.shaping_scale for m in projected_margins(self.state_)]

    def _decision_mask(self) -> npt.NDArray[np.int8]:
        """The deciding agent's action mask (computed once per decision; callers get copies)."""
        if self._mask is None:
            if self.pending is None:  # the usual case, without the bool array made and viewed as int8
                actions = self.actions
                flags, missed = action_flags(self.state_.legal_moves(), actions._by_id, actions.size)
                if missed:
                    actions._set_flags(flags, missed)
                self._mask = np.frombuffer(flags, dtype=np.int8)
            else:
                self._mask = self.actions.mask(self.state_, self.pending).view(np.int8)
        return self._mask

    def observe(self, agent: str) -> dict[str, Any]:
        seat = self._seats.get(agent)
        if seat is None:
            seat = self._seat(agent)  # raises: not an agent
        pending_house = pending_exchange = None
        if agent == self.agent_selection and not self.state_.is_over and not self.truncations.get(agent, False):
            mask = self._decision_mask().copy()
            if self.pending is not None:
                pending_house = self.actions.pending_house(self.pending)
                pending_exchange = self.actions.pending_exchange(self.pending)
        else:
            mask = np.zeros(self.actions.size, dtype=np.int8)
        return {
            "observation": self._observer.observe(self.state_, seat, pending_house, pending_exchange),
            "action_mask": mask,
        }

    def state(self) -> npt.NDArray[np.float32]:
        """The global state for a centralized critic (:mod:`hansa.ai.global_state`): seat 0's observation and the
        hidden markers and mission cards.  For centralized training only: it leaks what no agent may see."""
        pending_house = pending_exchange = None
        if not self.state_.is_over:
            pending_house = self.actions.pending_house(self.pending)
            pending_exchange = self.actions.pending_exchange(self.pending)
        return global_state(self.state_, pending_house, pending_exchange)

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert action is not None, "the deciding agent must act"
        a = int(action)
        actions = self.actions
        if not 0 <= a < actions.size:
            raise ValueError(f"action {action} is outside 0..{actions.size - 1}")
        mask = self._mask if self._mask is not None else self._decision_mask()
        if not mask[a]:
            raise ValueError(f"action {action} ({actions.labels[a]}) is not legal now")
        self._cumulative_rewards[agent] = 0.0
        self._mask = None
        move = actions.plain[a] if self.pending is None else None
        if move is None:
            move = actions.move(a, self.pending)
        if move is None:
            self.pending = int(action)  # a shift-from (exchange-from): the same agent chooses the second step next
        else:
            self.pending = None
            self.state_.play(move)
            self.moves += 1
        # Without shaping, rewards come at the end only: until then ``rewards`` stays all zeros (set so by reset) and
        # adds nothing, so the dictionaries are not rebuilt on the steps that pay nothing.
        shaped = self.shaping != "none"
        paid = shaped
        if shaped:
            self.rewards = dict.fromkeys(self.agents, 0.0)
        if self.state_.is_over:
            self.rewards = self._final_rewards()
            self.terminations = dict.fromkeys(self.agents, True)
            paid = True
        elif self.moves >= self.max_moves:
            if self.truncation == "score":
                self.rewards = self._final_rewards()
                paid = True
            self.truncations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[self.state_.decider]
        if shaped and move is not None:
            before, self._potentials = self._potentials, self._phi()
            for seat, agent_name in enumerate(self.possible_agents):
                self.rewards[agent_name] += self._potentials[seat] - before[seat]
        if paid:
            self._accumulate_rewards()

    def _final_rewards(self) -> dict[str, float]:
        return dict(zip(self.possible_agents, final_rewards(self.state_, self.reward_kind), strict=True))

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        return repr(self.state_)

    def close(self) -> None:
        pass
