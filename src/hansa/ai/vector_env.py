"""Many Hansa Teutonica games stepped together in one process: a Gymnasium ``VectorEnv`` of :class:`HansaEnv` games
(needs the ``rl`` extra).

    from hansa.ai.vector_env import HansaVectorEnv
    envs = HansaVectorEnv(64, players=3, opponents="purpose")   # or gymnasium.make_vec("hansa/Hansa-v1", 64, ...)
    obs, infos = envs.reset(seed=1)              # obs["observation"]: 64 x size float32, obs["action_mask"]: 64 x A
    masks = envs.action_masks()                  # 64 x A bool (sb3-contrib's convention)
    obs, rewards, terminations, truncations, infos = envs.step(actions)   # actions: 64 ints

* Each game is a :class:`hansa.ai.gym_env.HansaEnv` made with the keyword arguments given (``players``, ``seat``,
  ``opponents``, ``options``, ``reward``, ``max_moves``, ... and whatever options that environment has), so every
  option of the single-game environment holds here and the batch agrees exactly with ``num_envs`` separate
  ``HansaEnv`` stepped with the same seeds and actions (and with Gymnasium's ``SyncVectorEnv`` over them: a test
  checks both).
* The batch: observations stacked (a ``Dict`` of ``num_envs x size`` float32 and ``num_envs x A`` int8 arrays, or
  one ``num_envs x size`` array for a flat observation), rewards float64, terminations and truncations bool, infos as
  Gymnasium batches them (each key an array over the games and ``_key`` telling which games have it).
* Autoreset as Gymnasium 1.x's vector environments (``metadata["autoreset_mode"]``): ``NEXT_STEP`` (default: the
  step after a game ends resets it, ignoring its action, with reward 0), ``SAME_STEP`` (a game that ends is reset
  in the same step; its last observation and info are in ``infos["final_obs"]`` and ``infos["final_info"]``), or
  ``DISABLED`` (reset the ended games with ``reset(options={"reset_mask": ...})``).
* ``reset(seed=s)`` seeds game ``i`` with ``s + i`` (a list gives one seed per game), as ``SyncVectorEnv`` does.

The games run one after another in this process: the batch saves Gymnasium's per-game copies and wrappers, not the
games' own work (docs/ai.md "Vector env" has the measured throughput).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space, concatenate, create_empty_array

from .gym_env import HansaEnv

_MISSING = object()  # an info key a game's info lacks

#: The most games one vector environment steps (a bound on memory: each game holds its own state and bots).
MAX_ENVS = 4096


class HansaVectorEnv(VectorEnv):
    """``num_envs`` :class:`HansaEnv` games stepped as one batch; see the module docstring."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"]}

    def __init__(
        self,
        num_envs: int = 8,
        *,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        copy: bool = True,
        **env_kwargs: Any,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or not 1 <= num_envs <= MAX_ENVS:
            raise ValueError(f"num_envs must be an integer from 1 to {MAX_ENVS}, not {num_envs!r}")
        self.autoreset_mode = AutoresetMode(autoreset_mode)
        self.copy = copy
        #: The games, each a :class:`HansaEnv` (read their ``state``, ``seat``, ``moves``; step only through the batch).
        self.envs = [HansaEnv(**env_kwargs) for _ in range(num_envs)]
        first = self.envs[0]
        self.num_envs = num_envs
        self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        self.render_mode = first.render_mode
        self.single_observation_space = first.observation_space
        self.single_action_space = first.action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.actions = first.actions
        self._env_obs: list[Any] = [None] * num_envs
        self._observations: Any = create_empty_array(self.single_observation_space, n=num_envs, fn=np.zeros)
        self._rewards = np.zeros(num_envs, dtype=np.float64)
        self._terminations = np.zeros(num_envs, dtype=np.bool_)
        self._truncations = np.zeros(num_envs, dtype=np.bool_)
        self._autoreset = np.zeros(num_envs, dtype=np.bool_)

    def reset(
        self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset every game (or those of ``options["reset_mask"]``, a bool array over the games); ``seed``: an int
        (game ``i`` gets ``seed + i``), one seed per game, or None."""
        seeds = self._seeds(seed)
        rest = None if options is None else {k: v for k, v in options.items() if k != "reset_mask"}
        reset_mask = None if options is None else options.get("reset_mask")
        if reset_mask is None:
            chosen = np.ones(self.num_envs, dtype=np.bool_)
        else:
            if not (isinstance(reset_mask, np.ndarray) and reset_mask.dtype == np.bool_
                    and reset_mask.shape == (self.num_envs,) and reset_mask.any()):
                raise ValueError(f"options['reset_mask'] must be a bool array of shape ({self.num_envs},) with a "
                                 f"True value, not {reset_mask!r}")
            chosen = reset_mask
        infos: dict[str, Any] = {}
        for i in np.flatnonzero(chosen):
            self._env_obs[i], info = self.envs[i].reset(seed=seeds[i], options=rest)
            infos = self._add_info(infos, info, int(i))
        self._terminations[chosen] = False
        self._truncations[chosen] = False
        self._autoreset[chosen] = False
        return self._batch(), infos

    def _seeds(self, seed: int | Sequence[int | None] | None) -> list[int | None]:
        if seed is None:
            return [None] * self.num_envs
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            return [int(seed) + i for i in range(self.num_envs)]
        seeds = list(seed)  # type: ignore[arg-type]  # a sequence of seeds
        if len(seeds) != self.num_envs or not all(s is None or isinstance(s, (int, np.integer)) for s in seeds):
            raise ValueError(f"seed must be an int, None or {self.num_envs} ints or None, not {seed!r}")
        return [None if s is None else int(s) for s in seeds]

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[Any, npt.NDArray[np.float64], npt.NDArray[np.bool_], npt.NDArray[np.bool_], dict[str, Any]]:
        """One action per game (an action index; ignored for a game the ``NEXT_STEP`` mode resets now)."""
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or not np.issubdtype(acts.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_envs} integers (shape ({self.num_envs},)), not shape "
                             f"{acts.shape} of {acts.dtype}")
        mode = self.autoreset_mode
        if mode == AutoresetMode.DISABLED and self._autoreset.any():
            raise RuntimeError(f"games {list(np.flatnonzero(self._autoreset))} have ended: reset them with "
                               "options={'reset_mask': ...} (autoreset is disabled)")
        infos: dict[str, Any] = {}
        env_infos: list[dict[str, Any]] = [{}] * self.num_envs
        for i, env in enumerate(self.envs):
            if self._autoreset[i]:
                obs, info = env.reset()
                reward, terminated, truncated = 0.0, False, False
            else:
                obs, reward, terminated, truncated, info = env.step(acts[i])
                if mode == AutoresetMode.SAME_STEP and (terminated or truncated):
                    infos = self._add_info(infos, {"final_obs": obs, "final_info": info}, i)
                    obs, info = env.reset()
            self._env_obs[i] = obs
            self._rewards[i], self._terminations[i], self._truncations[i] = reward, terminated, truncated
            env_infos[i] = info
        self._autoreset = self._terminations | self._truncations
        if mode == AutoresetMode.SAME_STEP:
            self._autoreset[:] = False
        infos = self._batch_infos(infos, env_infos)
        return self._batch(), self._rewards.copy(), self._terminations.copy(), self._truncations.copy(), infos

    def _batch_infos(self, infos: dict[str, Any], env_infos: list[dict[str, Any]]) -> dict[str, Any]:
        """Every game's info batched as :meth:`VectorEnv._add_info` does one game at a time (the result is the same;
        a test compares it with ``SyncVectorEnv``'s), in one step per key that every game has as a number or an
        array of one shape."""
        keys = dict.fromkeys(k for info in env_infos for k in info)
        n = self.num_envs
        for key in keys:
            values = [info.get(key, _MISSING) for info in env_infos]
            first = values[0]
            array: Any = None
            if key not in infos and not any(v is _MISSING for v in values):
                if type(first) in (int, float, bool) or isinstance(first, np.number):
                    array = np.array(values, dtype=type(first))
                elif isinstance(first, np.ndarray) and all(
                    isinstance(v, np.ndarray) and v.shape == first.shape for v in values
                ):
                    array = np.stack(values).astype(first.dtype, copy=False)
            if array is None:  # anything else (a dict, an object, a key some games lack) one game at a time
                for i, value in enumerate(values):
                    if value is not _MISSING:
                        infos = self._add_info(infos, {key: value}, i)
            else:
                infos[key], infos[f"_{key}"] = array, np.ones(n, dtype=np.bool_)
        return infos

    def _batch(self) -> Any:
        """The games' observations stacked: into fresh arrays (``copy=True``), or into the same arrays each step."""
        space = self.single_observation_space
        out: Any = create_empty_array(space, n=self.num_envs, fn=np.empty) if self.copy else self._observations
        self._observations = concatenate(space, self._env_obs, out)
        return self._observations

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions of every game's current observation, ``num_envs x A`` bools (sb3-contrib's
        convention): each row is its game's ``observation["action_mask"]`` (none once the game is over; a truncated
        game's row is its last position's, and ``NEXT_STEP`` ignores the action it gets)."""
        batch = self._observations
        if isinstance(batch, dict) and "action_mask" in batch:  # the masks are in the batch already
            return np.asarray(batch["action_mask"], dtype=np.bool_)
        return np.stack([env.action_masks() for env in self.envs])

    def render(self) -> tuple[Any, ...]:
        return tuple(env.render() for env in self.envs)

    def close_extras(self, **kwargs: Any) -> None:
        for env in self.envs:
            env.close()
