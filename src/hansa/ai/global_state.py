"""The global state of a position for a centralized critic: everything about it, hidden information included.

**For centralized training only.**  The vector leaks by design what no seat may see: the order of the face-down
marker supply, the markers waiting on every plate, and with Mission Cards every seat's card.  A policy that acts
must take :func:`hansa.ai.observation.observe` instead (the PettingZoo environment's observations do).

Layout (:class:`GlobalStateSpec`): the observation of seat 0 (:func:`hansa.ai.observation.observe`, so seat ``p``
is player slot ``p``; the pending shift-from or exchange-from included), then :data:`HIDDEN_FIELDS`:

* ``supply_order``: the face-down supply from the next marker drawn (position 0) on, each position one-hot over
  none + the marker types, :data:`SUPPLY_MAX` positions (no supply holds more);
* ``supply_counts``: the supply's markers per type (counts);
* ``plates``: per seat 0-4, the markers waiting on its plate in the order they are placed, one-hot as above, up to
  :data:`SUPPLY_MAX` (every plate's markers came from the supply);
* ``missions_all`` (Mission Cards only): per seat 0-4, its card one-hot over cards 1-9;
* ``facedown_types`` (Emperor's Favour only): per seat 0-4, its markers turned face down for tiles, by type (the
  observation counts them only).

Its size is fixed per board side and Big Box module set, like the observation's.  Two positions that differ in
anything (hidden markers and cards included) give different vectors; a test checks it on determinized copies.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ..core.constants import MARKER_PRESETS, MARKER_SUPPLY_SIZE
from ..core.state import GameState
from .observation import MISSIONS, SLOTS, Field, ObservationSpec, Vector, observe, spec_for_state

#: The most markers a face-down supply holds: the largest preset's, or the 12 of the ``marker_supply`` option.
SUPPLY_MAX = max(MARKER_SUPPLY_SIZE, *(sum(counts) for counts in MARKER_PRESETS.values()))
#: The fields after the observation, in order (a field of a module the game does not use is empty).
HIDDEN_FIELDS = (
    ("supply_order", f"face-down supply from the next marker drawn on: {SUPPLY_MAX} positions, each one-hot over "
                     "none + marker types (hidden information)"),
    ("supply_counts", "face-down supply: markers per type (counts; hidden information)"),
    ("plates", f"per seat 0-4: markers waiting on its plate in placing order, {SUPPLY_MAX} positions one-hot over "
               "none + marker types (hidden information)"),
    ("missions_all", "missions: per seat 0-4, its mission card one-hot over cards 1-9 (hidden information)"),
    ("facedown_types", "emperors_favour: per seat 0-4, its face-down markers by type (counts)"),
)


class GlobalStateSpec:
    """The layout of the global state for the games of one observation layout (board side and modules)."""

    def __init__(self, obs: ObservationSpec) -> None:
        self.obs = obs
        types = obs.marker_types
        self.marker_types = types
        sizes = {
            "supply_order": SUPPLY_MAX * (1 + types),
            "supply_counts": types,
            "plates": SLOTS * SUPPLY_MAX * (1 + types),
            "missions_all": SLOTS * MISSIONS * ("missions" in obs.modules),
            "facedown_types": SLOTS * types * ("emperors_favour" in obs.modules),
        }
        fields: list[Field] = []
        start = obs.size
        for name, meaning in HIDDEN_FIELDS:
            fields.append(Field(name, start, sizes[name], meaning))
            start += sizes[name]
        #: The hidden fields (the observation's are ``obs.fields``), with their places in the state vector.
        self.fields = tuple(fields)
        self.size = start
        self._at = {f.name: f for f in fields}
        # For global_state(): the hidden fields' starts, and their values with every position empty.
        self._supply_at = self._at["supply_order"].start
        self._counts_at = self._at["supply_counts"].start
        self._plates_at = self._at["plates"].start
        self._missions_at = self._at["missions_all"].start
        self._facedown_at = self._at["facedown_types"].start if "emperors_favour" in obs.modules else None
        self._hidden_template = np.zeros(self.size - obs.size, dtype=np.float32)
        self._hidden_template[self._supply_at - obs.size : self._counts_at - obs.size : 1 + types] = 1.0
        plates = self._at["plates"]
        self._hidden_template[plates.start - obs.size : plates.start + plates.size - obs.size : 1 + types] = 1.0

    def field(self, name: str) -> Field:
        return self._at[name]

    def view(self, vector: Vector, name: str) -> Vector:
        """The block ``name`` of a state vector, an observation field or a hidden one (a view, not a copy)."""
        f = self._at.get(name) or self.obs.field(name)
        return vector[f.start : f.start + f.size]


@cache
def _spec(obs: ObservationSpec) -> GlobalStateSpec:
    return GlobalStateSpec(obs)


def global_spec_for_state(state: GameState) -> GlobalStateSpec:
    """The (cached) layout of a game's global state."""
    return _spec(spec_for_state(state))


def global_state(state: GameState, pending_house: str | None = None, pending_exchange: str | None = None) -> Vector:
    """The global state (float32, ``global_spec_for_state(state).size`` long): seat 0's observation and the hidden
    information (module docstring).  ``pending_house`` / ``pending_exchange`` as for :func:`observe`."""
    spec = global_spec_for_state(state)
    out = np.empty(spec.size, dtype=np.float32)
    out[: spec.obs.size] = observe(state, 0, pending_house, pending_exchange)
    out[spec.obs.size :] = spec._hidden_template  # every supply and plate position empty ("none" set)
    width = 1 + spec.marker_types
    supply = state.marker_supply
    if len(supply) > SUPPLY_MAX or any(len(plate) > SUPPLY_MAX for plate in state.plate):
        raise ValueError(f"a supply or plate holds more than {SUPPLY_MAX} markers")
    at = spec._supply_at
    on = [at + k * width + 1 + m for k, m in enumerate(reversed(supply))]  # the engine draws from the list's end
    off = [at + k * width for k in range(len(supply))]
    counts = [0] * spec.marker_types
    for m in supply:
        counts[m] += 1
    out[spec._counts_at : spec._counts_at + spec.marker_types] = counts
    for seat, plate in enumerate(state.plate):
        at = spec._plates_at + seat * SUPPLY_MAX * width
        on.extend(at + k * width + 1 + m for k, m in enumerate(plate))
        off.extend(at + k * width for k in range(len(plate)))
    if state.missions:
        on.extend(spec._missions_at + seat * MISSIONS + card - 1 for seat, card in enumerate(state.missions))
    if spec._facedown_at is not None:
        turned = [0] * (state.players * spec.marker_types)
        for seat, kinds in enumerate(state.facedown):
            for m in kinds:
                turned[seat * spec.marker_types + m] += 1
        out[spec._facedown_at : spec._facedown_at + len(turned)] = turned
    out[off] = 0.0
    out[on] = 1.0
    return out
