"""AI-environment throughput: steps/s with the observation and the action mask computed at every step, on one core.

By default one side-by-side table (CPU time, ``time.process_time``; the median of ``--rounds`` rounds, the
measurements interleaved round by round so that a busy machine slows them alike): the raw engine, engine + mask +
observation, the PettingZoo env (``last()`` + ``step``), the Gymnasium env (learner steps; the other seats played by
the uniform random bot inside ``step``), OpenSpiel's ``python_hansa`` without and with tensors, and OpenSpiel's C++
chess driven from the same Python loop with its observation tensor (the yardstick: the last column is each row's
ratio to it).  Another row is one entry of :data:`MEASURES` (a name and a function ``(steps, seed) -> steps/s``).

    python benchmarks/bench_env.py --steps 5000 --rounds 5 [--players 3] [--map base|east|britannia] [--json FILE]
    python benchmarks/bench_env.py --split --steps 20000      # the earlier split: engine / mask / observation

Each step: the action mask of the deciding seat (``ActionIndex.mask``), its observation (``observe``), a random
masked action (a claim whenever one is legal, as the engine benchmark's random policy does, so games end), and the
engine applying it.  Reports steps/s and the split of the time between engine (legal moves + play), mask and
observation (wall clock around each part); the same split in CPU time from three whole runs (engine; + mask;
+ observation), which a busy machine does not skew; and the PettingZoo environment's own steps/s
(``env.last()`` + ``env.step``).

    python benchmarks/bench_env.py --steps 20000 [--players 3] [--map base|east|britannia] [--json FILE]
    python benchmarks/bench_env.py --vector 64 [--rounds 5] [--batch-steps 40]   # the vector env alone (below)

``--map east`` or ``--map britannia`` measures an expansion map (3-5 players; its side's action index and
observation, which has more fields to fill).

This measures; it asserts nothing.  Numbers are reported in the README.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from hansa import compiled
from hansa.ai.actions import ActionIndex
from hansa.ai.observation import observe

try:
    from hansa.ai.observation import Observer
except ImportError:  # the code before the incremental observer (to measure it with this script: PYTHONPATH=...)
    Observer = None  # type: ignore[assignment,misc]
from hansa.core.moves import Claim
from hansa.core.state import GameState


def game_options(map_name: str) -> dict[str, str]:
    """The game options of a map (none for the base map, so its games are exactly the earlier runs')."""
    return {} if map_name == "base" else {"map": map_name}


def core_loop(players: int, steps: int, seed: int, map_name: str = "base") -> dict[str, float]:
    rng = random.Random(seed)
    options = game_options(map_name)
    t_engine = t_mask = t_obs = 0.0
    done = games = 0
    clock = time.perf_counter
    while done < steps:
        state = GameState.new(players, rng.randrange(2**31), options)
        actions = ActionIndex.for_state(state)
        games += 1
        while not state.is_over and done < steps:
            t0 = clock()
            moves = state.legal_moves()
            t1 = clock()
            mask = actions.mask(state, moves=moves)
            t2 = clock()
            observe(state, state.decider)
            t3 = clock()
            claims = [m for m in moves if isinstance(m, Claim)]
            move = rng.choice(claims or moves)
            assert mask[actions.indices(move)[0]]
            state.play(move)
            t4 = clock()
            t_engine += (t1 - t0) + (t4 - t3)
            t_mask += t2 - t1
            t_obs += t3 - t2
            done += 1
    total = t_engine + t_mask + t_obs
    return {
        "steps": done, "games_started": games, "seconds": total, "steps_per_s": done / total,
        "engine_share": t_engine / total, "mask_share": t_mask / total, "observation_share": t_obs / total,
        "engine_us": t_engine / done * 1e6, "mask_us": t_mask / done * 1e6, "observation_us": t_obs / done * 1e6,
    }


def cpu_differential(players: int, steps: int, seed: int, map_name: str = "base") -> dict[str, float]:
    """CPU time (``time.process_time``) per step of three whole runs over the same seeded games: engine only,
    engine + mask, engine + mask + observation; the differences are the mask's and the observation's cost.  Not
    skewed by other processes on a busy machine, and no clock call inside the loop."""

    options = game_options(map_name)

    def run(mask: bool, obs: bool) -> float:
        rng = random.Random(seed)
        done = 0
        t0 = time.process_time()
        while done < steps:
            state = GameState.new(players, rng.randrange(2**31), options)
            actions = ActionIndex.for_state(state)
            while not state.is_over and done < steps:
                moves = state.legal_moves()
                if mask:
                    actions.mask(state, moves=moves)
                if obs:
                    observe(state, state.decider)
                claims = [m for m in moves if isinstance(m, Claim)]
                state.play(rng.choice(claims or moves))
                done += 1
        return (time.process_time() - t0) / steps * 1e6

    engine, with_mask, everything = run(False, False), run(True, False), run(True, True)
    return {"engine_us": engine, "mask_us": with_mask - engine, "observation_us": everything - with_mask,
            "steps_per_s": 1e6 / everything}


def pettingzoo_loop(players: int, steps: int, seed: int, map_name: str = "base") -> dict[str, float] | None:
    try:
        from hansa.ai.pettingzoo_env import env
    except ImportError:
        return None
    e = env(players=players, options=game_options(map_name), max_moves=100_000)
    rng = np.random.default_rng(seed)
    e.reset(seed=seed)
    done = 0
    start = time.perf_counter()
    while done < steps:
        for _agent in e.agent_iter():
            obs, _, termination, truncation, _ = e.last()
            if termination or truncation:
                e.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            claims = [a for a in legal if e.unwrapped.actions.family_of(int(a)) == "claim"]
            e.step(int(rng.choice(claims or legal)))
            done += 1
            if done >= steps:
                break
        else:
            e.reset()
    seconds = time.perf_counter() - start
    return {"steps": done, "seconds": seconds, "steps_per_s": done / seconds}


def vector_throughput(num_envs: int, batch_steps: int, rounds: int, seed: int, players: int = 3,
                      map_name: str = "base", opponents: str = "random") -> dict[str, Any]:
    """Learner steps/s (CPU time) of ``num_envs`` games three ways, interleaved round by round so that a busy
    machine skews them alike: the vector env (:class:`hansa.ai.vector_env.HansaVectorEnv`), the same number of
    separate :class:`HansaEnv` stepped in a Python loop (their observations and masks stacked into the same arrays,
    a reset after each episode), and Gymnasium's ``SyncVectorEnv`` over them.  Each round runs ``batch_steps`` batch
    steps of each from the same seeds with the same actions (a random legal one per game, from one generator).
    Returns the median of the rounds for each and every round's numbers."""
    from gymnasium.vector import SyncVectorEnv

    from hansa.ai.gym_env import HansaEnv
    from hansa.ai.vector_env import HansaVectorEnv

    kwargs: dict[str, Any] = {"players": players, "opponents": opponents, "options": game_options(map_name)}

    def pick(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in masks], dtype=np.int64)

    def run_vector(envs: Any, round_seed: int) -> float:
        rng = np.random.default_rng(round_seed)
        t0 = time.process_time()
        envs.reset(seed=round_seed)
        for _ in range(batch_steps):
            masks = envs.action_masks() if hasattr(envs, "action_masks") else np.stack(
                [env._last_mask.astype(bool) for env in envs.envs])
            envs.step(pick(masks, rng))
        return time.process_time() - t0

    def run_loop(envs: list[Any], round_seed: int) -> float:
        rng = np.random.default_rng(round_seed)
        t0 = time.process_time()
        obs = [env.reset(seed=round_seed + i)[0] for i, env in enumerate(envs)]
        done = [False] * num_envs
        for _ in range(batch_steps):
            actions = pick(np.stack([o["action_mask"] for o in obs]).astype(bool), rng)
            for i, env in enumerate(envs):
                if done[i]:
                    obs[i], _ = env.reset()
                    done[i] = False
                else:
                    obs[i], _, terminated, truncated, _ = env.step(actions[i])
                    done[i] = terminated or truncated
            np.stack([o["observation"] for o in obs])
        return time.process_time() - t0

    vector = HansaVectorEnv(num_envs, **kwargs)
    loop = [HansaEnv(**kwargs) for _ in range(num_envs)]
    sync = SyncVectorEnv([lambda: HansaEnv(**kwargs) for _ in range(num_envs)])
    times: dict[str, list[float]] = {"vector": [], "loop": [], "sync": []}
    for r in range(rounds):
        round_seed = seed + 1000 * r
        times["vector"].append(run_vector(vector, round_seed))
        times["loop"].append(run_loop(loop, round_seed))
        times["sync"].append(run_vector(sync, round_seed))
    steps = num_envs * batch_steps
    rates = {name: [steps / t for t in ts] for name, ts in times.items()}
    return {"num_envs": num_envs, "batch_steps": batch_steps, "rounds": rounds, "players": players, "map": map_name,
            "opponents": opponents, "steps_per_s": {name: float(np.median(r)) for name, r in rates.items()},
            "rounds_steps_per_s": rates}


