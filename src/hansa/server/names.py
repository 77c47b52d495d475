"""Player names: what a name may hold, its stored form, and when two names are the same.

A name is stored in Unicode normal form NFC with every run of white space (of any script) made one space.  It is
refused when it holds a character that shows nothing or changes how others show: control and format characters
(zero-width spaces and joiners, bidirectional overrides such as U+202E, the byte-order mark, tag characters),
surrogates, private-use and unassigned code points, line and paragraph separators, and the other code points Unicode
calls default-ignorable or that draw blank (Hangul fillers, the blank Braille pattern).  Variation selectors 15 and
16 (text or emoji presentation) are allowed right after a symbol, where they belong.  A name needs at least one
letter, digit, punctuation mark or symbol.

Two names are the same when their *keys* are equal: NFKC (so that full-width and other compatibility forms read as
their plain letters), case folded, without variation selectors.  Within a game no two seats may have the same name.
"""

from __future__ import annotations

import unicodedata

#: Code points that draw nothing although their category would allow them (Unicode's Default_Ignorable_Code_Point
#: property, DerivedCoreProperties.txt, which Python's unicodedata does not expose), and blank-drawing ones.
_INVISIBLE_RANGES = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F),
    (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x2800, 0x2800), (0x3164, 0x3164), (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
#: Categories refused anywhere in a name: controls, format characters, surrogates, private use, unassigned, line and
#: paragraph separators.
_REFUSED_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}
#: Variation selectors 15 and 16: allowed after a symbol (an emoji's text or emoji presentation).
_PRESENTATION = {0xFE0E, 0xFE0F}


class BadName(ValueError):
    """A name that may not be used; the message says why (it never repeats the name)."""


def _invisible(cp: int) -> bool:
    return any(lo <= cp <= hi for lo, hi in _INVISIBLE_RANGES)


def clean_name(raw: str, max_length: int) -> str:
    """The stored form of a player name, or :class:`BadName` saying why it is refused."""
    name = unicodedata.normalize("NFC", " ".join(raw.split()))
    if not name:
        raise BadName("a name needs visible characters")
    previous = ""
    for ch in name:
        cp = ord(ch)
        if cp in _PRESENTATION and previous and unicodedata.category(previous) == "So":
            previous = ch
            continue
        if unicodedata.category(ch) in _REFUSED_CATEGORIES or _invisible(cp):
            raise BadName(f"a name may not hold invisible or control characters (U+{cp:04X})")
        previous = ch
    if not any(unicodedata.category(ch)[0] in "LNPS" for ch in name):
        raise BadName("a name needs a letter, digit, punctuation mark or symbol")
    if len(name) > max_length:
        raise BadName(f"a name has at most {max_length} characters")
    return name


def name_key(name: str) -> str:
    """What makes two names the same: compatibility forms, case and presentation selectors do not count."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    return "".join(ch for ch in folded if ord(ch) not in _PRESENTATION)


def duplicate_names(names: list[str]) -> tuple[int, int] | None:
    """The first two seats (indexes) whose names are the same, or None."""
    seen: dict[str, int] = {}
    for i, name in enumerate(names):
        key = name_key(name)
        if key in seen:
            return seen[key], i
        seen[key] = i
    return None
