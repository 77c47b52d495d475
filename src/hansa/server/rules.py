"""The rules page of the web app: the rules the engine implements (``hansa/rules/<lang>.md``) as HTML, with an id
on every numbered heading (``§2.6`` → ``s2-6``) so that error messages and the table can link to a rule."""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from typing import Any

from markdown_it import MarkdownIt

LANGUAGES = ("en", "pt", "it", "es", "cs")
_NUMBER = re.compile(r"^\s*§?\s*((?:\d+|[A-Z])(?:\.(?:\d+|[A-Z]))*)[.)]?\s")


def section_id(title: str) -> str:
    """``"2.6 Action 5 — Claim"`` → ``"s2-6"``; an unnumbered heading gets a slug of its words."""
    m = _NUMBER.match(title + " ")
    if m:
        return "s" + m.group(1).replace(".", "-")
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "section"


@lru_cache(maxsize=len(LANGUAGES))
def rules_page(lang: str) -> dict[str, Any]:
    """``{"lang", "title", "html", "sections": [{"id", "title", "level"}]}``; KeyError for an unknown language."""
    if lang not in LANGUAGES:
        raise KeyError(lang)
    text = resources.files("hansa.rules").joinpath(f"{lang}.md").read_text(encoding="utf-8")
    md = MarkdownIt("commonmark", {"html": False, "typographer": False}).enable("table")
    tokens = md.parse(text)
    sections: list[dict[str, Any]] = []
    seen: set[str] = set()
    title = ""
    for i, token in enumerate(tokens):
        if token.type == "heading_open":
            heading = tokens[i + 1].content
            level = int(token.tag[1])
            ident = section_id(heading)
            base, n = ident, 2
            while ident in seen:
                ident, n = f"{base}-{n}", n + 1
            seen.add(ident)
            token.attrSet("id", ident)
            if level == 1 and not title:
                title = heading
            sections.append({"id": ident, "title": heading, "level": level})
    return {"lang": lang, "title": title, "html": md.renderer.render(tokens, md.options, {}), "sections": sections}