def print_vector(result: dict[str, Any]) -> None:
    med = result["steps_per_s"]
    print(f"{result['num_envs']} games, {result['players']} players, map {result['map']}, opponents "
          f"{result['opponents']}: learner steps/s, CPU time, median of {result['rounds']} interleaved rounds of "
          f"{result['batch_steps']} batch steps")
    print(f"  HansaVectorEnv:                         {med['vector']:,.0f}")
    print(f"  {result['num_envs']} HansaEnv in a loop (stacked):        {med['loop']:,.0f}  "
          f"(vector / loop = {med['vector'] / med['loop']:.2f})")
    print(f"  gymnasium SyncVectorEnv of HansaEnv:    {med['sync']:,.0f}  "
          f"(vector / sync = {med['vector'] / med['sync']:.2f})")
# ---------------------------------------------------------------------------------------------- the table


def _cpu(loop: Callable[[], int]) -> float:
    """Steps per CPU second of ``loop`` (which returns the steps it made)."""
    t0 = time.process_time()
    steps = loop()
    return steps / (time.process_time() - t0)


def raw_engine(players: int, steps: int, seed: int, options: dict[str, str]) -> float:
    """``legal_moves`` + ``play`` (a claim whenever one is legal, else a random move)."""
    def loop() -> int:
        rng = random.Random(seed)
        done = 0
        while done < steps:
            state = GameState.new(players, rng.randrange(2**31), options)
            while not state.is_over and done < steps:
                moves = state.legal_moves()
                claims = [m for m in moves if isinstance(m, Claim)]
                state.play(rng.choice(claims or moves))
                done += 1
        return done
    return _cpu(loop)


