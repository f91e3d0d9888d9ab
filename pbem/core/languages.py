"""The players' languages by their codes, apart from the catalogs and Babel (`pbem.views.i18n`):
the command line's help names them without loading either."""

from __future__ import annotations

ENGLISH = "en"

# each language by its own name
LANGUAGES: dict[str, str] = {
    "en": "English",
    "it": "Italiano",
    "nl": "Nederlands",
    "fi": "Suomi",
    "hu": "Magyar",
    "he": "עברית",
}

__all__ = ["ENGLISH", "LANGUAGES"]
