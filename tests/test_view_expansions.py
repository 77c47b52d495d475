"""The public view of a position (``hansa.view.public_state``, what the web client draws) on the expansion maps."""

from __future__ import annotations

from hansa.bots import make_bot
from hansa.core.state import GameState
from hansa.view import public_state


def test_a_used_permission_is_used_this_turn_only_and_not_after_the_end() -> None:
    """Britannia: a permission city's seal says "used" from its use to the end of that turn; once the game is over
    there is no turn, so no seal is shown used (a permission used in the last turn used to stay "used")."""
    state = GameState.new(3, 2, {"map": "britannia"})
    bots = [make_bot("heuristic", 20 + i) for i in range(3)]
    used_seen = False
    while not state.is_over:
        turn = state.turn
        state.play(bots[state.decider].choose(state))
        seals = public_state(state)["turn"]["permissions"]
        assert [seal["used"] for seal in seals] == [bool(state.perm_used >> i & 1) and not state.is_over for i in range(len(seals))]
        if state.perm_used and not state.is_over:
            used_seen = True
            assert any(seal["used"] for seal in seals)
        if state.turn != turn and not state.is_over:
            assert not any(seal["used"] for seal in seals)  # a new turn: every permission is free again
    assert used_seen
    # The end of the game: even a permission spent in the very last turn is not shown as used.
    last = state.copy()
    last.perm_used = 1
    assert [seal["used"] for seal in public_state(last)["turn"]["permissions"]] == [False, False]
