"""The languages of the players' mails (issue 17): the catalogs, and `Words`, what one reader's
mails are said in (their language and time zone), made once per recipient.

The catalogs are `pbem/locale/<lang>/LC_MESSAGES/messages.po`, compiled in memory on first
use. English is the text of the code itself: a `Words` in English changes nothing.
Text made before its reader is known (the engine's explanations, the news of a round) is a
`engine.Message`: `Words.say` translates it.
"""

from __future__ import annotations

import gettext
import re
import string
import tomllib
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, is_dataclass, replace
from datetime import datetime
from functools import cache
from io import BytesIO
from pathlib import Path
from typing import Any, TypeVar

from babel import Locale
from babel.dates import format_skeleton
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from markupsafe import Markup

from engine import ISLAND_ALIASES, SEAS, Joined, Message, counted, without_accents
from pbem.core import ENGLISH, LANGUAGES, format_duration, time_zone

TRANSLATED = tuple(code for code in LANGUAGES if code != ENGLISH)  # the catalogs
# the languages that write their own name in lower case inside a sentence ("in italiano")
LOWER_IN_A_SENTENCE = {"it", "fi", "hu"}


def named(code: str) -> str:
    """A language's own name as a sentence in that language writes it: 'italiano',
    'Nederlands' (the lists of languages keep 'Italiano')."""
    name = LANGUAGES.get(code, code)
    return name.lower() if code in LOWER_IN_A_SENTENCE else name


RTL = {"he"}

LOCALE_DIR = Path(__file__).resolve().parents[1] / "locale"

LRM = "\u200e"  # LEFT-TO-RIGHT MARK: keeps a line of notation left to right in a bidi text
RLM = "\u200f"  # RIGHT-TO-LEFT MARK: a line of prose right to left, whatever it begins with

T = TypeVar("T")

# -- the names in sentences (issue 29) ---------------------------------------------------------
# The islands, the sea tiles, the colours and the directions are a closed set: each language
# keeps the forms its sentences need in `pbem/locale/LANG/names.toml` (beside the glossary),
# and a translation names the form it wants in the placeholder's format spec:
# "{island:sublative}" (hu: "Tongára"), "{direction:illative}" (fi: "etelään"),
# "{island:le}" (he: "ל־Tonga"). Hungarian writes the article "a(z)" in its catalog: it is
# said "a" or "az" by the first sound of what follows ("az Oahu", "a Tonga", "az 5.").
FORM_SPEC = re.compile(r"[A-Za-z]{2,}")
_PERCENT_FORM = re.compile(r"%\((\w+):([A-Za-z]{2,})\)s")  # in a template: "%(colour:adessive)s"
# the letters whose Hungarian name begins with a vowel (A, E, ef, I, el, em, en, O, er, es...)
_HU_VOWEL_LETTERS = set("AEFILMNORSXYUÁÉÍÓÖŐÚÜŰ")
_HU_VOWELS = set("aáeéiíoóöőuúüű")
MAQAF = "\u05be"
# a Hebrew prefix letter (after no other Hebrew letter) with a maqaf before a Hebrew letter
_HEBREW = "\u05d0-\u05ea"
_HE_PREFIXES = "\u05d1\u05d5\u05dc\u05de\u05e9\u05d4"  # bet, vav, lamed, mem, shin, he
_HE_PREFIX = re.compile(f"(?<![{_HEBREW}])(\u05d5?[{_HE_PREFIXES}]){MAQAF}(?=[{_HEBREW}])")
_HU_ARTICLE = re.compile(r"\b([Aa])\(z\) ((?:<[^>]*>)*)(\S+)")


def names_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "names.toml"


@cache
def name_forms(lang: str) -> dict[str, dict[str, str]]:
    """The forms of each name in `lang` (the name as the language says it in the
    nominative, to its forms by their case): {} for a language without a table."""
    path = names_path(lang)
    if not path.is_file():
        return {}
    with path.open("rb") as handle:
        table = tomllib.load(handle)
    return {name: dict(forms) for name, forms in table.get("names", {}).items()}


