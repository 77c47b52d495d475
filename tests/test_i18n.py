"""The web client's translations (``hansa/server/static/i18n/<lang>.json``): one flat file per language of the
published rulebooks, every key in all five with the same ``{parameters}``, the plural forms each language needs,
and every key the client asks for present."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[1] / "src" / "hansa" / "server" / "static"
LANGUAGES = ("en", "pt", "it", "es", "cs")
#: The plural categories Intl.PluralRules gives for whole numbers (CLDR): the keys ``name.<category>`` a counted
#: text needs in each language.
PLURALS = {"en": {"one", "other"}, "pt": {"one", "other"}, "it": {"one", "other"}, "es": {"one", "other"},
           "cs": {"one", "few", "other"}}
CATEGORIES = {"zero", "one", "two", "few", "many", "other"}
PARAM = re.compile(r"\{(\w+)\}")
#: Keys named in the client: t("key"), tn("key", n), data-i18n="key", data-i18n-attr="attr:key,...".
USES = [
    re.compile(r"""\bt\(\s*["']([\w.+-]+)["']"""),
    re.compile(r"""\btn\(\s*["']([\w.+-]+)["']"""),
    re.compile(r"""data-i18n=["']([\w.+-]+)["']"""),
]
ATTR_USE = re.compile(r"""data-i18n-attr=["']([^"']+)["']""")
#: Keys built at run time from a prefix (t(`piece.${kind}`)): the prefix must have keys.
DYNAMIC = re.compile(r"""\btn?\(\s*`([\w.+-]+)\.\$\{""")


def strings(lang: str) -> dict[str, str]:
    data = json.loads((STATIC / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def split_plural(key: str) -> tuple[str, str | None]:
    base, _, last = key.rpartition(".")
    return (base, last) if base and last in CATEGORIES else (key, None)


def test_files_are_flat_string_maps() -> None:
    for lang in LANGUAGES:
        data = strings(lang)
        assert data, lang
        bad = {k: v for k, v in data.items() if not isinstance(v, str) or not v.strip()}
        assert not bad, f"{lang}.json: empty or non-string values {bad}"


def test_every_key_exists_in_all_five_languages() -> None:
    english = strings("en")
    plain = {k for k in english if split_plural(k)[1] is None}
    counted = {split_plural(k)[0] for k in english if split_plural(k)[1] is not None}
    for lang in LANGUAGES:
        data = strings(lang)
        keys = {k for k in data if split_plural(k)[1] is None}
        assert keys == plain, f"{lang}.json: missing {sorted(plain - keys)}, unknown {sorted(keys - plain)}"
        bases = {split_plural(k)[0] for k in data if split_plural(k)[1] is not None}
        assert bases == counted, f"{lang}.json: counted texts missing {sorted(counted - bases)}, unknown {sorted(bases - counted)}"
        for base in counted:
            have = {split_plural(k)[1] for k in data if split_plural(k)[0] == base and split_plural(k)[1]}
            assert PLURALS[lang] <= have, f"{lang}.json: {base} needs the forms {sorted(PLURALS[lang])}, has {sorted(have)}"


def test_parameters_match_english() -> None:
    english = strings("en")
    for lang in LANGUAGES[1:]:
        for key, text in strings(lang).items():
            base, form = split_plural(key)
            model = english.get(key) or english.get(f"{base}.other") or ""
            want, got = set(PARAM.findall(model)), set(PARAM.findall(text))
            if form is not None:
                got.discard("n"), want.discard("n")  # a form may spell its number out ("one Trader")
            assert got == want, f"{lang}.json {key!r}: parameters {sorted(got)}, English has {sorted(want)}"


def test_translations_are_translated() -> None:
    """Not a copy of the English file: few texts may stay the same (names, "OK", symbols)."""
    english = strings("en")
    for lang in LANGUAGES[1:]:
        same = [k for k, v in strings(lang).items() if v == english.get(k) and len(v) > 12]
        assert len(same) <= len(english) // 50, f"{lang}.json: still English: {same[:20]}"


def client_sources() -> list[Path]:
    return sorted([*STATIC.glob("*.html"), *(p for p in (STATIC / "js").glob("*.js") if p.name != "i18n.js")])


def test_every_key_the_client_names_exists() -> None:
    english = strings("en")
    bases = {split_plural(k)[0] for k in english}
    missing: dict[str, set[str]] = {}
    for path in client_sources():
        text = path.read_text(encoding="utf-8")
        named = {m for rx in USES for m in rx.findall(text)}
        for attrs in ATTR_USE.findall(text):
            named |= {pair.split(":", 1)[1].strip() for pair in attrs.split(",") if ":" in pair}
        for key in named:
            if key not in english and key not in bases:
                missing.setdefault(path.name, set()).add(key)
        for prefix in DYNAMIC.findall(text):
            if not any(k.startswith(prefix + ".") for k in english):
                missing.setdefault(path.name, set()).add(prefix + ".*")
    assert not missing, f"keys the client names that en.json lacks: {missing}"


def test_the_client_uses_the_translations() -> None:
    """Every page loads i18n.js and offers the language picker."""
    for page in ("index.html", "game.html", "replay.html", "rules.html"):
        html = (STATIC / page).read_text(encoding="utf-8")
        script = re.search(r'<script type="module" src="/static/js/(\w+)\.js"', html)
        assert script, page
        js = (STATIC / "js" / f"{script.group(1)}.js").read_text(encoding="utf-8")
        assert "./i18n.js" in js, f"{page}: {script.group(1)}.js does not use i18n.js"
        assert "languagePicker" in js or 'id="lang"' in html, f"{page} has no language picker"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_rulebook_terms(lang: str) -> None:
    """The pieces and abilities carry the names the published rulebook of the language uses."""
    expected = {
        "en": {"piece.T": "Trader", "piece.M": "Merchant", "ability.keys": "Keys", "ability.actions": "Actions",
               "ability.book": "Liber Sophiae", "ability.bags": "Money bags", "marker.extra-office": "Extra office",
               "marker.swap": "Swap", "marker.+3": "+3", "marker.+4": "+4"},
        # Brazilian rulebook: Comerciante (cube) / Mercador (disc).
        "pt": {"piece.T": "Comerciante", "piece.M": "Mercador", "ability.keys": "Chaves", "ability.actions": "Ações",
               "ability.privilege": "Privilegium", "ability.book": "Liber Sophiae", "ability.bags": "Sacos de Dinheiro",
               "marker.extra-office": "Escritório Extra", "marker.swap": "Troca de Escritórios",
               "marker.+3": "3 Ações", "marker.+4": "4 Ações", "marker.improve": "Melhorar 1 Habilidade",
               "marker.remove3": "Remover 3 Marcadores"},
        # Italian rulebook: the cube is the Mercante, the disc the Grossista.
        "it": {"piece.T": "Mercante", "piece.M": "Grossista", "ability.keys": "Clavis Urbis",
               "ability.actions": "Actiones", "ability.privilege": "Privilegium", "ability.book": "Liber Sophiae",
               "ability.bags": "Borsa di Monete", "marker.extra-office": "Ufficio Aggiuntivo",
               "marker.swap": "Scambio di posto", "marker.+3": "3 Azioni", "marker.+4": "4 Azioni",
               "marker.improve": "Abilità", "marker.remove3": "Rimuovi 3"},
        # Spanish rulebook: "comerciante" for the cube (it names the disc the same: the disc is "mercader" here),
        # "actividades" for actions.
        "es": {"piece.T": "comerciante", "ability.keys": "Llaves de la ciudad", "ability.actions": "Actividades",
               "ability.privilege": "Privilegio", "ability.book": "Libro de conocimientos", "ability.bags": "Dinero",
               "marker.extra-office": "Oficina adicional", "marker.swap": "Oficina de intercambio",
               "marker.+3": "3 actividades", "marker.+4": "4 actividades", "marker.remove3": "Eliminar 3 recursos"},
        "cs": {"piece.T": "obchodník", "piece.M": "velkoobchodník", "ability.keys": "Městské klíče",
               "ability.actions": "Akce", "ability.privilege": "Privilegium", "ability.book": "Liber Sophiae",
               "ability.bags": "Bursa", "marker.extra-office": "Extra kontor", "marker.swap": "Výměna kontorů",
               "marker.+3": "+3", "marker.+4": "+4", "marker.improve": "Zlepšení schopnosti",
               "marker.remove3": "Odstranění tří"},
    }.get(lang, {})
    data = strings(lang)
    for key, word in expected.items():
        assert word.lower() in data[key].lower(), (lang, key, data[key])