def engine_mask_observation(players: int, steps: int, seed: int, options: dict[str, str]) -> float:
    """The raw engine plus the deciding seat's mask (from the legal moves) and observation at every step (an
    :class:`~hansa.ai.observation.Observer`, as the environments use)."""
    def loop() -> int:
        rng = random.Random(seed)
        see = Observer().observe if Observer is not None else observe
        done = 0
        while done < steps:
            state = GameState.new(players, rng.randrange(2**31), options)
            actions = ActionIndex.for_state(state)
            while not state.is_over and done < steps:
                moves = state.legal_moves()
                actions.mask(state, moves=moves)
                see(state, state.decider)
                claims = [m for m in moves if isinstance(m, Claim)]
                state.play(rng.choice(claims or moves))
                done += 1
        return done
    return _cpu(loop)


def pettingzoo_env(players: int, steps: int, seed: int, options: dict[str, str]) -> float:
    """PettingZoo's AEC loop: ``agent_iter``, ``last()`` (observation and mask every step), a random legal action
    (``np.flatnonzero`` of the mask), ``step``."""
    from hansa.ai.pettingzoo_env import env

    e = env(players=players, options=options, max_moves=100_000)

    def loop() -> int:
        rng = random.Random(seed)  # as the OpenSpiel loops draw: Python's generator, not a numpy call per step
        e.reset(seed=seed)
        done = 0
        while done < steps:
            for _agent in e.agent_iter():
                obs, _, termination, truncation, _ = e.last()
                if termination or truncation:
                    e.step(None)
                    continue
                legal = np.flatnonzero(obs["action_mask"])
                e.step(int(legal[rng.randrange(len(legal))]))
                done += 1
                if done >= steps:
                    break
            else:
                e.reset()
        return done
    return _cpu(loop)


