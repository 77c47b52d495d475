"""The rules in the project's own words (``src/hansa/rules/<lang>.md``, ``docs/rules.md``).

Every rule the engine can name in an error (``"§2.6"``, ``"§3.3 opt.remove3Mode"``, ``"§5.A"``) must have an anchor
in every language, the translations must have the same sections in the same order (so that one link works in every
language), and every option of :class:`~hansa.core.options.GameOptions` must be described.
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import fields
from pathlib import Path
from typing import Any, get_args, get_type_hints

import pytest

from hansa.core.constants import MARKER_NAMES
from hansa.core.options import GameOptions
from hansa.server.rules import LANGUAGES, rules_page, section_id

ROOT = Path(__file__).resolve().parents[1]
RULES_DIR = ROOT / "src" / "hansa" / "rules"
#: Where rule references can come from: the engine's errors and the server's own (``"§4.2"`` for a finished game).
SOURCES = [
    *sorted((ROOT / "src" / "hansa" / "core").glob("*.py")),
    *sorted((ROOT / "src" / "hansa" / "server").glob("*.py")),
    ROOT / "src" / "hansa" / "game.py",
]
#: "§2.6", "§ 3.3", "§5.A", "§2.8.1" → the section number.
REFERENCE = re.compile(r"§\s*((?:\d+|[A-Z])(?:\.(?:\d+|[A-Z]))*)")
#: A numbered heading: "2.6 Action 5 — Claim a route", "0. Terms", "5.A Variant A", "A.1 Cities".
NUMBERED = re.compile(r"^((?:\d+|[A-Z])(?:\.(?:\d+|[A-Z]))*)\.?\s")
#: Developer material that stays out of the players' rules: source tags and the specification's own name.
SOURCE_TAG = re.compile(r"\[(?:EN|PT|IT|ES|CZ|CS|FAQ|BB|REC)\]|RULES\.md|shared/|boards\.json")


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                out.add(id(first.value))
    return out


def engine_references() -> dict[str, set[str]]:
    """Section numbers named by string literals of the engine and the server (docstrings excluded: they are for
    developers), with the files naming them: ``{"2.6": {"state.py"}, "5.A": {...}}``."""
    found: dict[str, set[str]] = {}
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
                for m in REFERENCE.finditer(node.value):
                    found.setdefault(m.group(1), set()).add(path.name)
    return found


def number_of(title: str) -> str | None:
    m = NUMBERED.match(title)
    return m.group(1) if m else None


def sections(lang: str) -> list[dict[str, Any]]:
    return list(rules_page(lang)["sections"])


def test_engine_names_rules() -> None:
    """The collection itself works: the engine names the claim, displacement and two-player rules."""
    refs = engine_references()
    assert {"2.2", "2.4", "2.6", "3.3", "5.A", "5.B"} <= set(refs), sorted(refs)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_engine_rule_has_a_heading(lang: str) -> None:
    """Each rule number the engine names is the number of a heading (whatever id that heading gets)."""
    numbers = {number_of(s["title"]) for s in sections(lang)}
    missing = {n: sorted(files) for n, files in engine_references().items() if n not in numbers}
    assert not missing, f"{lang}.md has no heading for the rules {missing}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_engine_rule_has_an_anchor(lang: str) -> None:
    """``rules.section_id("§2.6")`` is the id of the heading of §2.6, so that a client can link an error's rule to
    ``/rules#<id>``.  Lettered sections included: "5.A" must give the id of the heading "5.A Variant A ..."."""
    by_id = {s["id"]: s["title"] for s in sections(lang)}
    wrong = {}
    for number in sorted(engine_references()):
        ident = section_id(number)
        title = by_id.get(ident)
        if title is None or number_of(title) != number:
            heading = next((s for s in sections(lang) if number_of(s["title"]) == number), None)
            wrong[number] = f"section_id gives {ident!r}, the heading has id {heading['id'] if heading else None!r}"
    assert not wrong, (
        f"{lang}.md: rule references without an anchor: {wrong}.  A lettered number like 5.A needs "
        r"hansa/server/rules.py's _NUMBER to read letters after a dot: ((?:\d+|[A-Z])(?:\.(?:\d+|[A-Z]))*)"
    )


