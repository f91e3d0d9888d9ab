"""Rendering a mail view into its plain-text and HTML parts with the Jinja2 templates."""

from __future__ import annotations

import re
import textwrap
import threading
from collections import OrderedDict
from collections.abc import Hashable, Mapping, MutableMapping
from contextlib import suppress
from dataclasses import fields
from functools import cache, lru_cache, partial
from pathlib import Path
from typing import Any

from jinja2 import (
    Environment,
    FileSystemBytecodeCache,
    FileSystemLoader,
    StrictUndefined,
    Template,
    pass_context,
)
from jinja2.bccache import Bucket, BytecodeCache
from jinja2.environment import TemplateModule
from jinja2.runtime import Context
from markupsafe import Markup

from engine import Message
from pbem.core import AnswerTopic
from pbem.views.i18n import ENGLISH_WORDS, LRM, RLM, Words
from pbem.views.rulestext import BlockKind
from pbem.views.rulestext import blocks as rules_blocks
from pbem.views.view import Board, CommandHelp, GmMail, Mail, Notice

WIDTH = 78

# boat colours on screen: background and the letter's colour on it
BOAT_COLOURS = {
    "blue": ("#1f5fbf", "#ffffff"),
    "red": ("#c62828", "#ffffff"),
    "green": ("#2e8b3d", "#ffffff"),
    "yellow": ("#f2c40f", "#1d2a33"),
    "orange": ("#ef7d18", "#1d2a33"),
    "purple": ("#7b3fa0", "#ffffff"),
}


def template_dir() -> Path:
    """`templates/` of the checkout, or the copy installed as package data (`pbem/templates`:
    a folder, not a package, so not found through importlib.resources)."""
    checkout = Path(__file__).resolve().parents[2] / "templates"
    if checkout.is_dir():
        return checkout
    return Path(__file__).resolve().parents[1] / "templates"


def wrap(text: str, width: int = WIDTH, first: str = "", indent: str = "") -> str:
    """Fill a paragraph to `width` columns; words longer than a line are kept whole."""
    text = str(text)
    lead = first or indent
    if len(lead) + len(text) <= width and text.isprintable():
        return lead + text
    return _filled(text, width, lead, indent)


@lru_cache(maxsize=2048)
def _filled(text: str, width: int, first: str, indent: str) -> str:
    """A paragraph filled (the mails of a round say many of the same paragraphs)."""
    return textwrap.fill(
        text,
        width=width,
        initial_indent=first,
        subsequent_indent=indent,
        break_long_words=False,
        break_on_hyphens=False,
    )


class _Template(Template):
    """A template whose module imported `with context` is made once per direction when it
    is `STYLE`, whose values depend on `rtl` alone and whose macros on their arguments: an
    HTML mail imports it from every part (base, the mail's own, decision, players), and
    Jinja evaluates a module imported with context again each time."""

    def make_module(
        self,
        vars: dict[str, Any] | None = None,
        shared: bool = False,
        locals: Mapping[str, Any] | None = None,
    ) -> TemplateModule:
        if self.name != STYLE or not shared or vars is None:
            return super().make_module(vars, shared, locals)
        rtl = bool(vars.get("rtl", False))
        with _styles_lock:
            module = _styles.get(rtl)
        if module is None:
            module = super().make_module({"rtl": rtl}, shared, locals)
            with _styles_lock:
                _styles[rtl] = module
        return module


STYLE = "_style.html.j2"
_styles: dict[bool, TemplateModule] = {}  # the style module, left to right and right to left
_styles_lock = threading.Lock()


class _Environment(Environment):
    """Jinja's environment with each template's globals in one plain dict: Jinja keeps them
    as a ChainMap over the environment's, which it copies for every template rendered,
    included or imported (a ChainMap is copied key by key in Python). The globals are set
    once, in `environment`, before any template is loaded."""

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        return {**self.globals, **(d or {})}


_Environment.template_class = _Template


@cache
def environment() -> Environment:
    env = _Environment(
        loader=FileSystemLoader(template_dir()),
        autoescape=lambda name: bool(name and name.endswith(".html.j2")),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=StrictUndefined,
        extensions=["jinja2.ext.i18n"],
        auto_reload=False,  # the templates ship with the code: no stat of each per mail
        bytecode_cache=_kept_templates(),
    )
    env.filters["wrap"] = wrap
    env.filters["bg"] = lambda colour: BOAT_COLOURS[colour][0]
    env.filters["fg"] = lambda colour: BOAT_COLOURS[colour][1]
    env.filters["lines"] = _lines
    env.filters["command_lines"] = _command_lines
    env.filters["columns"] = _columns
    env.filters["log_lines"] = _log_lines
    env.globals.update(said_in(ENGLISH_WORDS))
    env.globals["AnswerTopic"] = AnswerTopic  # what a command that looks answered
    env.globals["BlockKind"] = BlockKind  # what a block of the rules is
    return env