def gymnasium_env(players: int, steps: int, seed: int, options: dict[str, str]) -> float:
    """The Gymnasium env's learner steps (a random legal action); the other seats are the uniform random bot."""
    from hansa.ai.gym_env import HansaEnv

    env = HansaEnv(players=players, opponents="random", options=options, max_moves=100_000)

    def loop() -> int:
        rng = random.Random(seed)
        obs, _ = env.reset(seed=seed)
        done = 0
        while done < steps:
            legal = np.flatnonzero(obs["action_mask"])
            obs, _, terminated, truncated, _ = env.step(int(legal[rng.randrange(len(legal))]))
            done += 1
            if terminated or truncated:
                obs, _ = env.reset()
        return done
    return _cpu(loop)


def _openspiel_loop(game: Any, steps: int, seed: int, tensor: str) -> float:
    """``legal_actions`` + ``apply_action`` (random), and per ``tensor``: nothing, ``state.observation_tensor()``,
    ``state.information_state_tensor()``, or the observer of ``make_observation(game)`` filled (``set_from``)."""
    from open_spiel.python.observation import make_observation

    observer = make_observation(game) if tensor == "observer" else None

    def loop() -> int:
        rng = random.Random(seed)
        done = 0
        while done < steps:
            state = game.new_initial_state()
            while not state.is_terminal() and done < steps:
                legal = state.legal_actions()
                if state.is_chance_node():
                    state.apply_action(legal[rng.randrange(len(legal))])
                    continue
                player = state.current_player()
                if tensor == "observation":
                    state.observation_tensor(player)
                elif tensor == "information":
                    state.information_state_tensor(player)
                elif observer is not None:
                    observer.set_from(state, player)
                state.apply_action(legal[rng.randrange(len(legal))])
                done += 1
        return done
    return _cpu(loop)


def _hansa_game(players: int, options: dict[str, str]) -> Any:
    import pyspiel

    import hansa.ai.openspiel_game  # noqa: F401 - registers python_hansa

    return pyspiel.load_game("python_hansa", {"players": players, "max_moves": 100_000, **options})


def openspiel_measure(tensor: str, chess: bool = False) -> Callable[[int, int, int, dict[str, str]], float]:
    def measure(players: int, steps: int, seed: int, options: dict[str, str]) -> float:
        import pyspiel

        game = pyspiel.load_game("chess") if chess else _hansa_game(players, options)
        return _openspiel_loop(game, steps, seed, tensor)
    return measure


#: The table's rows: a name, and the function measuring it (players, steps, seed, game options) -> steps/s.  Add a
#: row by adding an entry (its extra may be missing: an ImportError leaves the row out).
MEASURES: dict[str, Callable[[int, int, int, dict[str, str]], float]] = {
    "raw engine (legal_moves + play)": raw_engine,
    "engine + mask + observation": engine_mask_observation,
    "PettingZoo env (last + step)": pettingzoo_env,
    "Gymnasium env (learner steps)": gymnasium_env,
    "OpenSpiel python_hansa, no tensor": openspiel_measure("none"),
    "OpenSpiel python_hansa + observation_tensor()": openspiel_measure("observation"),
    "OpenSpiel python_hansa + information_state_tensor()": openspiel_measure("information"),
    "OpenSpiel python_hansa + observer.set_from": openspiel_measure("observer"),
    "OpenSpiel C++ chess + observation_tensor()": openspiel_measure("observation", chess=True),
}
#: The row every other is compared with.
YARDSTICK = "OpenSpiel C++ chess + observation_tensor()"