def test_lettered_sections_get_number_ids() -> None:
    """§5.A and §5.B get ids from their numbers (``s5-A``), like every other numbered section."""
    assert section_id("5.A") == "s5-A"
    assert section_id("5.A Variant A — neutral traders") == "s5-A"
    assert section_id("§5.B") == "s5-B"
    assert section_id("A. Board facts") == "sA"
    assert section_id("A.1 Cities") == "sA-1"
    assert section_id("2.8.1 City control") == "s2-8-1"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_headings_are_numbered(lang: str) -> None:
    """Every heading below the title starts with its number, so that its id does not depend on the language."""
    secs = sections(lang)
    assert secs[0]["level"] == 1 and secs[0]["title"] == "Hansa Teutonica"
    assert [s for s in secs if s["level"] == 1] == secs[:1]
    unnumbered = [s["title"] for s in secs[1:] if number_of(s["title"]) is None]
    assert not unnumbered, f"{lang}.md has headings without a number: {unnumbered}"
    ids = [s["id"] for s in secs]
    assert len(ids) == len(set(ids)), f"{lang}.md repeats a section number"


@pytest.mark.parametrize("lang", [x for x in LANGUAGES if x != "en"])
def test_translations_have_the_same_sections(lang: str) -> None:
    """Same section ids, numbers and levels in the same order as the English text."""
    english = [(s["id"], number_of(s["title"]), s["level"]) for s in sections("en")]
    assert [(s["id"], number_of(s["title"]), s["level"]) for s in sections(lang)] == english


@pytest.mark.parametrize("lang", LANGUAGES)
def test_references_inside_the_rules_exist(lang: str) -> None:
    """Every "§x.y" the text itself mentions is a section of the text."""
    text = (RULES_DIR / f"{lang}.md").read_text(encoding="utf-8")
    numbers = {number_of(s["title"]) for s in sections(lang)}
    dangling = sorted({m.group(1) for m in REFERENCE.finditer(text)} - numbers)
    assert not dangling, f"{lang}.md refers to sections it does not have: {dangling}"


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.capitalize() for p in rest)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_option_is_described(lang: str) -> None:
    """Every option appears with its program name, its ``opt.camelCase`` alias and each of its values."""
    text = (RULES_DIR / f"{lang}.md").read_text(encoding="utf-8")
    hints = get_type_hints(GameOptions)
    missing = []
    for f in fields(GameOptions):
        names = [f.name, f"opt.{_camel(f.name)}"]
        if f.name == "marker_supply":  # a list of marker names: each name is described
            values = list(MARKER_NAMES)
        else:
            values = ["true", "false"] if hints[f.name] is bool else [str(v) for v in get_args(hints[f.name])]
        missing += [n for n in names if f"`{n}`" not in text and f"({n})" not in text]
        missing += [f"{f.name}={v}" for v in values if f"`{v}`" not in text]
    assert not missing, f"{lang}.md does not describe {missing}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_developer_material(lang: str) -> None:
    """The players' rules carry no source tags ([EN], [REC] ...) and no references to the specification file."""
    text = (RULES_DIR / f"{lang}.md").read_text(encoding="utf-8")
    assert not SOURCE_TAG.findall(text)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_rendered_page(lang: str) -> None:
    """The server's page: a title, HTML with the anchors, tables rendered, raw HTML not passed through."""
    page = rules_page(lang)
    assert page["lang"] == lang and page["title"] == "Hansa Teutonica"
    assert '<h3 id="s2-6">' in page["html"] and '<h4 id="s2-8-1">' in page["html"]
    assert page["html"].count("<table>") >= 15
    assert "<script" not in page["html"]


def test_docs_rules_is_the_english_text() -> None:
    """docs/rules.md is a relative symlink to the packaged English rules: one source."""
    link = ROOT / "docs" / "rules.md"
    assert link.is_symlink()
    assert os.readlink(link) == "../src/hansa/rules/en.md"
    assert link.resolve() == (RULES_DIR / "en.md").resolve()
