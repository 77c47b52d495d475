"""The learning example and the policy bot (``policy:FILE``): a few seconds of training on heuristic games lower the
loss, the backpropagation matches finite differences, the saved model loads through ``make_bot`` and plays only
legal moves (Move 3's two-step shift included), and a model of another action index or observation is refused."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

np = pytest.importorskip("numpy", reason="the rl extra is not installed")
pytest.importorskip("pettingzoo", reason="the rl extra is not installed")

from hansa.ai.actions import ActionIndex  # noqa: E402
from hansa.ai.observation import spec_for_side  # noqa: E402
from hansa.ai.policy import PolicyBot, PolicyNet, load_policy, save_policy  # noqa: E402
from hansa.bots import PurposefulRandomBot, bot_spec_ok, make_bot  # noqa: E402
from hansa.core.moves import Shift  # noqa: E402
from hansa.core.state import GameState  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "train_policy.py"


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("train_policy_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def tp() -> ModuleType:
    return load_example()


@pytest.fixture(scope="module")
def trained(tp: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[float], tuple[float, float]]:
    """A policy trained for a few seconds: 4 expert games (one of each lineup), 6 epochs, one hidden layer of 64."""
    actions = ActionIndex.for_side("2-3")
    obs_size = spec_for_side("2-3").size
    data = tp.Dataset(obs_size, actions.size)
    assert tp.collect(4, 11, None, 1.0, data, log=lambda _: None) == 4
    assert len(data) > 500
    net = tp.new_net(obs_size, actions, [64], seed=5)
    arrays = data.arrays()
    before = tp.evaluate(net, arrays)
    losses = tp.train(net, tp.Adam(net, lr=3e-3), data, 6, np.random.default_rng(0), batch=128, log=lambda _: None)
    after = tp.evaluate(net, arrays)
    path = tmp_path_factory.mktemp("policy") / "policy.npz"
    net.meta["test"] = True
    save_policy(path, net)
    return path, losses, (before[0], after[0])


def test_training_lowers_the_loss(trained: tuple[Path, list[float], tuple[float, float]]) -> None:
    _, losses, (before, after) = trained
    assert len(losses) == 6
    assert losses[-1] < 0.75 * losses[0], losses
    assert after < 0.75 * before, (before, after)


def test_gradients_match_finite_differences(tp: ModuleType) -> None:
    actions = ActionIndex.for_side("2-3")
    rng = np.random.default_rng(3)
    net = tp.new_net(20, actions, [8, 6], seed=1)
    for w in net.weights:  # a non-trivial output layer
        w[...] = rng.standard_normal(w.shape).astype(np.float32) * 0.5
    net.weights = [w.astype(np.float64) for w in net.weights]
    net.biases = [b.astype(np.float64) + 0.1 for b in net.biases]
    x = rng.random((5, 20))
    mask = rng.random((5, actions.size)) < 0.01
    y = np.array([int(rng.choice(np.flatnonzero(m))) for m in mask])

    def loss() -> float:
        return float(tp.loss_and_grads(net, x, mask, y)[0])

    grads = tp.loss_and_grads(net, x, mask, y)[2]
    params = [p for pair in zip(net.weights, net.biases) for p in pair]
    for p, g in zip(params, grads):
        for flat in rng.choice(p.size, size=6, replace=False):
            i = np.unravel_index(flat, p.shape)
            old = p[i]
            p[i] = old + 1e-5
            up = loss()
            p[i] = old - 1e-5
            down = loss()
            p[i] = old
            assert (up - down) / 2e-5 == pytest.approx(g[i], rel=1e-3, abs=1e-6)


def test_the_policy_loads_as_a_bot_and_plays_legal_moves(trained: tuple[Path, list[float], tuple[float, float]]) -> None:
    path = trained[0]
    assert bot_spec_ok(f"policy:{path}")
    bot = make_bot(f"policy:{path}", 7)
    assert isinstance(bot, PolicyBot) and bot.net.meta["test"] is True
    for seed in (1, 2):
        state = GameState.new(3, seed)
        others = [PurposefulRandomBot(seed * 10 + s) for s in range(3)]
        moves = 0
        while not state.is_over and moves < 2500:
            legal = state.legal_moves()
            move = bot.choose(state, legal) if state.decider == 0 else others[state.decider].choose(state, legal)
            assert move in legal
            state.play(move)
            moves += 1
        assert moves > 100


def test_greedy_choice_is_the_best_logit_and_sampling_is_seeded(trained: tuple[Path, list[float], tuple[float, float]]) -> None:
    net = load_policy(trained[0])
    state = GameState.new(3, seed=4)
    bot = PolicyBot(net, seed=1)
    probs = bot.probabilities(state)
    assert sum(probs.values()) == pytest.approx(1.0, abs=1e-4)
    assert ActionIndex.for_state(state).index(bot.choose(state)) == max(probs, key=lambda i: probs[i])
    from hansa.ai.observation import observe

    x = observe(state, state.decider)
    legal = np.flatnonzero(ActionIndex.for_state(state).mask(state))
    np.testing.assert_allclose(net.legal_logits(x, legal), net.forward(x[None, :])[0][legal], rtol=1e-4, atol=1e-4)
    samplers = [PolicyBot(net, seed=9, temperature=1.0) for _ in range(2)]
    picks = [[b.choose(state) for _ in range(8)] for b in samplers]
    assert picks[0] == picks[1]


def test_a_shift_is_chosen_in_two_steps() -> None:
    """A policy that prefers shifts (built by hand) plays Move 3: shift-from, then shift-to, giving a legal Shift."""
    actions = ActionIndex.for_side("2-3")
    size = spec_for_side("2-3").size
    bias = np.zeros(actions.size, dtype=np.float32)
    bias[actions.families["shift-from"]] = 10.0
    bias[actions.families["shift-to"].start + 7] = 5.0
    net = PolicyNet([np.zeros((size, actions.size), dtype=np.float32)], [bias], actions.fingerprint)
    bot = PolicyBot(net, seed=0)
    for seed in range(20):
        state = GameState.new(3, seed, {"remove3_mode": "move", "marker_set": "BB15"})
        other = PurposefulRandomBot(seed)
        while not state.is_over:
            legal = state.legal_moves()
            if any(isinstance(m, Shift) for m in legal):
                move = bot.choose(state, legal)
                assert isinstance(move, Shift) and move in legal
                return
            state.play(other.choose(state, legal))
    pytest.fail("no Move-3 position in 20 games")


def test_models_that_do_not_fit_are_refused(tmp_path: Path, trained: tuple[Path, list[float], tuple[float, float]]) -> None:
    net = load_policy(trained[0])
    # another action index (same side, other labels): the fingerprint check refuses it
    net.fingerprint = net.fingerprint.rsplit("/", 1)[0] + "/0000000000000000"
    wrong = tmp_path / "wrong.npz"
    save_policy(wrong, net)
    with pytest.raises(ValueError, match="action index mismatch"):
        load_policy(wrong)
    assert not bot_spec_ok(f"policy:{wrong}")
    # observations of another size
    with np.load(trained[0]) as data:
        arrays = {k: data[k] for k in data.files}
    arrays["observation_size"] = np.array(1234)
    bad = tmp_path / "bad-obs.npz"
    np.savez(bad, **arrays)
    with pytest.raises(ValueError, match="observations of 1234"):
        load_policy(bad)
    # missing, unreadable, not a policy
    with pytest.raises(ValueError, match="not found"):
        make_bot(f"policy:{tmp_path / 'none.npz'}")
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip file")
    with pytest.raises(ValueError, match="not readable"):
        load_policy(junk)
    other = tmp_path / "other.npz"
    np.savez(other, x=np.zeros(3))
    with pytest.raises(ValueError, match="not a hansa policy"):
        load_policy(other)
    assert not bot_spec_ok("policy:")
