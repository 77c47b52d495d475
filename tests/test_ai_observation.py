"""Observations (hansa.ai.observation): only what a seat may know (hidden markers never change them), the
observer in slot 0, a documented layout, and the graph form's shapes and static edges."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from hansa.ai.observation import PIECE, PLAYER_FEATURES, observe, observe_graph, spec_for, spec_for_side
from hansa.bots import ClaimingRandomBot
from hansa.core.state import GameState

DOCS = Path(__file__).resolve().parents[1] / "docs" / "ai.md"
CONFIGS = [(2, {"two_player_variant": "neutral"}), (2, {"two_player_variant": "pawn"}), (3, {}), (4, {}), (5, {})]


def positions(players: int, options: dict, seed: int, every: int = 7):
    state = GameState.new(players, seed, options)
    bot = ClaimingRandomBot(seed)
    n = 0
    while not state.is_over:
        if n % every == 0:
            yield state
        state.play(bot.choose(state))
        n += 1
    yield state


@pytest.mark.parametrize(("players", "options"), CONFIGS, ids=[f"{p}p-{i}" for i, (p, _) in enumerate(CONFIGS)])
def test_hidden_markers_never_change_an_observation(players: int, options: dict) -> None:
    """A position and its determinization (the face-down supply and the plates reshuffled) look the same to every
    seat, flat and as a graph, although their hidden markers differ."""
    rng = random.Random(players)
    differing = 0
    for state in positions(players, options, seed=players * 11):
        other = state.determinized(rng)
        if (other.marker_supply, other.plate) != (state.marker_supply, state.plate):
            differing += 1
        for seat in range(players):
            a, b = observe(state, seat), observe(other, seat)
            assert np.array_equal(a, b)
            ga, gb = observe_graph(state, seat), observe_graph(other, seat)
            assert all(np.array_equal(ga[k], gb[k]) for k in ga if k != "edges")
    assert differing > 10  # the hidden parts really did differ


def test_the_observer_is_slot_zero_and_the_turn_order_follows() -> None:
    state = GameState.new(4, seed=5)
    bot = ClaimingRandomBot(5)
    for _ in range(60):
        state.play(bot.choose(state))
    spec = spec_for(state.board)
    score = [name for name, _ in PLAYER_FEATURES].index("score")
    for seat in range(4):
        obs = observe(state, seat)
        table = spec.view(obs, "players").reshape(5, len(PLAYER_FEATURES))
        for q in range(4):
            assert table[(q - seat) % 4, score] == pytest.approx(state.score[q] / 20)
        assert table[4].sum() == 0  # padding
        houses = spec.view(obs, "houses").reshape(-1, PIECE)
        for h, code in enumerate(state.houses):
            want = 0 if code < 0 else 1 + (code & 1) * 6 + ((code >> 1) - seat) % 4
            assert houses[h].argmax() == want and houses[h].sum() == 1


def test_values_are_finite_and_bounded_over_whole_games() -> None:
    for players, options in CONFIGS:
        for state in positions(players, options, seed=3, every=3):
            obs = observe(state, state.decider if not state.is_over else 0)
            assert obs.dtype == np.float32 and np.isfinite(obs).all()
            assert obs.min() >= 0 and obs.max() <= 64, (players, obs.max())  # the adapters declare Box(0, 64)


@pytest.mark.parametrize("side", ["2-3", "4-5"])
def test_layout_is_contiguous_and_documented(side: str) -> None:
    spec = spec_for_side(side)
    position = 0
    for field in spec.fields:
        assert field.start == position and field.size >= 0
        position += field.size
    assert position == spec.size
    docs = DOCS.read_text(encoding="utf-8")
    for field in spec.fields:
        assert f"`{field.name}`" in docs, f"docs/ai.md does not describe the field {field.name}"
    for name, _ in PLAYER_FEATURES:
        assert f"`{name}`" in docs, f"docs/ai.md does not describe the player feature {name}"


def test_graph_form_and_static_edges() -> None:
    state = GameState.new(3, seed=2)
    spec = spec_for(state.board)
    graph = observe_graph(state, 0)
    assert graph["houses"].shape[0] == spec.houses and graph["routes"].shape[0] == spec.routes
    assert graph["offices"].shape[0] == spec.offices and graph["cities"].shape[0] == spec.cities
    assert graph["players"].shape == (5, len(PLAYER_FEATURES))
    edges = graph["edges"]
    assert edges["house_route"].shape == (2, spec.houses)
    assert sorted(edges["house_route"][0].tolist()) == list(range(spec.houses))
    assert edges["route_city"].shape == (2, 2 * spec.routes)
    for r in state.board.routes:
        assert edges["house_route"][1][list(r.houses)].tolist() == [r.index] * r.spaces
    assert edges["office_city"].shape == (2, spec.offices)
