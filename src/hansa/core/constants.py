"""Fixed numbers of the game (docs/rules.md §1, §4): pieces, ability tracks, bonus markers, scoring tables."""

from __future__ import annotations

from typing import Final

# Piece kinds.  A piece on the board is encoded as ``owner * 2 + kind``; ``EMPTY`` marks a free space.
TRADER: Final = 0
MERCHANT: Final = 1
PIECE_LETTERS: Final = "TM"
EMPTY: Final = -1

# The neutral owner of the two-player variant A uses owner index 5 (seats are 0..4).
NEUTRAL: Final = 5

TRADERS_PER_PLAYER: Final = 27
MERCHANTS_PER_PLAYER: Final = 4

# Abilities (docs/rules.md §1.3), in the order of the player board.
KEYS: Final = 0  # Clavis Urbis
ACTIONS: Final = 1  # Actiones
PRIVILEGE: Final = 2  # Privilegium
BOOK: Final = 3  # Liber Sophiae
BAGS: Final = 4  # Bursa (money bags)
ABILITY_NAMES: Final = ("keys", "actions", "privilege", "book", "bags")
ABILITY_TITLES: Final = ("Clavis Urbis", "Actiones", "Privilegium", "Liber Sophiae", "Bursa")
#: Track values from level 0 (the leftmost space) to the maximum level.  ``BAGS_ALL`` is the "C" space.
BAGS_ALL: Final = 99
ABILITY_VALUES: Final = (
    (1, 2, 2, 3, 4),
    (2, 3, 3, 4, 4, 5),
    (1, 2, 3, 4),
    (2, 3, 4, 5),
    (3, 5, 7, BAGS_ALL),
)
#: Highest level index of each track (= number of covering pieces at the start).
ABILITY_MAX: Final = tuple(len(v) - 1 for v in ABILITY_VALUES)
#: Kind of piece released by an upgrade (Book releases Merchants, every other track Traders).
ABILITY_RELEASES: Final = (TRADER, TRADER, TRADER, MERCHANT, TRADER)
#: Traders / Merchants covering tracks at the start.
TRACK_TRADERS: Final = sum(ABILITY_MAX[a] for a in range(5) if ABILITY_RELEASES[a] == TRADER)  # 15
TRACK_MERCHANTS: Final = ABILITY_MAX[BOOK]  # 3

# Privilege colours, rank 1..4.
PRIVILEGE_COLOURS: Final = ("white", "orange", "pink", "black")

# Bonus marker types (docs/rules.md §3.3).
EXTRA_OFFICE: Final = 0
SWAP_OFFICES: Final = 1
PLUS3: Final = 2
PLUS4: Final = 3
IMPROVE: Final = 4
REMOVE3: Final = 5
#: The Big Box promo markers (docs/rules.md §8.5): only in games whose ``marker_supply`` option names them.
EXCHANGE: Final = 6
TRIBUTE: Final = 7
BLOCK: Final = 8
MARKER_NAMES: Final = ("extra-office", "swap", "+3", "+4", "improve", "remove3", "exchange", "tribute", "block")
MARKER_TITLES: Final = (
    "Extra office",
    "Swap offices",
    "+3 actions",
    "+4 actions",
    "Improve ability",
    "Remove 3",
    "Exchange",
    "Tribute",
    "Block",
)
#: The most markers of each type a ``marker_supply`` may name: the Big Box's markers left after the taverns took
#: theirs (the BB15 preset's supply) plus the two of each promo marker (docs/rules.md §8.5).
MARKER_SUPPLY_MAX: Final = (3, 2, 2, 2, 2, 1, 2, 2, 2)
MARKER_SUPPLY_SIZE: Final = 12
#: The three starting (tavern) markers, docs/rules.md §1.5.
TAVERN_MARKERS: Final = (REMOVE3, SWAP_OFFICES, EXTRA_OFFICE)

#: Face-down supply after the taverns for each preset: counts per marker type (extra, swap, +3, +4, improve, remove).
MARKER_PRESETS: Final = {
    "IT4": (3, 2, 2, 2, 3, 1),
    "EN16": (4, 1, 2, 2, 3, 1),
    "PT15": (3, 1, 2, 2, 3, 1),
    "BB15": (3, 2, 2, 2, 2, 1),
}

#: Seat 1..5 starting supply Traders and stock Traders (every seat also gets 1 Merchant in supply), §1.4.
START_SUPPLY_TRADERS: Final = (5, 6, 7, 8, 9)
START_STOCK_TRADERS: Final = (6, 5, 4, 3, 2)

# Emperor's Favour tiles (docs/rules.md §8.4), in the order of ``GameState.favour``.
F_FREE: Final = 0
F_ACT: Final = 1
F_INC: Final = 2
F_TWO: Final = 3
F_CITY: Final = 4
F_ABIL: Final = 5
TILE_CODES: Final = ("F-FREE", "F-ACT", "F-INC", "F-TWO", "F-CITY", "F-ABIL")
#: ``GameState.favour`` values other than a seat.
TILE_OUT: Final = -2
TILE_DISPLAY: Final = -1
FAVOUR_CONTROL_POINTS: Final = 4
FAVOUR_ABILITY_POINTS: Final = 7

# Mission cards (docs/rules.md §8.2): card id -> the three city codes.
MISSION_CARDS: Final = {
    1: ("OSN", "STE", "PAD"),
    2: ("DOR", "MIN", "LUN"),
    3: ("MIN", "PER", "GOS"),
    4: ("ARN", "PER", "HAN"),
    5: ("DOR", "STE", "KAM"),
    6: ("ARN", "OSN", "HIL"),
    7: ("ARN", "PER", "BRE"),
    8: ("MIN", "OSN", "MAG"),
    9: ("DOR", "STE", "MUN"),
}
MISSION_CITY_POINTS: Final = 1
MISSION_ALL_POINTS: Final = 5

WIN_SCORE: Final = 20
CITIES_TO_END: Final = 10
EAST_WEST_BONUS: Final = (7, 4, 2)
FULL_ABILITY_POINTS: Final = 4
CONTROL_POINTS: Final = 2

#: Final-scoring points for the number of bonus markers held (index = count, capped at 10).
MARKER_POINTS: Final = (0, 1, 3, 3, 6, 6, 10, 10, 15, 15, 21)


def marker_points(count: int) -> int:
    """Points for holding ``count`` bonus markers at the end of the game (docs/rules.md §4.3)."""
    return MARKER_POINTS[min(count, 10)]


def piece_code(owner: int, kind: int) -> int:
    """Encode a piece of ``owner`` and ``kind`` as stored in a house or office."""
    return owner * 2 + kind
