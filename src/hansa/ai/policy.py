"""A learned policy as a hansa bot: a small numpy network over the observation, masked to the legal actions.

The network (:class:`PolicyNet`) is a multilayer perceptron: the seat's flat observation
(:func:`hansa.ai.observation.observe`) goes through ReLU layers to one logit per index of the action space
(:class:`hansa.ai.actions.ActionIndex`); the bot plays the legal action with the highest logit (or samples the softmax
over the legal actions at a temperature).  Move 3's shift is two decisions, as in the environments: the bot picks a
shift-from, then one of its shift-tos with the chosen house marked in the observation.

``examples/train_policy.py`` trains one by imitating the heuristic bot (with DAgger rounds) and
``examples/train_ppo.py`` with sb3-contrib's MaskablePPO; both save it with :func:`save_policy`.  The bot spec
``policy:ARG`` (:func:`hansa.bots.make_bot`, :meth:`PolicyBot.from_spec`) loads it: ``ARG`` is the **name of a
shipped policy** (package data in ``hansa/ai/policies/NAME.npz``, :func:`shipped_policies`) when it is a bare name
(letters, digits, ``-`` and ``_`` only: no ``/``, ``\\`` or ``.``), and a **file path** otherwise
(``policy:ppo.npz``, ``policy:./mypolicy``, ``policy:/tmp/p.npz``).

The model file is a numpy ``.npz`` (no pickles): ``format`` (:data:`FORMAT`), ``fingerprint`` (the action index the
policy was trained on: loading refuses another board side or version), ``observation_size``, ``layers`` (the number
of weight matrices), ``w0``, ``b0``, ``w1``, ``b1``, ... (float32 or float16; layer k maps ``w{k}.shape[0]`` inputs
to ``w{k}.shape[1]`` outputs) and ``meta`` (a JSON object: how it was trained).
"""

from __future__ import annotations

import json
import re
import zipfile
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..bots.base import Bot
from ..core.moves import Move, Shift
from ..core.state import GameState
from .actions import ActionIndex, Mask
from .observation import observe, spec_for_side

__all__ = [
    "FORMAT", "PolicyBot", "PolicyNet", "load_policy", "masked_log_softmax", "policy_path", "save_policy",
    "shipped_policies",
]

#: The model file's format tag; bumped when the file layout or the network's meaning changes.
FORMAT = "hansa-policy/1"

#: A bare policy name (a shipped policy); anything else after ``policy:`` is a file path.
NAME = re.compile(r"[A-Za-z0-9_-]+")

Array = npt.NDArray[np.float32]
FloatArray = npt.NDArray[np.floating[Any]]


@dataclass
class PolicyNet:
    """A ReLU multilayer perceptron: ``weights[k]`` (inputs x outputs) and ``biases[k]``; the last layer gives the
    logits of the action space, one per :class:`ActionIndex` entry."""

    weights: list[Array]
    biases: list[Array]
    fingerprint: str
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def input_size(self) -> int:
        return int(self.weights[0].shape[0])

    @property
    def output_size(self) -> int:
        return int(self.weights[-1].shape[1])

    def forward(self, x: Array) -> Array:
        """Logits for a batch of observations (``batch x input_size`` -> ``batch x output_size``)."""
        return self.layers(x)[-1]

    def layers(self, x: Array) -> list[Array]:
        """The input and every layer's output (ReLU after each but the last; the last is the logits), as
        backpropagation needs them."""
        out = [x]
        last = len(self.weights) - 1
        for k, (w, b) in enumerate(zip(self.weights, self.biases)):
            h = out[-1] @ w + b
            out.append(np.maximum(h, 0.0) if k < last else h)
        return out

    def legal_logits(self, x: Array, legal: npt.NDArray[np.intp]) -> Array:
        """The logits of the actions ``legal`` for one observation ``x``, cheaply: the first layer reads only the
        observation's non-zero entries (a few hundred of some 3,000) and the last layer computes only the legal
        actions' outputs.  Small products like these also stay off BLAS's thread pool, which on a busy machine
        makes a single decision many times slower."""
        nz = np.flatnonzero(x)
        h = x[nz] @ self.weights[0][nz] + self.biases[0]
        last = len(self.weights) - 1
        for k in range(1, last):
            h = np.maximum(h, 0.0) @ self.weights[k] + self.biases[k]
        if last:
            h = np.maximum(h, 0.0)
            out: Array = self.weights[last][:, legal].T @ h + self.biases[last][legal]
            return out
        return h[legal]

    def parameters(self) -> int:
        return sum(w.size + b.size for w, b in zip(self.weights, self.biases))


