"""Train a small policy network for Hansa Teutonica on the CPU with numpy alone, then play it in the arena.

    python examples/train_policy.py --out /tmp/policy.npz            # about 17 minutes on a 2-core machine
    hansa arena --players 3 --seats policy:/tmp/policy.npz,purpose,purpose --games 200 --seed 1

What it learns: to imitate hansa's heuristic bot (one-action lookahead on a hand-written evaluation) in 3-player
games.  The data come from the PettingZoo environment (``hansa.ai.pettingzoo_env``): at every decision of a
learner seat the observation and the legal-action mask are recorded with the heuristic bot's choice as the label.

1. **Expert games**: the heuristic bot plays against ``purpose``, ``random`` and ``heuristic`` opponents; each of
   its decisions is a sample.
2. **Training**: a ReLU multilayer perceptron (``hansa.ai.policy.PolicyNet``) from the observation to one logit
   per action index, trained by minimising the cross-entropy of the softmax over the *legal* actions (the mask),
   with hand-written backpropagation and Adam.
3. **DAgger rounds**: the policy itself plays (a share of the moves still by the heuristic bot), the heuristic
   labels the positions the policy reaches, the samples join the data set and training goes on.  This teaches
   the policy to recover from its own mistakes, which the expert's games never show.

The loss printed per epoch is the mean training cross-entropy; ``held-out`` is the share of the heuristic's
choices the policy matches on positions of expert games it was not trained on.  Nothing here is needed to *play*
a policy: ``hansa.ai.policy`` holds the network's forward pass and the model file format.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

# One BLAS thread: these products are small, and on a shared 2-core machine a second thread waiting for a busy core
# makes every matrix product several times slower.  (Set before numpy loads; an explicit setting wins.)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from hansa.ai.actions import ActionIndex  # noqa: E402
from hansa.ai.pettingzoo_env import raw_env  # noqa: E402
from hansa.ai.policy import PolicyNet, masked_log_softmax, save_policy  # noqa: E402
from hansa.bots import HeuristicBot, make_bot  # noqa: E402
from hansa.bots.base import Bot  # noqa: E402
from hansa.core.moves import Shift  # noqa: E402

PLAYERS = 3
#: Opponents of the learner seat in the expert and DAgger games (the learner is one seat, the others these bots).
OPPONENTS = (("purpose", "purpose"), ("random", "random"), ("heuristic", "heuristic"), ("purpose", "heuristic"))
LEARNER = "learner"


# ------------------------------------------------------------------------------------------------ the data set


@dataclass
class Dataset:
    """Samples in compact form: each observation as its non-zero entries (a few hundred of some 3,000; positions
    uint16, values float16), each legal mask packed to bits, and the expert's action."""

    obs_size: int
    actions: int
    positions: list[np.ndarray] = field(default_factory=list)
    values: list[np.ndarray] = field(default_factory=list)
    masks: list[np.ndarray] = field(default_factory=list)
    labels: list[int] = field(default_factory=list)

    def add(self, observation: np.ndarray, mask: np.ndarray, label: int) -> None:
        assert mask[label], "the expert's action must be legal"
        nz = np.flatnonzero(observation)
        self.positions.append(nz.astype(np.uint16))
        self.values.append(observation[nz].astype(np.float16))
        self.masks.append(np.packbits(mask.astype(bool)))
        self.labels.append(label)

    def __len__(self) -> int:
        return len(self.labels)

    def extend(self, other: Dataset) -> None:
        self.positions += other.positions
        self.values += other.values
        self.masks += other.masks
        self.labels += other.labels

    def arrays(self) -> Arrays:
        return Arrays(self.obs_size, self.actions, np.concatenate(self.positions), np.concatenate(self.values),
                      np.cumsum([0] + [len(p) for p in self.positions]), np.stack(self.masks),
                      np.asarray(self.labels, dtype=np.int64))