class _KeptTemplates(FileSystemBytecodeCache):
    """The templates compiled by an earlier process, in Jinja's folder for the user (in the
    system's temporary folder, made private, refused if another user made it): compiling
    them costs each `pbem` command that mails some 0.6 s of CPU. Jinja reads a kept template
    only when its source's checksum and Python's version match. A kept file that cannot be
    read or written (a full disk, a damaged file) is compiled as if it were not there."""

    def load_bytecode(self, bucket: Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # damaged: compiled again (and written anew)
            bucket.reset()

    def dump_bytecode(self, bucket: Bucket) -> None:
        with suppress(OSError):  # kept for next time only if it can be
            super().dump_bytecode(bucket)


def _kept_templates() -> BytecodeCache | None:
    """The folder of compiled templates, or none if it cannot be made ours alone."""
    try:
        return _KeptTemplates()
    except (OSError, RuntimeError):  # no temporary folder, or one another user made unsafe
        return None


@pass_context
def _lines(context: Context, text: str) -> str:
    """Lines of notation, a map or a list of options, kept left to right in a right-to-left
    text: each begins with a LEFT-TO-RIGHT MARK (the text part is read with the Unicode
    bidirectional algorithm, each line a paragraph of its own)."""
    if not context.get("rtl"):
        return text
    return "\n".join(LRM + line if line.strip() else line for line in str(text).split("\n"))


LRI, PDI = "\u2066", "\u2069"  # LEFT-TO-RIGHT ISOLATE and its end: a command inside prose


@pass_context
def _command_lines(context: Context, text: str) -> str:
    """A command and what it does ('vacation DURATION: your deadlines wait ...'), wrapped: in a
    right-to-left text the line reads right to left, the command isolated left to right at
    its start (as it must be typed), and what it does as prose (issue 29)."""
    if not context.get("rtl"):
        return text
    first, *rest = str(text).split("\n")
    command, colon, said = first.partition(": ")
    if not colon:
        return _lines(context, text)
    indent = command[: len(command) - len(command.lstrip())]
    first = f"{RLM}{indent}{LRI}{command.lstrip()}{PDI}: {said}"
    return "\n".join([first, *(RLM + line if line.strip() else line for line in rest)])


def _ltr_row(line: str) -> str:
    """A line of a table kept left to right, its columns in their order: a LEFT-TO-RIGHT MARK
    at its start and before each gap of two or more spaces (so that two cells in Hebrew are
    not read as one phrase and swapped)."""
    if not line.strip():
        return line
    return LRM + re.sub(r"(?<=\S)(?=  )", LRM, line)


@pass_context
def _columns(context: Context, text: str) -> str:
    """The lines of a table with aligned columns (the players, the log), left to right in a
    right-to-left text."""
    if not context.get("rtl"):
        return text
    return "\n".join(_ltr_row(line) for line in str(text).split("\n"))


@pass_context
def _log_lines(context: Context, text: str) -> str:
    """The log: its moves a table left to right in a right-to-left text, its table talk prose."""
    if not context.get("rtl"):
        return text
    return "\n".join(
        _ltr_row(line) if re.match(r" *\d+  ", line) else line for line in str(text).split("\n")
    )


def directed(text: str, words: Words) -> str:
    """The plain text for a right-to-left reader: every line not already marked left to right
    (notation, the map, tables) begins with a RIGHT-TO-LEFT MARK, so that a mail client that
    applies the Unicode bidirectional algorithm (each line a paragraph) reads it right to left
    even when it begins with an island's name or a command."""
    if not words.rtl:
        return text
    return "\n".join(
        line if not line.strip() or line.startswith((LRM, RLM)) else RLM + line
        for line in text.split("\n")
    )


@lru_cache(maxsize=64)
def said_in(words: Words) -> dict[str, Any]:
    """What the templates call to say things in `words`' language: gettext (new style, named
    placeholders), the names of colours and outcomes, the rules (the commands' own words in
    each language come with the commands: `_context`).
    Made once for each reader's words (the callers copy it, never change it)."""
    return {
        **words.template_globals(),
        "colour": words.colour,
        "outcome": lambda outcome: words.say(OUTCOMES.get(str(outcome), str(outcome))),
        "notation": (lambda line: LRM + line) if words.rtl else (lambda line: line),
        "quoted": partial(_quoted, words.rtl),
        "rules": lambda: rules_blocks(words.lang),
        "lang": words.lang,
        "dir": words.direction,
        "rtl": words.rtl,
        "shared": lambda template, board, picture: _shared(template, board, picture, words),
        "piece": lambda template, name, value: _piece(template, name, value, words),
    }


def _quoted(rtl: bool, line: str) -> str:
    """A line of the reader's reply as the plain text quotes it: '> ' before each line of it
    filled to the mail's width (marked left to right for a right-to-left reader)."""
    width = WIDTH - 2
    parts = [line] if len(line) <= width else textwrap.wrap(line, width) or [line]
    return "\n".join(f"{LRM if rtl else ''}> {part}" for part in parts)


OUTCOMES = {
    "applied": Message("applied"),
    "rejected": Message("rejected"),
    "ignored": Message("ignored"),
    "answered": Message("answered"),
}

# the board sections of the last few rounds, by template, board, picture and language: every
# mail of a round shows the same board, so it is rendered once per language
_shared_cache: OrderedDict[tuple[str, int, str | None, str], tuple[Board, str]] = OrderedDict()


def _shared(template: str, board: Board, picture: str | None, words: Words) -> str | Markup:
    key = (template, id(board), picture, words.lang)
    hit = _shared_cache.get(key)
    if hit is None or hit[0] is not board:
        page = (
            environment()
            .get_template(template)
            .render(board=board, picture=picture, **said_in(words))
        )
        hit = _shared_cache[key] = (board, page.rstrip("\n"))
        while len(_shared_cache) > 8:
            _shared_cache.popitem(last=False)
    return Markup(hit[1]) if template.endswith(".html.j2") else hit[1]


# pieces of a section, by template, value and words: an island of the board is rendered once
# for each language (and zone) while it does not change, shared by the mails of many rounds
_pieces: OrderedDict[tuple[str, Hashable, Words], str] = OrderedDict()
_pieces_lock = threading.Lock()
PIECES = 2048  # a few dozen islands in each of as many games as the picture keeps layers of


def _piece(template: str, name: str, value: Hashable, words: Words) -> str | Markup:
    """`template` rendered with `value` as `name` in `words`, without its last newline (the
    calling template writes it); an equal value (a frozen view) gives the same text. Threads
    rendering at once share the pieces (a lock around the kept ones, not the rendering)."""
    key = (template, value, words)
    with _pieces_lock:
        page = _pieces.get(key)
        if page is not None:
            _pieces.move_to_end(key)
    if page is None:
        page = environment().get_template(template).render({name: value, **said_in(words)})
        page = page.removesuffix("\n")
        with _pieces_lock:
            _pieces[key] = page
            while len(_pieces) > PIECES:
                _pieces.popitem(last=False)
    return Markup(page) if template.endswith(".html.j2") else page


def _context(
    mail: Mail | GmMail | Notice, commands: CommandHelp, words: Words = ENGLISH_WORDS
) -> dict[str, Any]:
    """The view's fields as template variables (the dataclasses themselves, not dicts), the
    commands as the mails list them (with the reader's language's own words for them), and
    what says things in the reader's language."""
    return (
        {f.name: getattr(mail, f.name) for f in fields(mail)}
        | {
            "commands": commands,
            "word": lambda name: commands.word(name, words.lang),
            "command_words": commands.words_of(words.lang),  # "aiuto = help, ...": "" in English
        }
        | said_in(words)
    )


def render_text(
    mail: Mail | GmMail | Notice, commands: CommandHelp, words: Words = ENGLISH_WORDS
) -> str:
    return _text(words.translated(mail), words.translated(commands), words)


def render_html(
    mail: Mail | GmMail | Notice, commands: CommandHelp, words: Words = ENGLISH_WORDS
) -> str:
    return _html(words.translated(mail), words.translated(commands), words)


def _text(mail: Mail | GmMail | Notice, commands: CommandHelp, words: Words) -> str:
    template = environment().get_template(f"{mail.kind}.txt.j2")
    text = template.render(_context(mail, commands, words))
    lines = [line.rstrip() for line in text.splitlines()]
    return directed(re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n") + "\n", words)


def _html(mail: Mail | GmMail | Notice, commands: CommandHelp, words: Words) -> str:
    return (
        environment().get_template(f"{mail.kind}.html.j2").render(_context(mail, commands, words))
    )


def render_board_text(board: Board, words: Words = ENGLISH_WORDS) -> str:
    """The board section of the plain-text mails, for a reader who is not a player."""
    board = words.translated(board)
    players = (
        environment()
        .get_template("_players.txt.j2")
        .render(board=board, you=None, **said_in(words))
    )
    text = f"{_shared('_board.txt.j2', board, None, words)}\n\n{players}"
    return directed("\n".join(line.rstrip() for line in text.splitlines()) + "\n", words)


def render(
    mail: Mail | GmMail | Notice, commands: CommandHelp, words: Words = ENGLISH_WORDS
) -> tuple[str, str]:
    """The plain-text and the HTML part of a mail, in the language of `words`."""
    mail, commands = words.translated(mail), words.translated(commands)
    return _text(mail, commands, words), _html(mail, commands, words)


__all__ = [
    "BOAT_COLOURS",
    "WIDTH",
    "directed",
    "render",
    "render_board_text",
    "render_html",
    "render_text",
    "wrap",
]
