"""The MaskablePPO recipe (examples/train_ppo.py, the ``learn`` extra): the exported numpy policy gives the torch
actor's logits and actions exactly, and a tiny training run in a real subprocess writes a policy that ``policy:FILE``
plays."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO  # noqa: E402

from hansa.ai.policy import PolicyBot, load_policy, save_policy  # noqa: E402
from hansa.bots import make_bot  # noqa: E402
from hansa.core.state import GameState  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "train_ppo.py"


def example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("train_ppo_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def one_thread():  # noqa: ANN201
    """One torch thread, as the recipe uses (several threads on a busy machine make small products much slower)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_export_gives_the_torch_actors_logits_and_actions(tmp_path: Path, one_thread: None) -> None:
    ex = example()
    torch.manual_seed(0)
    env = ex.make_env(["purpose", "purpose"], 3000)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, seed=1, device="cpu",
                        policy_kwargs=dict(activation_fn=torch.nn.ReLU, net_arch=dict(pi=[48, 24], vf=[16])))
    model.learn(64)  # one update, so the weights are not the initial ones
    net = ex.export_policy(model.policy, env.actions.fingerprint, {"test": True})
    assert [w.shape for w in net.weights] == [(env.obs_spec.size, 48), (48, 24), (24, env.actions.size)]
    path = tmp_path / "p.npz"
    save_policy(path, net)
    loaded = load_policy(path)
    bot = PolicyBot(loaded)
    obs, _ = env.reset(seed=3)
    observations, masks = [], []
    rng = np.random.default_rng(3)
    for _ in range(40):
        observations.append(obs)
        masks.append(env.action_masks())
        obs, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        assert not (term or trunc)
    x = np.stack(observations)
    with torch.no_grad():
        t = torch.as_tensor(x)
        latent = model.policy.mlp_extractor.forward_actor(model.policy.extract_features(t))
        torch_logits = model.policy.action_net(latent).numpy()
    assert np.allclose(loaded.forward(x), torch_logits, atol=1e-4, rtol=1e-4)
    for i, (o, m) in enumerate(zip(observations, masks)):
        action, _ = model.predict(o, action_masks=m, deterministic=True)
        assert int(action) == bot.pick(o, m)  # the same greedy action as the torch policy
        legal = np.flatnonzero(m)
        assert np.allclose(loaded.legal_logits(o, legal), torch_logits[i][legal], atol=1e-4, rtol=1e-4)
    with pytest.raises(ValueError, match="alternate Linear and ReLU"):
        tanh = MaskablePPO("MlpPolicy", env, n_steps=64, device="cpu",
                           policy_kwargs=dict(activation_fn=torch.nn.Tanh, net_arch=[8]))
        ex.export_policy(tanh.policy, env.actions.fingerprint)


def test_tiny_training_run_exports_a_playable_policy(tmp_path: Path) -> None:
    out = tmp_path / "tiny.npz"
    src = str(Path(__file__).resolve().parents[1] / "src")
    environ = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    run = subprocess.run(
        [sys.executable, str(EXAMPLE), "--steps", "512", "--envs", "2", "--n-steps", "128", "--batch", "64",
         "--epochs", "1", "--hidden", "32", "--out", str(out), "--half"],
        capture_output=True, text=True, timeout=300, env=environ, cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert out.is_file() and "wrote" in run.stdout
    net = load_policy(out)
    assert net.meta["trained_by"] == "examples/train_ppo.py" and net.meta["steps"] == 512
    assert net.meta["versions"]["torch"] == torch.__version__
    state = GameState.new(3, 21)
    bots = [make_bot(f"policy:{out}", 1), make_bot("purpose", 2), make_bot("purpose", 3)]
    decisions = 0
    for _ in range(1500):  # a barely trained policy may not finish a game soon: 1,500 legal moves are enough here
        if state.is_over:
            break
        decisions += state.decider == 0
        state.play(bots[state.decider].choose(state))  # play() raises on an illegal move
    assert decisions > 100