def table(players: int, steps: int, seed: int, map_name: str, rounds: int) -> dict[str, list[float]]:
    """``rounds`` rounds of every measure, interleaved; steps/s of each round by row."""
    options = game_options(map_name)
    results: dict[str, list[float]] = {}
    for _ in range(rounds):
        for name, measure in MEASURES.items():
            try:
                results.setdefault(name, []).append(measure(players, steps, seed, options))
            except ImportError:
                results.pop(name, None)
    return results


def print_table(results: dict[str, list[float]]) -> None:
    yard = statistics.median(results[YARDSTICK]) if YARDSTICK in results else None
    width = max(len(name) for name in results)
    print(f"{'':{width}}  {'steps/s (median)':>16}  {'min-max':>17}  {'vs chess':>8}")
    for name, values in results.items():
        med = statistics.median(values)
        ratio = f"{med / yard:8.2f}" if yard else ""
        print(f"{name:{width}}  {med:16,.0f}  {min(values):8,.0f}-{max(values):<8,.0f}  {ratio}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=5_000, help="steps per measurement")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (the table shows their median)")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--map", default="base", choices=("base", "east", "britannia"),
                        help="the map (the expansion maps take 3 to 5 players)")
    parser.add_argument("--split", action="store_true", help="the earlier engine / mask / observation split instead")
    parser.add_argument("--json", default=None)
    parser.add_argument("--vector", type=int, default=0, metavar="N",
                        help="measure only the vector env with N games against N HansaEnv in a loop (CPU time)")
    parser.add_argument("--batch-steps", type=int, default=40, help="--vector: batch steps per round")
    parser.add_argument("--opponents", default="random", help="--vector: the bots of the other seats")
    args = parser.parse_args()
    if args.vector:
        vec = vector_throughput(args.vector, args.batch_steps, args.rounds, args.seed, args.players, args.map,
                                args.opponents)
        print(f"engine: {'compiled (mypyc)' if compiled() else 'pure Python'}")
        print_vector(vec)
        if args.json:
            with open(args.json, "w", encoding="utf-8") as fh:
                json.dump(vec, fh, indent=1)
        return
    side = GameState.new(args.players, 0, game_options(args.map)).board.side
    print(f"engine: {'compiled (mypyc)' if compiled() else 'pure Python'}; {args.players} players; "
          f"map {args.map} (board side {side}); CPU time")
    if not args.split:
        results = table(args.players, args.steps, args.seed, args.map, args.rounds)
        print(f"{args.steps:,} steps per measurement, median of {args.rounds} interleaved rounds")
        print_table(results)
        if args.json:
            with open(args.json, "w", encoding="utf-8") as fh:
                json.dump({"players": args.players, "map": args.map, "side": side, "steps": args.steps,
                           "python": platform.python_version(), "compiled": compiled(), "rounds": results}, fh, indent=1)
        return
    split_main(args, side)


def split_main(args: argparse.Namespace, side: str) -> None:
    core = core_loop(args.players, args.steps, args.seed, args.map)
    cpu = cpu_differential(args.players, args.steps, args.seed, args.map)
    pz = pettingzoo_loop(args.players, max(1000, args.steps // 4), args.seed, args.map)
    result = {"players": args.players, "map": args.map, "side": side, "compiled": compiled(),
              "python": platform.python_version(), "core": core, "cpu": cpu, "pettingzoo": pz}
    print(f"mask + observation + engine: {core['steps_per_s']:,.0f} steps/s "
          f"(per step: engine {core['engine_us']:.1f} us, mask {core['mask_us']:.1f} us, observation {core['observation_us']:.1f} us; "
          f"shares {core['engine_share']:.0%} / {core['mask_share']:.0%} / {core['observation_share']:.0%})")
    print(f"CPU time, whole runs differenced: {cpu['steps_per_s']:,.0f} steps/s (per step: engine {cpu['engine_us']:.1f} us, "
          f"mask {cpu['mask_us']:.1f} us, observation {cpu['observation_us']:.1f} us)")
    if pz:
        print(f"PettingZoo AEC env (last + step): {pz['steps_per_s']:,.0f} steps/s")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(result, fh, indent=1)


if __name__ == "__main__":
    main()
