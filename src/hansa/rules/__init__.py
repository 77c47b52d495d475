"""The rules the engine implements, in the project's own words: ``en.md`` (also ``docs/rules.md``) and its
translations ``pt.md``, ``it.md``, ``es.md``, ``cs.md``.  Section numbers are stable: the engine's error messages
name them (``rule`` = "§2.6") and the web app links to them."""