def hungarian_article(text: str) -> str:
    """'a' or 'az' before `text`, by its first sound: 'az Oahu', 'a Tonga', 'az 5.', 'a 10.',
    'az 1000', 'az F' (ef), 'a K' (ká)."""
    digits = re.match(r"\d+", text)
    if digits:
        number = digits.group()
        # egy, ezer, egymillió; öt, ötven, ötszáz...: the numbers said with a vowel first
        if number[0] == "5":
            return "az"
        return "az" if number[0] == "1" and len(number) % 3 == 1 else "a"
    if re.match(r"[A-ZÁÉÍÓÖŐÚÜŰ](?!\w)", text):
        return "az" if text[0] in _HU_VOWEL_LETTERS else "a"
    return "az" if text[:1].lower() in _HU_VOWELS else "a"


def settled(lang: str, text: str) -> str:
    """Text with the small words that depend on the word after them settled by it: in
    Hungarian each "a(z)" said "a" or "az" (its markup passed over); in Hebrew a prefix
    written with a maqaf before a placeholder (vav, maqaf, {seas}) glued to a Hebrew word
    and kept before a Latin name or a digit. Other languages' text as it is."""
    if lang == "he" and MAQAF in text:
        said = _HE_PREFIX.sub(r"\1", text)
    elif lang == "hu" and "(z) " in text:

        def article(found: re.Match[str]) -> str:
            word = hungarian_article(found.group(3))
            if found.group(1) == "A":
                word = word.capitalize()
            return f"{word} {found.group(2)}{found.group(3)}"

        said = _HU_ARTICLE.sub(article, text)
    else:
        return text
    return Markup(said) if isinstance(text, Markup) else said


def said_as(lang: str, name: str, case: str) -> str:
    """`name` (said in `lang`, in the nominative) in the case `case` of the language's table;
    a name the table lacks stays as it is (tests/test_names.py proves the tables whole)."""
    return name_forms(lang).get(name, {}).get(case, name)


class _Forms(string.Formatter):
    """str.format with the forms of the names: a spec of letters ("sublative") is a case
    of `names.toml`; any other spec is Python's."""

    def __init__(self, lang: str) -> None:
        self.lang = lang

    def format_field(self, value: Any, format_spec: str) -> Any:
        if FORM_SPEC.fullmatch(format_spec):
            return said_as(self.lang, format(value), format_spec)
        return super().format_field(value, format_spec)


@cache
def _forms(lang: str) -> _Forms:
    return _Forms(lang)


def filled(lang: str, text: str, params: Mapping[str, Any]) -> str:
    """`text` of `lang` with its placeholders filled in, each name in the form it asks for."""
    if params:
        text = text.format(**params) if ":" not in text else _forms(lang).format(text, **params)
    return settled(lang, text)


def catalog_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po"


@cache
def translations(lang: str) -> gettext.NullTranslations:
    """The catalog of `lang` compiled in memory (nothing compiled is kept on disk); English,
    or a language whose catalog is missing, is the text of the code."""
    path = catalog_path(lang)
    if lang == ENGLISH or not path.is_file():
        return gettext.NullTranslations()
    with path.open("rb") as handle:
        catalog = read_po(handle, locale=lang)
    compiled = BytesIO()
    write_mo(compiled, catalog)  # untranslated and fuzzy messages are left out: English
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)


def catalog_problems(folder: Path = LOCALE_DIR) -> list[str]:
    """What keeps a listed language's catalog in `folder` from being compiled (its mails
    would fall back to English): missing, unreadable or invalid; [] when all compile. A file
    is compiled once while it stays the same (path, size, times): every `pbem` command that
    serves checks them, and a test suite runs hundreds in one process."""
    problems = []
    for lang in TRANSLATED:
        path = folder / lang / "LC_MESSAGES" / "messages.po"
        if not path.is_file():
            problems.append(f"{lang}: no catalog at {path}")
            continue
        stat = path.stat()
        key = (str(path), stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino)
        if key not in _compiled_catalogs:
            _compiled_catalogs[key] = _compile_problem(lang, path)
        problem = _compiled_catalogs[key]
        if problem:
            problems.append(problem)
    return problems


