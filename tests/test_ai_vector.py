"""The vector environment (hansa.ai.vector_env) against separate HansaEnv games and Gymnasium's own SyncVectorEnv over
them (the reference for batching and autoreset), with Gymnasium's data_equivalence, spaces and vector wrappers."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium", reason="the rl extra is not installed")

from gymnasium.utils.env_checker import data_equivalence  # noqa: E402
from gymnasium.vector import AutoresetMode, SyncVectorEnv  # noqa: E402
from gymnasium.wrappers.vector import RecordEpisodeStatistics  # noqa: E402

from hansa.ai.gym_env import HansaEnv  # noqa: E402
from hansa.ai.vector_env import HansaVectorEnv  # noqa: E402
from hansa.bots import make_bot  # noqa: E402

#: Short games (truncated after 40 moves of all seats) against fast bots, so that games end and restart often.
SHORT: dict[str, Any] = {"players": 3, "opponents": "random", "max_moves": 40}


def choose(masks: np.ndarray, rng: np.random.Generator, illegal: float = 0.0) -> np.ndarray:
    """A legal action per game (an illegal one with probability ``illegal``; action 0 for a game with none)."""
    out = np.zeros(len(masks), dtype=np.int64)
    for i, row in enumerate(masks):
        options = np.flatnonzero(~row if rng.random() < illegal else row)
        out[i] = rng.choice(options) if len(options) else 0
    return out


def check_batch(envs: HansaVectorEnv, obs: dict[str, np.ndarray]) -> None:
    assert envs.observation_space.contains(obs)
    masks = envs.action_masks()
    assert masks.dtype == np.bool_ and masks.shape == (envs.num_envs, envs.actions.size)
    np.testing.assert_array_equal(masks, obs["action_mask"].astype(bool))


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP], ids=["next-step", "same-step"])
def test_agrees_with_gymnasium_sync_vector_env(mode: AutoresetMode) -> None:
    """Every observation, reward, termination, truncation and info equals SyncVectorEnv's over HansaEnv games, through
    truncations, illegal actions (terminations with -1) and the resets that follow."""
    n = 4
    envs = HansaVectorEnv(n, autoreset_mode=mode, **SHORT)
    reference = SyncVectorEnv([lambda: HansaEnv(**SHORT) for _ in range(n)], autoreset_mode=mode)
    assert envs.metadata["autoreset_mode"] == reference.metadata["autoreset_mode"] == mode
    assert envs.observation_space == reference.observation_space and envs.action_space == reference.action_space
    obs, info = envs.reset(seed=21)
    ref_obs, ref_info = reference.reset(seed=21)
    assert data_equivalence(obs, ref_obs, exact=True) and data_equivalence(info, ref_info, exact=True)
    rng = np.random.default_rng(21)
    ended = {"terminated": 0, "truncated": 0}
    for _ in range(150):
        check_batch(envs, obs)
        actions = choose(envs.action_masks(), rng, illegal=0.03)
        obs, rewards, terminations, truncations, info = envs.step(actions)
        ref = reference.step(actions)
        assert data_equivalence((obs, rewards, terminations, truncations, info), ref, exact=True)
        ended["terminated"] += int(terminations.sum())
        ended["truncated"] += int(truncations.sum())
        if mode == AutoresetMode.SAME_STEP and (terminations | truncations).any():
            assert (info["_final_obs"] == (terminations | truncations)).all()
    assert ended["terminated"] >= 3 and ended["truncated"] >= 3


def test_the_learning_options_carry_over() -> None:
    """With the flat observation, margin shaping, a seat drawn per reset and a callable opponent, the vector env still
    equals SyncVectorEnv over the same HansaEnv games (rewards every step, masks only through action_masks())."""
    def first_legal(state):  # a (GameState) -> Move opponent
        return state.legal_moves()[0]

    options = {**SHORT, "observation": "flat", "shaping": "margin", "seat": None, "opponents": first_legal}
    n = 3
    envs = HansaVectorEnv(n, **options)
    reference = SyncVectorEnv([lambda: HansaEnv(**options) for _ in range(n)])
    obs, _ = envs.reset(seed=5)
    ref_obs, _ = reference.reset(seed=5)
    assert obs.shape == (n, envs.single_observation_space.shape[0]) and data_equivalence(obs, ref_obs, exact=True)
    rng = np.random.default_rng(5)
    shaped = 0
    for _ in range(120):
        masks = envs.action_masks()
        np.testing.assert_array_equal(masks, np.stack([e.action_masks() for e in reference.envs]))
        actions = choose(masks, rng)
        step = envs.step(actions)
        assert data_equivalence(step, reference.step(actions), exact=True)
        shaped += int((step[1] != 0).sum())
    assert shaped > 10


def test_agrees_with_separate_games_to_their_natural_end() -> None:
    """Two games to their end (every seat played by `heuristic`, the learner's moves given as actions) equal two
    HansaEnv stepped alone with the same seeds and actions, final rewards included; the step after a game's end
    resets it (NEXT_STEP: reward 0, action ignored) exactly as the single game's own reset() does."""
    kwargs: dict[str, Any] = {"players": 3, "opponents": "heuristic", "reward": "margin", "max_moves": 3000}
    envs = HansaVectorEnv(2, **kwargs)
    singles = [HansaEnv(**kwargs) for _ in range(2)]
    obs, _ = envs.reset(seed=5)
    single_obs = [env.reset(seed=5 + i)[0] for i, env in enumerate(singles)]
    learners = [make_bot("heuristic", 50 + i) for i in range(2)]
    queued: list[list[int]] = [[], []]
    ended, finals, resets = [False, False], [0, 0], 0
    while 0 in finals or any(ended):
        actions = np.zeros(2, dtype=np.int64)  # a game that ended at the last step ignores its action now
        for i in range(2):
            assert data_equivalence(obs["observation"][i], single_obs[i]["observation"], exact=True)
            assert data_equivalence(obs["action_mask"][i], single_obs[i]["action_mask"], exact=True)
            if not ended[i]:
                queued[i] = queued[i] or list(envs.actions.indices(learners[i].choose(envs.envs[i].state)))
                actions[i] = queued[i].pop(0)
        obs, rewards, terminations, truncations, _ = envs.step(actions)
        for i, env in enumerate(singles):
            if ended[i]:
                single_obs[i], _ = env.reset()
                reward, terminated, truncated = 0.0, False, False
                resets += 1
            else:
                single_obs[i], reward, terminated, truncated, _ = env.step(actions[i])
            assert (rewards[i], terminations[i], truncations[i]) == (reward, terminated, truncated)
            assert not truncated
            if terminated:
                finals[i] += 1
                assert envs.envs[i].state.is_over and not envs.action_masks()[i].any() and reward != 0.0
            ended[i] = terminated
    assert resets >= 2


def test_reset_seeds_masks_and_disabled_autoreset() -> None:
    envs = HansaVectorEnv(3, autoreset_mode="Disabled", **SHORT)
    again = HansaVectorEnv(3, autoreset_mode=AutoresetMode.DISABLED, **SHORT)
    obs, _ = envs.reset(seed=3)
    same, _ = again.reset(seed=[3, 4, 5])
    assert data_equivalence(obs, same, exact=True)
    assert not np.array_equal(obs["observation"][0], obs["observation"][1])  # game i was seeded with 3 + i
    alone, _ = HansaEnv(**SHORT).reset(seed=4)
    np.testing.assert_array_equal(obs["observation"][1], alone["observation"])
    rng = np.random.default_rng(3)
    for _ in range(60):
        actions = choose(envs.action_masks(), rng)
        a, _, term_a, trunc_a, _ = envs.step(actions)
        b, _, _, _, _ = again.step(actions)
        assert data_equivalence(a, b, exact=True)  # the same seeds and actions: the same games
        if (term_a | trunc_a).any():
            break
    done = term_a | trunc_a
    assert done.any(), "no game ended within 60 steps"
    with pytest.raises(RuntimeError, match="autoreset is disabled"):
        envs.step(choose(envs.action_masks(), rng))
    before = {i: envs.envs[i].state.key() for i in range(3) if not done[i]}
    fresh, _ = envs.reset(seed=100, options={"reset_mask": done})
    assert all(envs.envs[i].state.key() == key for i, key in before.items())  # the others are untouched
    for i in np.flatnonzero(done):
        restarted, _ = HansaEnv(**SHORT).reset(seed=100 + int(i))
        np.testing.assert_array_equal(fresh["observation"][i], restarted["observation"])
    envs.step(choose(envs.action_masks(), rng))


def test_make_vec_and_gymnasium_vector_wrapper() -> None:
    """gymnasium.make_vec builds the batch from the registered id; Gymnasium's RecordEpisodeStatistics runs on it and
    reports, for each game that ended, the sum of its rewards."""
    envs = gymnasium.make_vec("hansa/Hansa-v1", num_envs=3, **SHORT)
    assert isinstance(envs.unwrapped, HansaVectorEnv) and envs.num_envs == 3
    stats = RecordEpisodeStatistics(envs)
    stats.reset(seed=8)
    rng = np.random.default_rng(8)
    returns = np.zeros(3)
    episodes = 0
    for _ in range(100):
        _, rewards, terminations, truncations, info = stats.step(choose(envs.unwrapped.action_masks(), rng, 0.03))
        returns += rewards
        for i in np.flatnonzero(terminations | truncations):
            assert info["_episode"][i] and info["episode"]["r"][i] == pytest.approx(returns[i])
            returns[i] = 0.0
            episodes += 1
    assert episodes >= 3
    sync = gymnasium.make_vec("hansa/Hansa-v1", num_envs=2, vectorization_mode="sync", **SHORT)
    assert isinstance(sync.unwrapped, SyncVectorEnv)


def test_bad_inputs_get_clear_errors() -> None:
    for n in (0, -1, True, 2.0, 10_000):
        with pytest.raises(ValueError, match="num_envs"):
            HansaVectorEnv(n, **SHORT)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="autoreset|AutoresetMode|valid"):
        HansaVectorEnv(2, autoreset_mode="sometimes", **SHORT)
    envs = HansaVectorEnv(2, **SHORT)
    envs.reset(seed=1)
    for bad in ([1, 2, 3], np.zeros(2, dtype=np.float32), [[0, 0]]):
        with pytest.raises(ValueError, match="actions must be 2 integers"):
            envs.step(bad)
    with pytest.raises(ValueError, match="seed"):
        envs.reset(seed=[1, 2, 3])
    with pytest.raises(ValueError, match="reset_mask"):
        envs.reset(options={"reset_mask": np.zeros(2, dtype=bool)})
    with pytest.raises(ValueError, match="opponent"):
        HansaVectorEnv(2, players=3, opponents=["random"])
