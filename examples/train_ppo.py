"""Train a Hansa Teutonica policy with sb3-contrib's MaskablePPO on the Gymnasium environment and export it as a
hansa numpy policy (``policy:FILE`` in ``hansa arena``).  Needs the ``learn`` extra: ``pip install -e '.[learn]'``.

    python examples/train_ppo.py --minutes 25 --out ppo.npz
    hansa arena --players 3 --seats policy:ppo.npz,purpose,purpose --games 100 --seed 1

The learner sits in a random seat of a 3-player base game against two ``purpose`` bots (``--opponents``); it sees
the flat observation (``observation="flat"``), MaskablePPO reads the legal actions from ``env.action_masks()``, and
the reward is the final margin with potential-based shaping on the projected margin (``reward="margin"``,
``shaping="margin"``: every step pays the change of the seat's projected margin / 10, and the episode's return is
the final margin / 10 minus the margin at the learner's first decision, see docs/ai.md "Learning").  The actor is a
ReLU MLP, so :func:`export_policy` copies it exactly into hansa's :class:`~hansa.ai.policy.PolicyNet` (ReLU layers,
then the logits); the critic is not exported.  Training runs on one CPU thread (``torch.set_num_threads(1)``)
until ``--steps`` environment steps or ``--minutes`` of CPU time, whichever comes first.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib import __version__ as sb3_contrib_version
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3 import __version__ as sb3_version
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv

import hansa
from hansa.ai.gym_env import HansaEnv
from hansa.ai.policy import PolicyNet, save_policy

PLAYERS = 3


def make_env(opponents: Sequence[str], max_moves: int) -> HansaEnv:
    """The training environment: a random seat against ``opponents``, flat observation, shaped margin reward."""
    return HansaEnv(players=len(opponents) + 1, seat=None, opponents=list(opponents), observation="flat", reward="margin",
                    shaping="margin", max_moves=max_moves)


def export_policy(policy: MaskableActorCriticPolicy, fingerprint: str, meta: dict[str, Any] | None = None) -> PolicyNet:
    """The actor of a MaskablePPO MLP policy as a numpy :class:`PolicyNet` (exact: the same logits).

    The actor is ``features_extractor`` (a flatten, the identity on the 1-D observation) -> ``mlp_extractor.policy_net``
    (Linear and ReLU layers) -> ``action_net`` (Linear: the logits); anything else (another activation, another
    extractor, normalisation) is refused with a ``ValueError``."""
    if not isinstance(policy.features_extractor, torch.nn.Module) or not isinstance(
            getattr(policy.features_extractor, "flatten", None), torch.nn.Flatten):
        raise ValueError("only the flatten features extractor (MlpPolicy on a Box observation) can be exported")
    if getattr(policy, "normalize_images", False) and len(policy.observation_space.shape or ()) != 1:
        raise ValueError("the observation must be a flat vector")
    weights, biases = [], []
    linear_next = True
    for layer in policy.mlp_extractor.policy_net:
        if isinstance(layer, torch.nn.Linear) and linear_next:
            weights.append(layer.weight.detach().cpu().numpy().T.astype(np.float32))
            biases.append(layer.bias.detach().cpu().numpy().astype(np.float32))
            linear_next = False
        elif isinstance(layer, torch.nn.ReLU) and not linear_next:
            linear_next = True
        else:
            raise ValueError(f"the actor must alternate Linear and ReLU layers; found {layer!r}")
    if weights and not linear_next:
        raise ValueError("the actor's last hidden layer has no ReLU")
    head = policy.action_net
    if not isinstance(head, torch.nn.Linear):
        raise ValueError(f"the action head must be Linear, not {head!r}")
    weights.append(head.weight.detach().cpu().numpy().T.astype(np.float32))
    biases.append(head.bias.detach().cpu().numpy().astype(np.float32))
    return PolicyNet(weights, biases, fingerprint, dict(meta or {}))


class Progress(BaseCallback):
    """Logs episodes (count, mean return = final margin / 10 with shaping, share of positive returns) every
    rollout, and stops at the CPU-time budget."""

    def __init__(self, cpu_budget: float, log: Any, checkpoint: str | None = None, fingerprint: str = "",
                 every: int = 20) -> None:
        super().__init__()
        self.cpu_budget, self.log = cpu_budget, log
        self.checkpoint, self.fingerprint, self.every = checkpoint, fingerprint, every
        self.rollouts = 0
        self.returns: list[float] = []
        self.cpu0 = time.process_time()

    def _on_step(self) -> bool:
        for info in self.locals.get("infos", []):
            if "episode" in info:
                self.returns.append(float(info["episode"]["r"]))
        return time.process_time() - self.cpu0 < self.cpu_budget

    def _on_rollout_end(self) -> None:
        recent = self.returns[-100:]
        if recent:
            self.log(f"steps {self.num_timesteps:7d}  episodes {len(self.returns):5d}  last {len(recent)}: mean return "
                     f"{np.mean(recent):+.2f}, positive {np.mean(np.array(recent) > 0):.2f}")
        self.rollouts += 1
        if self.checkpoint and self.rollouts % self.every == 0:
            meta = {"trained_by": "examples/train_ppo.py", "checkpoint": True, "steps": int(self.num_timesteps)}
            save_policy(self.checkpoint, export_policy(self.model.policy, self.fingerprint, meta))
            self.log(f"checkpoint {self.checkpoint} at {self.num_timesteps} steps")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--out", default="ppo.npz", help="the exported numpy policy (default ppo.npz)")
    parser.add_argument("--steps", type=int, default=2_000_000, help="environment steps at most (default 2,000,000)")
    parser.add_argument("--minutes", type=float, default=25.0, help="CPU minutes at most (default 25)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the games, the network and PPO (default 0)")
    parser.add_argument("--players", type=int, default=PLAYERS, choices=(2, 3, 4, 5),
                        help="players (default 3; the policy then fits that board side: 2-3 or 4-5)")
    parser.add_argument("--opponents", default=None,
                        help="the other seats' bot specs, players - 1 of them (default purpose for each)")
    parser.add_argument("--envs", type=int, default=8, help="environments stepped together (default 8)")
    parser.add_argument("--n-steps", type=int, default=256, help="steps per environment per rollout (default 256)")
    parser.add_argument("--batch", type=int, default=256, help="minibatch size (default 256)")
    parser.add_argument("--epochs", type=int, default=5, help="PPO epochs per rollout (default 5)")
    parser.add_argument("--lr", type=float, default=3e-4, help="Adam learning rate (default 3e-4)")
    parser.add_argument("--gamma", type=float, default=0.99, help="discount (default 0.99)")
    parser.add_argument("--ent-coef", type=float, default=0.01, help="entropy bonus (default 0.01)")
    parser.add_argument("--hidden", default="256,256", help="hidden layers of the actor and the critic (default 256,256)")
    parser.add_argument("--max-moves", type=int, default=3000, help="truncate a game after this many moves (default 3000)")
    parser.add_argument("--half", action="store_true", help="store the weights as float16")
    parser.add_argument("--checkpoint", help="also export the policy to this file every 20 rollouts")
    args = parser.parse_args(argv)
    if args.steps < 1 or args.minutes <= 0 or args.envs < 1 or args.n_steps < 2 or args.batch < 2:
        parser.error("--steps, --minutes, --envs, --n-steps and --batch must be positive (n-steps, batch >= 2)")
    opponents = [s.strip() for s in (args.opponents or ",".join(["purpose"] * (args.players - 1))).split(",")]
    if len(opponents) != args.players - 1:
        parser.error(f"--opponents needs {args.players - 1} bot specs for {args.players} players")
    hidden = [int(h) for h in args.hidden.split(",") if h]

    torch.set_num_threads(1)
    wall0, cpu0 = time.perf_counter(), time.process_time()

    def log(text: str) -> None:
        print(f"[{time.perf_counter() - wall0:6.0f} s wall, {time.process_time() - cpu0:6.0f} s CPU] {text}", flush=True)

    venv = DummyVecEnv([lambda: Monitor(make_env(opponents, args.max_moves)) for _ in range(args.envs)])
    venv.seed(args.seed)
    model = MaskablePPO(
        "MlpPolicy", venv, learning_rate=args.lr, n_steps=args.n_steps, batch_size=args.batch, n_epochs=args.epochs,
        gamma=args.gamma, ent_coef=args.ent_coef, seed=args.seed, device="cpu", verbose=0,
        policy_kwargs=dict(activation_fn=torch.nn.ReLU, net_arch=dict(pi=hidden, vf=hidden)),
    )
    probe = make_env(opponents, args.max_moves)
    log(f"MaskablePPO, actor {probe.obs_spec.size} -> {' -> '.join(map(str, hidden))} -> {probe.actions.size}, "
        f"{args.envs} envs x {args.n_steps} steps per rollout, opponents {', '.join(opponents)}")
    progress = Progress(60 * args.minutes, log, args.checkpoint, probe.actions.fingerprint)
    model.learn(total_timesteps=args.steps, callback=progress)
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    meta = {
        "trained_by": "examples/train_ppo.py", "algorithm": "sb3-contrib MaskablePPO", "players": args.players,
        "opponents": opponents, "seed": args.seed, "steps": int(model.num_timesteps), "episodes": len(progress.returns),
        "wall_seconds": round(wall), "cpu_seconds": round(cpu), "args": vars(args),
        "versions": {"hansa": hansa.__version__, "torch": torch.__version__, "sb3_contrib": sb3_contrib_version,
                     "stable_baselines3": sb3_version, "numpy": np.__version__, "python": platform.python_version()},
    }
    net = export_policy(model.policy, probe.actions.fingerprint, meta)
    save_policy(args.out, net, half=args.half)
    log(f"{model.num_timesteps} steps, {len(progress.returns)} episodes; wrote {args.out}")
    print(json.dumps({k: meta[k] for k in ("steps", "episodes", "wall_seconds", "cpu_seconds", "versions")}))
    seats = ",".join([f"policy:{args.out}"] + ["purpose"] * (args.players - 1))
    print(f"\nPlay it: hansa arena --players {args.players} --seats {seats} --games 100 --seed 1")
    return 0


if __name__ == "__main__":
    sys.exit(main())