# each catalog file checked, by (path, size, modification and change times, inode): what
# keeps it from compiling, or "" (a chmod changes the change time, an edit the others)
_compiled_catalogs: dict[tuple[str, int, int, int, int], str] = {}


def _compile_problem(lang: str, path: Path) -> str:
    try:
        with path.open("rb") as handle:
            catalog = read_po(handle, locale=lang, abort_invalid=True)
        write_mo(BytesIO(), catalog)
    except Exception as error:  # any fault of the file: said, not raised
        return f"{lang}: {path} cannot be compiled: {error}"
    return ""


def known(lang: str) -> bool:
    return lang in LANGUAGES


def choices() -> str:
    """'en (English), it (Italiano), ...'"""
    return ", ".join(f"{code} ({name})" for code, name in LANGUAGES.items())


class Stamp(str):
    """A moment as a reader reads it: English text, with the moment and the zone kept so that
    another language writes it in its own way. A stamp told to everyone (`everyone`: news, an
    answer, a calendar event) is read in UTC and, by a reader who set a zone, there too."""

    moment: datetime
    zone: str  # a zone name; "UTC" for UTC
    year: bool
    everyone: bool

    def __new__(
        cls, text: str, moment: datetime, zone: str, *, year: bool, everyone: bool = False
    ) -> Stamp:
        made = super().__new__(cls, text)
        made.moment, made.zone, made.year, made.everyone = moment, zone, year, everyone
        return made

    def __reduce__(self) -> tuple[Any, ...]:
        return (str, (str(self),))


def stamp(
    moment: datetime, zone: str = "UTC", *, year: bool = True, everyone: bool = False
) -> Stamp | None:
    """'Mon 02 Mar 2026, 18:00 UTC' (with `year`), 'Mon 02 Mar, 19:00 Europe/Berlin'; None
    when `zone` names no known time zone. A stamp for `everyone` is read in each reader's
    own zone too (`Words.when`)."""
    where = time_zone(zone)
    if where is None:
        return None
    local = moment.astimezone(where)
    text = local.strftime(f"%a %d %b{' %Y' if year else ''}, %H:%M {zone}")
    return Stamp(text, moment, zone, year=year, everyone=everyone)


def zone_known(zone: str) -> bool:
    return time_zone(zone) is not None


def stamped(text: object) -> bool:
    """Whether `text` holds a moment told to everyone (a reader's zone changes how it reads)."""
    if isinstance(text, Stamp):
        return text.everyone
    if isinstance(text, Message):
        return any(stamped(value) for value in text.params.values())
    if isinstance(text, Joined):
        return any(stamped(part) for part in text.parts)
    return False


# the islands English readers know by another name than the one printed on the tile
ENGLISH_NAMES = {printed: english for english, printed in ISLAND_ALIASES.items()}
_PRINTED = re.compile("|".join(rf"\b{re.escape(name)}\b" for name in ENGLISH_NAMES))


def island_name(name: str, lang: str | None) -> str:
    """An island as a reader of `lang` reads it: 'Fiji' in English; in the other languages
    (and for None) the name printed on the tile, 'Fidschi'. Input takes both everywhere."""
    return ENGLISH_NAMES.get(name, name) if lang == ENGLISH else name


class Named(str):
    """Text that names an island English readers call otherwise: the English text, with
    `other` (the printed names) for the readers of every other language, or the text of a
    language in `said` (the map, in each language's words)."""

    said: Mapping[str, str]
    _other: str | Callable[[], str]

    def __new__(
        cls, english: str, other: str | Callable[[], str], said: Mapping[str, str] | None = None
    ) -> Named:
        made = super().__new__(cls, english)
        made._other, made.said = other, said or {}
        return made

    @property
    def other(self) -> str:
        """The text with the printed names (given as a function: made when first read)."""
        if not isinstance(self._other, str):
            self._other = self._other()
        return self._other

    def __reduce__(self) -> tuple[Any, ...]:
        return (str, (str(self),))