@dataclass
class Arrays:
    """A :class:`Dataset` as arrays (observations in compressed-row form), ready for minibatches."""

    obs_size: int
    actions: int
    positions: np.ndarray
    values: np.ndarray
    starts: np.ndarray  # row i's entries are positions[starts[i]:starts[i + 1]]
    masks: np.ndarray
    labels: np.ndarray

    def __len__(self) -> int:
        return len(self.labels)

    def batch(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Dense float32 observations, bool masks and labels of ``rows``."""
        lengths = self.starts[rows + 1] - self.starts[rows]
        flat = np.repeat(self.starts[rows] - np.cumsum(lengths) + lengths, lengths) + np.arange(lengths.sum())
        x = np.zeros((len(rows), self.obs_size), dtype=np.float32)
        x[np.repeat(np.arange(len(rows)), lengths), self.positions[flat]] = self.values[flat]
        mask = np.unpackbits(self.masks[rows], axis=1, count=self.actions).astype(bool)
        return x, mask, self.labels[rows]


# ------------------------------------------------------------------------------------------------ playing games


def policy_pick(net: PolicyNet, observation: np.ndarray, mask: np.ndarray) -> int:
    """The policy's greedy choice (as :class:`hansa.ai.policy.PolicyBot` plays)."""
    legal = np.flatnonzero(mask)
    return int(legal[int(np.argmax(net.legal_logits(observation, legal)))])


def play_and_label(
    seed: int,
    opponents: Sequence[str],
    net: PolicyNet | None,
    expert_share: float,
    rng: np.random.Generator,
    data: Dataset,
    max_moves: int = 3000,
) -> dict[str, Any]:
    """One 3-player game through the PettingZoo environment: seat ``rng``-chosen plays as the learner (the policy
    ``net``, or the heuristic bot at each decision with probability ``expert_share``; always the heuristic without
    a net); every learner decision with more than one legal action is labelled with the heuristic bot's choice.
    Opponent ``heuristic`` seats are labelled too (they *are* the expert)."""
    e = raw_env(players=PLAYERS, max_moves=max_moves)
    e.reset(seed=seed)
    learner = int(rng.integers(PLAYERS))
    specs = list(opponents)
    specs.insert(learner, LEARNER)
    experts = [HeuristicBot(seed * 10 + s) for s in range(PLAYERS)]
    bots: list[Bot | None] = [None if spec == LEARNER else make_bot(spec, seed * 10 + s) for s, spec in enumerate(specs)]
    actions = e.actions
    queued: int | None = None  # the shift-to of a shift chosen by the expert or a bot
    queued_label: int | None = None
    samples = 0
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        seat = e.possible_agents.index(agent)
        state = e.state_
        mask = obs["action_mask"].astype(bool)
        labelled = specs[seat] in (LEARNER, "heuristic")
        if e.pending is not None:  # second half of a shift
            if queued is not None:
                action, label = queued, queued_label
            else:  # the policy chose the piece: ask the expert where it would move that piece
                house = actions.pending_house(e.pending)
                shifts = [m for m in state.legal_moves() if isinstance(m, Shift) and m.house == house]
                label = actions.indices(experts[seat].choose(state, shifts))[1]
                assert net is not None
                action = policy_pick(net, obs["observation"], mask)
            queued = queued_label = None
        else:
            bot = bots[seat]
            if bot is not None and not labelled:
                move = bot.choose(state)
                idx = actions.indices(move)
                action, label = idx[0], None
                queued = idx[1] if len(idx) == 2 else None
                queued_label = None
            else:
                idx = actions.indices(experts[seat].choose(state))
                label = idx[0]
                if specs[seat] == LEARNER and net is not None and rng.random() >= expert_share:
                    action = policy_pick(net, obs["observation"], mask)
                    queued = queued_label = None
                else:
                    action = idx[0]
                    queued = queued_label = idx[1] if len(idx) == 2 else None
        if labelled and label is not None and mask.sum() > 1:
            data.add(obs["observation"], mask, label)
            samples += 1
        e.step(action)
    state = e.state_
    return {"learner": learner, "over": state.is_over, "moves": e.moves, "samples": samples,
            "scores": list(state.score)}


def collect(
    games: int,
    seed: int,
    net: PolicyNet | None,
    expert_share: float,
    data: Dataset,
    deadline: float = math.inf,
    log: Callable[[str], None] = print,
) -> int:
    """Play up to ``games`` games (opponents cycling through :data:`OPPONENTS`) until ``deadline``; returns the
    number played."""
    rng = np.random.default_rng(seed)
    played = 0
    for g in range(games):
        if played and time.perf_counter() > deadline:
            log(f"  time is up after {played} games")
            break
        play_and_label(seed * 100_003 + g, OPPONENTS[g % len(OPPONENTS)], net, expert_share, rng, data)
        played += 1
        if played % 100 == 0:
            log(f"  {played} games, {len(data)} samples")
    return played


# ------------------------------------------------------------------------------------------------ the network


def new_net(obs_size: int, actions: ActionIndex, hidden: Sequence[int], seed: int) -> PolicyNet:
    """He-initialised ReLU layers; the output layer starts small, so the first policy is near uniform."""
    rng = np.random.default_rng(seed)
    sizes = [obs_size, *hidden, actions.size]
    weights, biases = [], []
    for k, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        scale = math.sqrt(2.0 / a) if k < len(sizes) - 2 else 0.01
        weights.append((rng.standard_normal((a, b)) * scale).astype(np.float32))
        biases.append(np.zeros(b, dtype=np.float32))
    return PolicyNet(weights, biases, actions.fingerprint, {"hidden": list(hidden)})


class Adam:
    """Adam over the net's weight and bias arrays, updated in place."""

    def __init__(self, net: PolicyNet, lr: float = 1e-3, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8,
                 weight_decay: float = 0.0) -> None:
        self.params = [p for pair in zip(net.weights, net.biases) for p in pair]
        self.m = [np.zeros_like(p) for p in self.params]
        self.v = [np.zeros_like(p) for p in self.params]
        self.lr, self.b1, self.b2, self.eps, self.wd = lr, b1, b2, eps, weight_decay
        self.t = 0

    def step(self, grads: Sequence[np.ndarray]) -> None:
        self.t += 1
        c1 = 1 - self.b1**self.t
        c2 = 1 - self.b2**self.t
        for k, (p, g, m, v) in enumerate(zip(self.params, grads, self.m, self.v)):
            if self.wd and k % 2 == 0:  # decay the weights, not the biases
                g = g + self.wd * p
            m *= self.b1
            m += (1 - self.b1) * g
            v *= self.b2
            v += (1 - self.b2) * (g * g)
            p -= (self.lr / c1) * m / (np.sqrt(v / c2) + self.eps)


def loss_and_grads(net: PolicyNet, x: np.ndarray, mask: np.ndarray, y: np.ndarray) -> tuple[float, float, list[np.ndarray]]:
    """Mean cross-entropy of the masked softmax against the labels ``y``, the accuracy, and the gradients
    (w0, b0, w1, b1, ...) by backpropagation."""
    acts = net.layers(x)
    last = len(net.weights) - 1
    logp = masked_log_softmax(acts[-1], mask)
    n = len(y)
    rows = np.arange(n)
    loss = float(-logp[rows, y].mean())
    accuracy = float((np.argmax(logp, axis=1) == y).mean())
    d = np.exp(logp)  # softmax over the legal actions, 0 elsewhere
    d[rows, y] -= 1.0
    d /= n
    grads: list[np.ndarray] = [np.empty(0)] * (2 * len(net.weights))
    for k in range(last, -1, -1):
        grads[2 * k] = acts[k].T @ d
        grads[2 * k + 1] = d.sum(axis=0)
        if k:
            d = d @ net.weights[k].T
            d *= acts[k] > 0
    return loss, accuracy, grads


def evaluate(net: PolicyNet, data: Arrays, batch: int = 1024) -> tuple[float, float]:
    """Mean loss and accuracy (the legal action with the highest logit is the label) on a data set."""
    total = correct = 0.0
    for i in range(0, len(data), batch):
        x, mask, y = data.batch(np.arange(i, min(i + batch, len(data))))
        logp = masked_log_softmax(net.forward(x), mask)
        total += float(-logp[np.arange(len(y)), y].sum())
        correct += float((np.argmax(logp, axis=1) == y).sum())
    return total / max(len(data), 1), correct / max(len(data), 1)


def train(
    net: PolicyNet,
    opt: Adam,
    data: Dataset,
    epochs: int,
    rng: np.random.Generator,
    batch: int = 256,
    deadline: float = math.inf,
    held_out: Arrays | None = None,
    log: Callable[[str], None] = print,
) -> list[float]:
    """``epochs`` passes over ``data`` in shuffled minibatches (stopping at ``deadline``); returns the mean
    training loss of every epoch."""
    arrays = data.arrays()
    n = len(arrays)
    losses = []
    for epoch in range(epochs):
        if time.perf_counter() > deadline:
            log("  time is up")
            break
        order = rng.permutation(n)
        total = correct = 0.0
        start = time.perf_counter()
        for i in range(0, n, batch):
            pick = order[i:i + batch]
            loss, acc, grads = loss_and_grads(net, *arrays.batch(pick))
            opt.step(grads)
            total += loss * len(pick)
            correct += acc * len(pick)
        losses.append(total / n)
        line = f"  epoch {epoch + 1:2d}: loss {losses[-1]:.4f}, train accuracy {correct / n:.3f}"
        if held_out is not None and len(held_out):
            line += ", held-out loss {:.4f}, accuracy {:.3f}".format(*evaluate(net, held_out))
        log(line + f" ({n} samples, {time.perf_counter() - start:.0f} s)")
    return losses


# ------------------------------------------------------------------------------------------------ main


def peak_memory() -> str:
    try:
        import resource
    except ImportError:  # not on Windows
        return ""
    return f", peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="policy.npz", help="model file to write (default policy.npz)")
    parser.add_argument("--minutes", type=float, default=25.0,
                        help="time budget of the whole run; every phase stops at its share of it (default 25)")
    parser.add_argument("--games", type=int, default=800, help="expert games before the first training (default 800)")
    parser.add_argument("--dagger", type=int, default=3, help="DAgger rounds (default 3)")
    parser.add_argument("--dagger-games", type=int, default=200, help="games per DAgger round (default 200)")
    parser.add_argument("--expert-share", type=float, default=0.25,
                        help="share of the learner's moves the heuristic still plays in DAgger games (default 0.25)")
    parser.add_argument("--epochs", type=int, default=6, help="epochs after the expert games (default 6)")
    parser.add_argument("--dagger-epochs", type=int, default=3, help="epochs after each DAgger round (default 3)")
    parser.add_argument("--hidden", default="512,256", help="hidden layer sizes (default 512,256)")
    parser.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate, x0.7 per DAgger round (default 0.001)")
    parser.add_argument("--batch", type=int, default=256, help="minibatch size (default 256)")
    parser.add_argument("--held-out", type=int, default=20, help="expert games kept for the held-out accuracy (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the games and the network (default 0)")
    args = parser.parse_args(argv)

    t0 = time.perf_counter()

    def at(share: float) -> float:
        """The moment ``share`` of the time budget has passed."""
        return t0 + 60 * args.minutes * share

    def log(text: str) -> None:
        print(f"[{time.perf_counter() - t0:5.0f} s] {text}", flush=True)

    probe = raw_env(players=PLAYERS)
    actions, obs_size = probe.actions, probe.obs_spec.size
    hidden = [int(h) for h in args.hidden.split(",") if h]
    net = new_net(obs_size, actions, hidden, args.seed)
    opt = Adam(net, lr=args.lr)
    rng = np.random.default_rng(args.seed)
    log(f"network {obs_size} -> {' -> '.join(map(str, hidden))} -> {actions.size}: {net.parameters():,} parameters")

    # The budget: expert games until 30 %, their training until 45 %, then the DAgger rounds share what is left up to
    # 95 % (each collects in its first 45 %); the rest is slack for saving.
    held = Dataset(obs_size, actions.size)
    collect(args.held_out, args.seed + 7_000_000, None, 1.0, held, deadline=at(0.03), log=log)
    held_arrays = held.arrays()
    data = Dataset(obs_size, actions.size)
    log(f"expert games: up to {args.games}, the heuristic bot against "
        f"{', '.join(' + '.join(o) for o in OPPONENTS)} in turn")
    played = collect(args.games, args.seed, None, 1.0, data, deadline=at(0.30), log=log)
    log(f"  {played} games, {len(data)} samples (held out: {len(held)} samples of {args.held_out} other games)")
    losses = train(net, opt, data, args.epochs, rng, args.batch, at(0.45), held_arrays, log)
    for r in range(args.dagger):
        begin, end = 0.45 + 0.50 * r / args.dagger, 0.45 + 0.50 * (r + 1) / args.dagger
        fresh = Dataset(obs_size, actions.size)
        played = collect(args.dagger_games, args.seed + 1000 * (r + 1), net, args.expert_share, fresh,
                         deadline=at(begin + 0.45 * (end - begin)), log=log)
        data.extend(fresh)
        opt.lr *= 0.7
        log(f"DAgger round {r + 1}: {played} games with the policy playing, {len(fresh)} new samples, "
            f"{len(data)} in all; learning rate {opt.lr:.2g}")
        losses += train(net, opt, data, args.dagger_epochs, rng, args.batch, at(end), held_arrays, log)
    loss, acc = evaluate(net, held_arrays)
    minutes = (time.perf_counter() - t0) / 60
    net.meta.update({
        "trained_by": "examples/train_policy.py", "imitates": "heuristic", "players": PLAYERS, "seed": args.seed,
        "samples": len(data), "epoch_losses": [round(x, 4) for x in losses], "held_out_loss": round(loss, 4),
        "held_out_accuracy": round(acc, 4), "minutes": round(minutes, 2), "args": vars(args),
    })
    save_policy(args.out, net)
    log(f"held-out loss {loss:.4f}, accuracy {acc:.3f}; {minutes:.1f} minutes{peak_memory()}; wrote {args.out}")
    print("loss per epoch: " + " ".join(f"{x:.3f}" for x in losses))
    print("\nPlay it in the arena:")
    print(f"  hansa arena --players 3 --seats policy:{args.out},purpose,purpose --games 200 --seed 1")
    print(f"  hansa arena --players 3 --seats policy:{args.out},random,random --games 200 --seed 1")
    return 0


if __name__ == "__main__":
    sys.exit(main())