def masked_log_softmax(logits: FloatArray, mask: npt.NDArray[np.bool_]) -> FloatArray:
    """Log-probabilities of the softmax over the legal actions (``mask``), row by row; illegal entries get -inf.
    Keeps the logits' float type."""
    z = np.where(mask, logits, -np.inf).astype(logits.dtype, copy=False)
    shifted = z - z.max(axis=-1, keepdims=True)
    out: FloatArray = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    return out


def save_policy(path: str | Path, net: PolicyNet, *, half: bool = False) -> None:
    """Write ``net`` as an ``.npz`` model file (``half``: weights as float16, half the size)."""
    side = _side_of(net.fingerprint)
    arrays: dict[str, Any] = {
        "format": np.array(FORMAT),
        "fingerprint": np.array(net.fingerprint),
        "observation_size": np.array(spec_for_side(side).size),
        "layers": np.array(len(net.weights)),
        "meta": np.array(json.dumps(net.meta, sort_keys=True)),
    }
    dtype = np.float16 if half else np.float32
    for k, (w, b) in enumerate(zip(net.weights, net.biases)):
        arrays[f"w{k}"] = w.astype(dtype)
        arrays[f"b{k}"] = b.astype(dtype)
    with open(path, "wb") as fh:
        np.savez_compressed(fh, **arrays)


def load_policy(path: str | Path) -> PolicyNet:
    """Read a model file written by :func:`save_policy`, checking it against this hansa: a clear ``ValueError`` if
    the file is missing, unreadable or not a policy, was trained on another action index (board side or version)
    or observation size, or its layers do not fit together."""
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
    except FileNotFoundError:
        raise ValueError(f"policy file {str(path)!r} not found") from None
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise ValueError(f"policy file {str(path)!r} is not readable as a .npz model ({exc})") from None
    for key in ("format", "fingerprint", "observation_size", "layers"):
        if key not in arrays:
            raise ValueError(f"policy file {str(path)!r} has no {key!r}: not a hansa policy")
    fmt = str(arrays["format"])
    if fmt != FORMAT:
        raise ValueError(f"policy file {str(path)!r} has format {fmt!r}; this hansa reads {FORMAT!r}")
    fingerprint = str(arrays["fingerprint"])
    side = _side_of(fingerprint)
    actions = ActionIndex.for_side(side)
    actions.check(fingerprint)
    obs_size = int(arrays["observation_size"])
    expected = spec_for_side(side).size
    if obs_size != expected:
        raise ValueError(f"policy file {str(path)!r} was trained on observations of {obs_size} values; "
                         f"this hansa's are {expected} on the {side} side")
    weights: list[Array] = []
    biases: list[Array] = []
    for k in range(int(arrays["layers"])):
        if f"w{k}" not in arrays or f"b{k}" not in arrays:
            raise ValueError(f"policy file {str(path)!r} lacks layer {k}")
        weights.append(np.asarray(arrays[f"w{k}"], dtype=np.float32))
        biases.append(np.asarray(arrays[f"b{k}"], dtype=np.float32))
    width = obs_size
    for k, (w, b) in enumerate(zip(weights, biases)):
        if w.ndim != 2 or w.shape[0] != width or b.shape != (w.shape[1],):
            raise ValueError(f"policy file {str(path)!r}: layer {k} has shape {w.shape} / {b.shape}, "
                             f"expected {width} inputs")
        width = int(w.shape[1])
    if not weights or width != actions.size:
        raise ValueError(f"policy file {str(path)!r} gives {width} outputs; the action index has {actions.size}")
    meta = json.loads(str(arrays["meta"])) if "meta" in arrays else {}
    return PolicyNet(weights, biases, fingerprint, meta if isinstance(meta, dict) else {})


def shipped_policies() -> list[str]:
    """The names of the policies shipped with hansa (``policy:NAME``), sorted."""
    folder = resources.files("hansa.ai") / "policies"
    if not folder.is_dir():
        return []
    return sorted(p.name[:-4] for p in folder.iterdir() if p.name.endswith(".npz") and NAME.fullmatch(p.name[:-4]))