def printed(text: str) -> str:
    """The text with the names printed on the tiles (`Named` text's other side)."""
    return text.other if isinstance(text, Named) else text


def island(name: str) -> str:
    """An island's name in a view, said by `island_name` in each reader's language."""
    english = island_name(name, ENGLISH)
    return name if english == name else Named(english, name)


def notation(line: str) -> str:
    """A command in a view ('expand Fidschi a'), with each reader's names of the islands:
    English readers read 'expand Fiji a', which is a command they can send."""
    if not ENGLISH_NAMES:
        return line
    english = _PRINTED.sub(lambda found: ENGLISH_NAMES[found.group()], line)
    return line if english == line else Named(english, line)


def names_printed(texts: Iterable[str]) -> bool:
    """Whether any of `texts` names an island English readers call otherwise ('Fidschi'):
    a view made of them alone is the same `with_names`."""
    return any(_PRINTED.search(text) for text in texts) if ENGLISH_NAMES else False


def with_names(value: T) -> T:
    """A view (a dataclass, a tuple, a message, a line) whose islands are said in each
    reader's language (`island_name`): every name printed on a tile that English readers
    call otherwise, in every message, at any depth, and in every command. `Named` text
    (the map, a key line) is left as it is."""
    return _named(value)  # type: ignore[no-any-return]


_NAMELESS = (int, bool, float, type(None))  # what a view holds that names nothing


@cache
def _field_names(kind: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(kind))


def _named(value: Any) -> Any:
    if type(value) in _NAMELESS or isinstance(value, (Named, Stamp)) or not ENGLISH_NAMES:
        return value
    if isinstance(value, Message):
        params = {key: _named(item) for key, item in value.params.items()}
        if all(params[key] is item for key, item in value.params.items()):
            return value
        return Message._make(
            value.template, value.plural, value.number, params, lower_first=value.lower_first
        )
    if isinstance(value, Joined):
        parts = [_named(part) for part in value.parts]
        same = all(a is b for a, b in zip(parts, value.parts, strict=True))
        return value if same else Joined(value.separator, parts)
    if isinstance(value, str):
        return notation(value)
    if isinstance(value, tuple):
        items = tuple(_named(item) for item in value)
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    if is_dataclass(value) and not isinstance(value, type):
        names = _field_names(type(value))
        old = [getattr(value, name) for name in names]
        new = [_named(item) for item in old]
        if all(a is b for a, b in zip(new, old, strict=True)):
            return value
        return replace(value, **dict(zip(names, new, strict=True)))
    return value


