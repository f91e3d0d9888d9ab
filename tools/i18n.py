"""The catalogs of the players' languages (issue 17), kept with Babel.

    python3 dev.py i18n                 extract the messages into pbem/locale/messages.pot,
                                        and make a missing language's catalog
    python3 dev.py i18n --update LANG   take the new messages of the .pot into LANG's catalog
                                        (its translations kept; nothing marked fuzzy)
    python3 dev.py i18n --update all    the same for every language
    python3 dev.py i18n --check         say what each catalog misses (exit 1 if anything)

The messages are found in the code (`Message(...)`, `counted(...)`, `N_(...)`) and in the
templates (`_()`, `gettext`, `ngettext`, `{% trans %}`). No compiled catalog is kept: the
service compiles each `.po` in memory when it first needs it (`pbem.views.i18n.translations`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "pbem" / "locale"
POT = LOCALE / "messages.pot"
LANGUAGES = ("it", "nl", "fi", "hu", "he")  # pbem.views.i18n.TRANSLATED, without importing pbem

# where the messages are, and how each kind of file is read
SOURCES: tuple[tuple[Path, list[tuple[str, str]]], ...] = (
    (ROOT / "engine", [("**.py", "python")]),
    (ROOT / "pbem", [("**.py", "python")]),
    (ROOT / "templates", [("**.j2", "jinja2.ext:babel_extract")]),
)
KEYWORDS = {
    "Message": (1,),
    "counted": (1, 2),
    "N_": (1,),
    "_": None,
    "gettext": None,
    "ngettext": (1, 2),
}
TEMPLATE_OPTIONS = {"extensions": "jinja2.ext.i18n", "trimmed": "false"}
# the game master's mails stay in English: the game master is the host's person (what the
# game master's commands tell the players is made of messages in pbem/commands/gm.py)
NOT_TRANSLATED = ("gm.txt.j2", "gm.html.j2", "pbem/host/cli.py")


def extracted() -> Catalog:
    """Every message of the code and the templates, with its places and translator notes."""
    catalog = Catalog(project="Tongiaki by email", charset="utf-8", fuzzy=False)
    catalog.creation_date = datetime(2026, 1, 1, tzinfo=UTC)  # stable file
    for folder, method_map in SOURCES:
        options = {"**.j2": TEMPLATE_OPTIONS}
        found = extract_from_dir(
            folder,
            method_map,
            options_map=options,
            keywords=KEYWORDS,
            comment_tags=("Translators:",),
            strip_comment_tags=True,
        )
        for filename, lineno, message, comments, context in found:
            where = f"{folder.relative_to(ROOT)}/{filename}"
            if where.endswith(NOT_TRANSLATED) or not _id(message):
                continue
            catalog.add(
                message,
                None,
                [(where, lineno)],
                auto_comments=comments,
                context=context,
                flags=_flags(message),
            )
    return catalog


def _id(message: str | tuple[str, ...] | list[str]) -> str:
    return message if isinstance(message, str) else message[0]


def _flags(message: str | tuple[str, ...]) -> tuple[str, ...]:
    text = _id(message)
    if "%(" in text:
        return ("python-format",)
    if "{" in text:
        return ("python-brace-format",)
    return ()


def write(catalog: Catalog, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        write_po(handle, catalog, width=100, sort_output=False, ignore_obsolete=True)


def read(path: Path, lang: str | None = None) -> Catalog:
    with path.open("rb") as handle:
        return read_po(handle, locale=lang)


def catalog_path(lang: str) -> Path:
    return LOCALE / lang / "LC_MESSAGES" / "messages.po"


def made(lang: str, template: Catalog) -> Catalog:
    """A new, empty catalog of `lang` (its plural forms from Babel's locale data)."""
    catalog = Catalog(locale=lang, project="Tongiaki by email", charset="utf-8", fuzzy=False)
    catalog.creation_date = template.creation_date
    catalog.update(template, no_fuzzy_matching=True)
    return catalog


def updated(lang: str, template: Catalog) -> Catalog:
    """`lang`'s catalog with the messages of `template`: translations kept, new messages
    empty, messages gone dropped; nothing guessed (no fuzzy matching)."""
    catalog = read(catalog_path(lang), lang)
    catalog.update(template, no_fuzzy_matching=True, update_header_comment=False)
    catalog.fuzzy = False
    return catalog


def missing(catalog: Catalog) -> Iterator[str]:
    """What a catalog lacks: untranslated or fuzzy messages, plural forms left empty."""
    for message in catalog:
        if not message.id:
            continue
        shown = _id(message.id)
        if message.fuzzy:
            yield f"fuzzy: {shown!r}"
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if not all(strings):
            yield f"untranslated: {shown!r}"


def _languages(chosen: str) -> Iterable[str]:
    if chosen == "all":
        return LANGUAGES
    if chosen not in LANGUAGES:
        raise SystemExit(f"unknown language {chosen!r}: one of {', '.join(LANGUAGES)}, or all")
    return (chosen,)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--update", metavar="LANG", help="update LANG's catalog (or all)")
    parser.add_argument("--check", action="store_true", help="say what each catalog misses")
    args = parser.parse_args(argv)
    if args.check:
        lacking = 0
        for lang in LANGUAGES:
            gaps = list(missing(read(catalog_path(lang), lang)))
            lacking += len(gaps)
            print(f"{lang}: {len(gaps)} missing")
            for gap in gaps[:20]:
                print(f"  {gap}")
        return 1 if lacking else 0
    if args.update:
        template = read(POT)
        for lang in _languages(args.update):
            write(updated(lang, template), catalog_path(lang))
            print(f"updated {catalog_path(lang).relative_to(ROOT)}")
        return 0
    catalog = extracted()
    write(catalog, POT)
    print(f"{len(catalog)} messages in {POT.relative_to(ROOT)}")
    for lang in LANGUAGES:
        if not catalog_path(lang).exists():
            write(made(lang, catalog), catalog_path(lang))
            print(f"made {catalog_path(lang).relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["LANGUAGES", "Message", "catalog_path", "extracted", "missing", "read"]