def policy_path(arg: str) -> str:
    """The model file that ``policy:arg`` names: a shipped policy for a bare name (``ValueError`` listing the shipped
    ones if there is no such policy), else ``arg`` itself as a path."""
    if not arg:
        raise ValueError("policy: needs a shipped policy name or a model file path")
    if not NAME.fullmatch(arg):
        return arg
    names = shipped_policies()
    if arg not in names:
        raise ValueError(f"no shipped policy {arg!r} (shipped: {', '.join(names) or 'none'}); "
                         f"a file path needs a '.', '/' or '\\' (e.g. policy:./{arg})")
    return str(resources.files("hansa.ai") / "policies" / f"{arg}.npz")


def _side_of(fingerprint: str) -> str:
    parts = fingerprint.split("/")
    if len(parts) != 5 or parts[0] != "hansa-actions" or parts[2] not in ("2-3", "4-5"):
        raise ValueError(f"not an action-index fingerprint: {fingerprint!r}")
    return parts[2]


class PolicyBot(Bot):
    """Plays a :class:`PolicyNet`: the legal action with the highest logit (``temperature`` 0), or a sample of the
    softmax over the legal actions at ``temperature`` drawn from the bot's seeded generator (deterministic for a
    seed)."""

    name = "policy"

    def __init__(self, net: PolicyNet, seed: int | None = None, temperature: float = 0.0) -> None:
        self.net = net
        self.side = _side_of(net.fingerprint)
        self.actions = ActionIndex.for_side(self.side)
        self.actions.check(net.fingerprint)
        self.temperature = temperature
        self.rng = np.random.default_rng(seed)

    @classmethod
    def from_spec(cls, arg: str, seed: int | None = None, temperature: float = 0.0) -> PolicyBot:
        """The bot of ``policy:arg``: a shipped policy by name or a model file by path (:func:`policy_path`)."""
        return cls(load_policy(policy_path(arg)), seed, temperature)

    @classmethod
    def from_file(cls, path: str, seed: int | None = None, temperature: float = 0.0) -> PolicyBot:
        """The bot of a model file (:func:`load_policy`; ``ValueError`` if the file does not fit this hansa)."""
        return cls(load_policy(path), seed, temperature)

    def choose(self, state: GameState, legal: list[Move] | None = None) -> Move:
        moves = legal if legal is not None else state.legal_moves()
        if len(moves) == 1:
            return moves[0]
        if state.board.side != self.side:
            raise ValueError(f"this policy was trained on the {self.side} board side, the game is on {state.board.side}")
        if ActionIndex.for_state(state) is not self.actions:
            raise ValueError(
                f"this policy was trained on {self.actions.config}, the game is on {ActionIndex.for_state(state).config}"
            )
        seat = state.decider
        first = self.pick(observe(state, seat), self.actions.mask(state))
        move = self.actions.move(first)
        if move is None:  # a shift-from (exchange-from): now the second step, with the chosen house marked
            house, exchange = self.actions.pending_house(first), self.actions.pending_exchange(first)
            second = self.pick(observe(state, seat, house, exchange), self.actions.mask(state, pending=first))
            move = self.actions.move(second, pending=first)
        assert move is not None
        return _as_legal(move, moves)

    def pick(self, observation: Array, mask: Mask) -> int:
        """The chosen index among ``mask``'s legal ones for one observation."""
        if observation.shape[0] != self.net.input_size:
            spec = spec_for_side(self.side)
            raise ValueError(f"observation of {observation.shape[0]} values; the policy takes {spec.size}")
        legal = np.flatnonzero(mask)
        logits = self.net.legal_logits(observation, legal)
        if self.temperature <= 0.0:
            return int(legal[int(np.argmax(logits))])
        z = logits.astype(np.float64) / self.temperature
        p = np.exp(z - z.max())
        return int(legal[int(self.rng.choice(len(legal), p=p / p.sum()))])

    def probabilities(self, state: GameState, pending: int | None = None) -> dict[int, float]:
        """The policy's distribution over the legal indices of ``state`` (for inspection and tests)."""
        house, exchange = self.actions.pending_house(pending), self.actions.pending_exchange(pending)
        obs = observe(state, state.decider, house, exchange)
        mask = self.actions.mask(state, pending)
        logp = masked_log_softmax(self.net.forward(obs[None, :]), mask[None, :])[0]
        return {int(i): float(np.exp(logp[i])) for i in np.flatnonzero(mask)}


def _as_legal(move: Move, moves: list[Move]) -> Move:
    """The legal move object equal to ``move`` (the engine's own object where there is one)."""
    if isinstance(move, Shift):
        return move
    for m in moves:
        if m == move:
            return m
    raise ValueError(f"the policy chose {move.text()}, which is not legal here")  # the mask makes this impossible