@dataclass(frozen=True)
class Words:
    """What one reader's text is said in: a language of `LANGUAGES`, and the time zone the
    reader set (a moment told to everyone is shown there too)."""

    lang: str = ENGLISH
    tz: str | None = None

    @property
    def english(self) -> bool:
        return self.lang == ENGLISH

    @property
    def plain(self) -> bool:
        """Whether text is read as the code says it: English, no zone of the reader's own."""
        return self.english and self.tz is None

    @property
    def rtl(self) -> bool:
        return self.lang in RTL

    @property
    def direction(self) -> str:
        return "rtl" if self.rtl else "ltr"

    @property
    def catalog(self) -> gettext.NullTranslations:
        return translations(self.lang)

    def _(self, template: str, /, **params: Any) -> str:
        """`template` in this language, its `{name}` placeholders filled in."""
        said = self.catalog.gettext(template)
        return filled(self.lang, said, params)

    def n_(self, singular: str, plural: str, count: int, /, **params: Any) -> str:
        """The form for `count` (given as `{count}` too), filled in."""
        said = self.catalog.ngettext(singular, plural, count)
        return filled(self.lang, said, {"count": count, **params})

    def say(self, text: str) -> str:
        """A message (or plain text, kept as it is) in this language."""
        if self.plain or (self.english and not stamped(text)):
            return str(text)
        if isinstance(text, Named):
            said = text.said.get(self.lang)
            return self.say(text.other if said is None else said)
        if isinstance(text, Message):
            if text.plural is not None:
                assert text.number is not None
                said = self.catalog.ngettext(text.template, text.plural, text.number)
            else:
                said = self.catalog.gettext(text.template)
            params = {name: self._param(value) for name, value in text.params.items()}
            out = filled(self.lang, said, params)
            return out[:1].lower() + out[1:] if text.lower_first else out
        if isinstance(text, Joined):
            return text.separator.join(self.say(part) for part in text.parts)
        if isinstance(text, Stamp):
            return self.when(text)
        return str(text)

    def _param(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.say(value)
        if isinstance(value, datetime):
            return self.when(stamp(value) or value)
        return value

    def when(self, moment: Stamp | datetime) -> str:
        """A moment in this language's way, in the stamp's zone; a moment told to everyone
        in the reader's zone too, when they set one: 'Mon 02 Mar 2026, 18:00 UTC (Tue 03
        Mar, 07:00 Pacific/Tongatapu)'."""
        if isinstance(moment, datetime):
            moment = stamp(moment) or Stamp(str(moment), moment, "UTC", year=True)
        said = self._stamp(moment)
        local = stamp(moment.moment, self.tz, year=False) if self.tz else None
        if not moment.everyone or local is None or local.zone == moment.zone:
            return said
        # Translators: a moment in UTC, then in the reader's own time zone
        return self.say(Message("{utc} ({local})", utc=said, local=self._stamp(local)))

    def _stamp(self, moment: Stamp) -> str:
        """One stamp in this language's way, in its own zone."""
        if self.english:
            return str(moment)
        zone = time_zone(moment.zone)  # a stamp is made only in a known zone
        day = format_skeleton(
            "yMMMEd" if moment.year else "MMMEd", moment.moment, tzinfo=zone, locale=self.locale
        )
        time = format_skeleton("Hm", moment.moment, tzinfo=zone, locale=self.locale)
        return f"{day}, {time} {moment.zone}"

    @property
    def locale(self) -> Locale:
        return Locale.parse(self.lang)

    def translated(self, value: T) -> T:
        """A view with every message in it said in this language (the view itself in
        English)."""
        if self.plain:
            return value
        return self._walk(value)  # type: ignore[no-any-return]

    def _walk(self, value: Any) -> Any:
        """`value` with its messages said; the same object when there were none (so that
        the board of a round, translated once, is rendered once)."""
        if isinstance(value, str):
            if self.english and not stamped(value):
                return value  # English with a zone: only the moments told to everyone change
            return self.say(value) if isinstance(value, (Message, Joined, Stamp, Named)) else value
        if isinstance(value, tuple):
            items = tuple(self._walk(item) for item in value)
            return value if all(a is b for a, b in zip(items, value, strict=True)) else items
        if is_dataclass(value) and not isinstance(value, type):
            key = (id(value), self.lang, self.tz)
            hit = _said_cache.get(key)
            if hit is not None and hit[0] is value:
                return hit[1]
            old = {f.name: getattr(value, f.name) for f in fields(value)}
            new = {name: self._walk(item) for name, item in old.items()}
            if all(new[name] is old[name] for name in old):
                return value
            said = replace(value, **new)
            _said_cache[key] = (value, said)
            while len(_said_cache) > 64:
                _said_cache.popitem(last=False)
            return said
        return value

    def colour(self, colour: str) -> str:
        """A boat colour's name in this language."""
        return self.say(COLOUR_NAMES[colour]) if colour in COLOUR_NAMES else colour

    def _forms_of(self, said: str, params: dict[str, Any]) -> dict[str, Any]:
        """A template's parameters with the forms its text asks for: "%(colour:adessive)s"
        is the colour in that case (`said_as`)."""
        for name, case in _PERCENT_FORM.findall(said):
            if name in params:
                params[f"{name}:{case}"] = said_as(self.lang, str(params[name]), case)
        return params

    # the functions the templates call (jinja2.ext.i18n, new style: named placeholders)
    def template_globals(self) -> dict[str, Callable[..., Any]]:
        from jinja2 import pass_eval_context

        # a text without parameters is said the same each time: once, in text and in HTML
        plain: dict[tuple[str, bool], str] = {}

        @pass_eval_context
        def gettext_(context: Any, template: str, **params: Any) -> str:
            if not params:
                key = (template, bool(context.autoescape))
                found = plain.get(key)
                if found is None:
                    said = _filled(key[1], self.catalog.gettext(template), params)
                    found = plain[key] = settled(self.lang, said)
                return found
            said = self.catalog.gettext(template)
            filled = _filled(context.autoescape, said, self._forms_of(said, params))
            return settled(self.lang, filled)

        @pass_eval_context
        def ngettext_(context: Any, singular: str, plural: str, count: int, **params: Any) -> str:
            said = self.catalog.ngettext(singular, plural, count)
            params = self._forms_of(said, {"num": count, **params})
            filled = _filled(context.autoescape, said, params)
            return settled(self.lang, filled)

        return {"gettext": gettext_, "_": gettext_, "ngettext": ngettext_}


def _filled(autoescape: bool, said: str, params: Mapping[str, Any]) -> str:
    """A template's text with its `%(name)s` filled in; in HTML the text is markup and the
    values are escaped (as `jinja2.ext.i18n` does in its new style)."""
    if autoescape:
        return Markup(said) % params if params else Markup(said)
    return said % params if params else said


COLOUR_NAMES: dict[str, Message] = {
    # Translators: a boat colour, as in "You play blue" and "Ann (blue)"
    "blue": Message("blue"),
    # Translators: a boat colour
    "red": Message("red"),
    # Translators: a boat colour
    "green": Message("green"),
    # Translators: a boat colour
    "yellow": Message("yellow"),
    # Translators: a boat colour
    "orange": Message("orange"),
    # Translators: a boat colour
    "purple": Message("purple"),
}

# Boats of one colour, as in "2 red, 1 green": the colour word agrees with the boats and
# their number where a language wants it ("2 rosse, 1 verde", "2 punaista, 1 vihreä").
BOATS_OF_COLOUR: dict[str, Callable[[int], Message]] = {
    # Translators: boats of one colour, as in "2 blue, 1 red" (the colour agrees with boats)
    "blue": lambda n: counted("{count} blue", "{count} blue", n),
    # Translators: boats of one colour, as in "2 red, 1 blue" (the colour agrees with boats)
    "red": lambda n: counted("{count} red", "{count} red", n),
    # Translators: boats of one colour, as in "2 green, 1 red" (the colour agrees with boats)
    "green": lambda n: counted("{count} green", "{count} green", n),
    # Translators: boats of one colour, as in "2 yellow, 1 red" (the colour agrees with boats)
    "yellow": lambda n: counted("{count} yellow", "{count} yellow", n),
    # Translators: boats of one colour, as in "2 orange, 1 red" (the colour agrees with boats)
    "orange": lambda n: counted("{count} orange", "{count} orange", n),
    # Translators: boats of one colour, as in "2 purple, 1 red" (the colour agrees with boats)
    "purple": lambda n: counted("{count} purple", "{count} purple", n),
}


def boats_of(colour: str, count: int) -> str:
    """'2 red': `count` boats of one colour."""
    said = BOATS_OF_COLOUR.get(colour)
    if said is None:
        return Message("{count} {colour}", count=count, colour=colour)
    return said(count)


ENGLISH_WORDS = Words(ENGLISH)


# the units of a duration in a sentence (issue 29): words, in each language's plural forms
DURATION_UNITS: dict[str, Callable[[int], Message]] = {
    # Translators: a part of a duration in a sentence, as in "up to 7 days per game"
    "d": lambda n: counted("{count} day", "{count} days", n),
    # Translators: a part of a duration in a sentence, as in "1 day and 23 hours"
    "h": lambda n: counted("{count} hour", "{count} hours", n),
    # Translators: a part of a duration in a sentence, as in "23 hours and 58 minutes"
    "m": lambda n: counted("{count} minute", "{count} minutes", n),
    # Translators: a part of a duration in a sentence, as in "30 seconds"
    "s": lambda n: counted("{count} second", "{count} seconds", n),
}


def duration(seconds: int) -> str:
    """A duration in a sentence, in words ('7 days', '1 day and 23 hours'), rounded as
    `format_duration` rounds it; commands take and the game master's lines show the notation
    ('7d', '1d 23h')."""
    parts = [DURATION_UNITS[part[-1]](int(part[:-1])) for part in format_duration(seconds).split()]
    return listed(parts)


def listed(items: Sequence[str]) -> str:
    """'Ann', 'Ann and Bob', 'Ann, Bob and Cy': each part said in the reader's language."""
    if len(items) == 1:
        return items[0]
    # Translators: the end of a list, as in "Ann, Bob and Cy" ({first} is "Ann, Bob")
    return Message("{first} and {last}", first=Joined(", ", items[:-1]), last=items[-1])


# views said in a language lately, by the view's id and the language (the view kept, so that
# its id is not reused while it is here)
_said_cache: OrderedDict[tuple[int, str, str | None], tuple[Any, Any]] = OrderedDict()


@cache
def words(lang: str | None, tz: str | None = None) -> Words:
    """The words of `lang` (English when it is not one of `LANGUAGES`) for a reader in the
    time zone `tz` (None, or a name no zone has: UTC only)."""
    zone = tz if tz and zone_known(tz) else None
    known_lang = lang if lang in LANGUAGES else ENGLISH
    return ENGLISH_WORDS if known_lang == ENGLISH and zone is None else Words(known_lang, zone)


@cache
def _sea_words() -> re.Pattern[str]:
    """A sea tile named with any language's word for it ('mare K', 'water K', 'ים K')."""
    said = {"sea"}
    for lang in TRANSLATED:
        word, _, rest = words(lang).catalog.gettext("sea {tile}").partition(" {tile}")
        if word and not rest:
            said |= {word.lower(), without_accents(word).lower()}
    alternatives = "|".join(re.escape(w) for w in sorted(said, key=len, reverse=True))
    letters = "".join(sorted(SEAS))
    return re.compile(rf"(?<!\w)(?:{alternatives})\s+([{letters}])(?!\w)", re.IGNORECASE)


def sea_notation(line: str) -> str:
    """A `put` line that names a sea tile as the map of a reader's language does ('put mare K
    NW red S') in the notation ('put sea K NW red S'); any other line as it is."""
    verb, space, rest = line.strip().partition(" ")
    if verb.lower() != "put":
        return line
    plain = without_accents(rest)  # as the notation reads it: 'oceán K' is 'óceán K'
    said = _sea_words().sub(lambda m: f"sea {m[1].upper()}", plain)
    return line if said == plain else verb + space + said


def display_width(text: str) -> int:
    """The columns a line takes on screen: the invisible direction marks take none."""
    return len(re.sub("[\u200e\u200f\u2066-\u2069\u202a-\u202e]", "", text))


__all__ = [
    "ENGLISH",
    "ENGLISH_NAMES",
    "ENGLISH_WORDS",
    "LANGUAGES",
    "LRM",
    "RLM",
    "RTL",
    "TRANSLATED",
    "Named",
    "Stamp",
    "Words",
    "catalog_path",
    "catalog_problems",
    "choices",
    "display_width",
    "duration",
    "filled",
    "hungarian_article",
    "island",
    "island_name",
    "known",
    "listed",
    "name_forms",
    "named",
    "names_printed",
    "notation",
    "printed",
    "said_as",
    "sea_notation",
    "settled",
    "stamp",
    "stamped",
    "translations",
    "with_names",
    "words",
]
