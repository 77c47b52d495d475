"""A move policy for games with the Big Box modules (docs/rules.md §8) that ends games fast and meets every new
decision: it takes an Emperor's Favour tile once it can, uses Exchange, Tribute and Block markers as soon as it holds
them, answers the share of income and the tribute, and pays for a Place beside a Block.  Used by the browser tests of
the modules (the heuristic bots do not play module games yet)."""

from __future__ import annotations

from typing import Any

PROMO = ["extra-office", "extra-office", "swap", "+3", "+4", "improve", "remove3",
         "exchange", "exchange", "tribute", "tribute", "block"]  # fmt: skip
#: Promotional markers early: every Exchange, Tribute and Block the supply may hold.
PROMO_HEAVY = ["extra-office", "swap", "+3", "+4", "improve", "remove3",
               "exchange", "exchange", "tribute", "tribute", "block", "block"]  # fmt: skip
MODULES = {"missions": True, "emperors_favour": True, "marker_supply": PROMO_HEAVY}
BENEFITS = ("office", "ability", "table", "extra", "nothing")
WANTED = ("+4", "+3", "extra-office", "improve", "swap", "remove3", "tribute", "block")


def route_of(house: str) -> str:
    return house.rsplit(":", 1)[0]


def choose(view: dict[str, Any]) -> dict[str, Any]:
    """A legal move of ``view["legal"]`` (API view: ``legal`` as {text, json}, ``state`` the public state)."""
    legal = view["legal"]
    state = view["state"]
    me = state["turn"]["decider"]
    by_type: dict[str, list[dict[str, Any]]] = {}
    for m in legal:
        by_type.setdefault(m["json"]["type"], []).append(m)
    phase = state["turn"]["phase"]
    if phase == "share":
        return (by_type.get("share") or by_type["done"])[0]
    if phase == "tribute":
        return max(by_type["tribute"], key=lambda m: (m["json"]["merchants"], m["json"]["traders"]))
    owners = (state.get("favour") or {}).get("owners", {})
    if "tile" in by_type and me not in owners.values():
        # F-ACT or F-INC first (they work during the game), else the first one on display.
        tiles = sorted(by_type["tile"], key=lambda m: (m["json"]["tile"] not in ("F-INC", "F-ACT"), m["json"]["tile"]))
        return tiles[0]
    # Exchange: the most useful used marker of another player, never an Exchange (two players would swap them back
    # and forth for ever).
    exchanges = [m for m in by_type.get("use-exchange", []) if m["json"]["marker"] != "exchange"]
    if exchanges:
        return min(exchanges, key=lambda m: WANTED.index(m["json"]["marker"]) if m["json"]["marker"] in WANTED else 99)
    for kind in ("use-block", "use-tribute"):
        if kind in by_type:
            moves = by_type[kind]
            if kind == "use-tribute":
                # beside a route of a city with free offices: a tribute is likely
                free = {c for c, offices in state["offices"].items() if any(o is None for o in offices)}
                moves = sorted(moves, key=lambda m: not any(c in free for c in m["json"]["route"].split("-")))
            return moves[0]
    claims = by_type.get("claim", [])
    if claims:
        return min(claims, key=lambda m: BENEFITS.index(m["json"]["benefit"]))
    for kind in ("marker", "relocate", "take", "done", "remove", "neutral-office"):
        if kind in by_type:
            return by_type[kind][0]
    places = by_type.get("place", [])
    if places:
        houses = state["houses"]
        bonus = state.get("route_markers") or {}

        def rank(m: dict[str, Any]) -> tuple[bool, bool, bool, bool, int]:
            route = route_of(m["json"]["house"])
            others = sum(1 for k, v in houses.items() if route_of(k) == route and v[0] != me)
            free = sum(1 for p in places if route_of(p["json"]["house"]) == route)
            # Merchants too (back in the stock after a claim, they make a tribute a choice of kinds)
            return (route not in bonus, others > 0, "pay" not in m["json"], m["json"]["piece"] != "M", free)

        # a route with a bonus marker first (markers make the modules' decisions), then one beside a Block (it tests
        # the payment), then the fullest own route
        return min(places, key=rank)
    if "income" in by_type:
        return max(by_type["income"], key=lambda m: m["json"]["traders"] + m["json"]["merchants"])
    return by_type["end"][0] if "end" in by_type else legal[0]
