"""Reading choices from text: forgiving of case, spacing, accents and island-name prefixes.

`parse_choice(str(choice)) == choice` holds for every choice the engine lists.
"""

from __future__ import annotations

import re

from engine.choices import (
    Choice,
    Colonise,
    Emigrate,
    EmigrateClosed,
    Expand,
    FoundRoyal,
    Land,
    Pass,
    Place,
    PutTile,
)
from engine.colours import BY_LETTER, COLOURS
from engine.errors import AmbiguousChoiceError, DirectionError, IslandNameError, NotationError
from engine.hexgrid import DIRECTIONS, closest_directions, parse_direction
from engine.message import Joined, Message
from engine.tiles import BEACH_LETTERS, SEAS, match_island, suggest_island, without_accents

EXAMPLE = ", for example: "  # between a move's form and its example


def _syntax(form: str, example: str) -> Joined:
    """A move's form (its placeholders said in the reader's words) and its example."""
    return Joined(EXAMPLE, [form, example])


# the form of each move: its command words stay, its placeholders in capitals are translated
SYNTAX: dict[str, str] = {
    # Translators: the form of a move: keep the words in small letters, translate the capitals
    "place": _syntax(Message("place ISLAND BEACHES"), "place Tonga c"),
    # Translators: keep "expand" and "from", translate the placeholders in capitals
    "expand": _syntax(Message("expand ISLAND BEACHES [from ISLAND BEACH]"), "expand Samoa a,c"),
    # Translators: keep "royal", translate the placeholder in capitals
    "royal": _syntax(Message("royal ISLAND"), "royal Samoa"),
    "colonise": "colonise",
    # Translators: keep "emigrate", translate the placeholders in capitals
    "emigrate": _syntax(Message("emigrate ISLAND BEACH JETTY"), "emigrate Samoa b NE"),
    "land": _syntax(
        # Translators: keep "land" and "out", translate the placeholders in capitals
        Message("land ISLAND BEACH:COLOURS ... [out:COLOURS]"),
        "land Samoa a:RR b:B",
    ),
    "put": _syntax(
        # Translators: keep "put" and "red", translate the placeholders in capitals
        Message("put TILE DIRECTION red DIRECTION"),
        # Translators: two examples of one command, both kept as they are
        Message("{one} or {other}", one="put Samoa NE red S", other="put sea B S red N"),
    ),
}

_VERBS = {
    "place": "place",
    "expand": "expand",
    "royal": "royal",
    "found": "royal",
    "colonise": "colonise",
    "colonize": "colonise",
    "newcol": "colonise",
    "new": "colonise",
    "emigrate": "emigrate",
    "sail": "emigrate",
    "land": "land",
    "put": "put",
    "pass": "pass",
}


def is_move_word(word: str) -> bool:
    """Whether `word` begins a choice in the notation (`expand`, `sail`, ...)."""
    return without_accents(word.lower()) in _VERBS


def parse_choice(text: str) -> Choice:
    """Read one choice in the notation the mails print; raises NotationError when it is none."""
    # a sentence's full stop or exclamation mark after the choice is no part of it
    plain = without_accents(text.strip().lower())
    cleaned = re.sub(r"\s*([:=])\s*", ":", plain.rstrip(".!").rstrip())
    tokens = cleaned.replace(",", " ").replace(";", " ").split()
    if not tokens:
        raise NotationError(Message("The line is empty."))
    verb = _VERBS.get(tokens[0])
    if verb is None:
        raise NotationError(
            Message(
                "{word!r} is not a command. Commands: {commands}.",
                word=tokens[0],
                commands=", ".join(SYNTAX),
            )
        )
    args = tokens[1:]
    try:
        return _PARSERS[verb](args)
    except AmbiguousChoiceError:
        raise
    except IslandNameError as error:
        form = _form(verb)
        told = Message("{error} Write it as: {form}.", error=error.args[0], form=form)
        raise IslandNameError(told, word=error.word, form=form) from None
    except DirectionError as error:
        told = Message("{error} Write it as: {form}.", error=error.args[0], form=_form(verb))
        raise DirectionError(
            told, word=error.word, island=error.island, beach=error.beach
        ) from None
    except NotationError as error:
        said = error.args[0] if error.args else str(error)
        raise NotationError(
            Message("{error} Write it as: {form}.", error=said, form=_form(verb))
        ) from None


def _form(verb: str) -> str:
    """A move's form and its example, as the refusal of a line shows them."""
    entry = SYNTAX.get(verb, verb)
    form, example = entry.parts if isinstance(entry, Joined) else (entry, "")
    if not example:
        return form
    return Message("{form}, for example: {example}", form=form, example=example)


def _island(tokens: list[str]) -> tuple[str, list[str]]:
    """The island named by the leading tokens, and the tokens after its name."""
    run = 0
    while run < len(tokens) and len(tokens[run]) >= 2 and ":" not in tokens[run]:
        run += 1
    if run == 0 and tokens and ":" not in tokens[0]:
        run = 1  # a one-letter island prefix, like 'n' for Nauru
    ambiguous: list[str] = []
    for end in range(run, 0, -1):
        found = match_island("".join(tokens[:end]))
        if len(found) == 1:
            return found[0], tokens[end:]
        if len(found) > 1 and not ambiguous:
            ambiguous = found
    if ambiguous:
        raise AmbiguousChoiceError(
            Message(
                "{words!r} could be {islands}: write more of the name.",
                words=" ".join(tokens[:run]),
                islands=Message(
                    "{first} or {second}", first=" or ".join(ambiguous[:-1]), second=ambiguous[-1]
                ),
            )
        )
    what = " ".join(tokens[:run]) or " ".join(tokens[:1])
    if not what:
        raise NotationError(Message("An island name is missing."))
    raise IslandNameError(no_island(what, suggest_island(what)), word=what)


def no_island(name: str, close: list[str]) -> str:
    """'No island is called 'tuvlau'. Did you mean Tuvalu?'."""
    if not close:
        return Message("No island is called {name!r}.", name=name)
    return Message(
        "No island is called {name!r}. Did you mean {islands}?",
        name=name,
        islands=Message("{first} or {second}", first=" or ".join(close[:-1]), second=close[-1])
        if len(close) > 1
        else close[0],
    )


def _beaches(tokens: list[str]) -> tuple[int, ...]:
    letters = "".join(tokens)
    if not letters:
        raise NotationError(Message("The beaches are missing."))
    bad = [token for token in tokens if any(c not in BEACH_LETTERS for c in token)]
    if bad:  # the word as written ('please'), not a letter of it
        raise NotationError(
            Message("{word!r} is not a beach; beaches are letters a to f.", word=bad[0])
        )
    return tuple(sorted(BEACH_LETTERS.index(c) for c in letters))


def _direction(tokens: list[str], island: str | None = None, beach: int | None = None) -> int:
    """The direction `tokens` name; for a jetty, of `beach` of `island`."""
    direction = parse_direction("".join(tokens))
    if direction is None:
        word = " ".join(tokens)
        raise DirectionError(
            not_a_direction(word or "nothing", closest_directions(word) if word else []),
            word=word,
            island=island,
            beach=beach,
        )
    return direction


def not_a_direction(word: str, close: list[int]) -> str:
    """Why `word` is no direction, and the closest of them when one is close."""
    if close:
        return Message(
            "{word!r} is not a direction (S, SW, NW, N, NE or SE). Did you mean {direction}?",
            word=word,
            direction=DIRECTIONS[close[0]],
        )
    return Message("{word!r} is not a direction (S, SW, NW, N, NE or SE).", word=word)


def _colours(text: str) -> tuple[str, ...]:
    bad = [c for c in text if c.upper() not in BY_LETTER]
    if bad and text.lower() in COLOURS:  # 'a:red'
        raise NotationError(
            Message(
                "Write colours as letters: {letter} for {word}, as in a:RR b:B.",
                letter=text[0].upper(),
                word=text.lower(),
            )
        )
    if bad:
        raise NotationError(
            Message("{word!r} is not a colour letter (B, R, G, Y, O, P).", word=bad[0].upper())
        )
    return tuple(sorted((BY_LETTER[c.upper()] for c in text), key=COLOURS.index))


def _place(args: list[str]) -> Choice:
    if args and len(args[0]) >= 2:
        island, rest = _island(args)
        return Place(island, _beaches(rest))
    return Place(None, _beaches(args))


def _expand(args: list[str]) -> Choice:
    island, rest = _island(args)
    if "from" in rest:
        at = rest.index("from")
        source, source_rest = _island(rest[at + 1 :])
        source_beaches = _beaches(source_rest)
        if len(source_beaches) != 1:
            raise NotationError(Message("A borrowed boat comes from one beach."))
        return Expand(island, _beaches(rest[:at]), (source, source_beaches[0]))
    return Expand(island, _beaches(rest))


def _royal(args: list[str]) -> Choice:
    words = [a for a in args if a not in ("royal", "island", "on")]
    island, rest = _island(words)
    if rest:
        raise NotationError(Message("Unexpected {words!r} after the island.", words=" ".join(rest)))
    return FoundRoyal(island)


def _colonise(args: list[str]) -> Choice:
    if any(a not in ("colonisation", "colonization", "colonise", "colonize") for a in args):
        raise NotationError(Message("Unexpected {words!r}.", words=" ".join(args)))
    return Colonise()


def _pass(args: list[str]) -> Choice:
    if args:
        raise NotationError(Message("Unexpected {words!r} after pass.", words=" ".join(args)))
    return Pass()


def _emigrate(args: list[str]) -> Choice:
    island, rest = _island(args)
    if not rest:
        return EmigrateClosed(island)  # RULES §8.1: an island whose routes all lead back
    if len(rest[0]) != 1:
        raise NotationError(Message("The beach letter is missing."))
    beach = _beaches(rest[:1])[0]
    return Emigrate(island, beach, _direction(rest[1:], island, beach))


def _land(args: list[str]) -> Choice:
    island: str | None = None
    if args and ":" not in args[0]:
        island, args = _island(args)
    placement: dict[int, tuple[str, ...]] = {}
    out: tuple[str, ...] = ()
    for item in args:
        key, sep, value = item.partition(":")
        if not sep or not value:
            raise NotationError(Message("{word!r} should be BEACH:COLOURS, like a:RR.", word=item))
        if key == "out":
            out = _colours(value)
            continue
        if len(key) != 1 or key not in BEACH_LETTERS:
            raise NotationError(
                Message("{word!r} is not a beach; beaches are letters a to f.", word=key)
            )
        beach = BEACH_LETTERS.index(key)
        if beach in placement:
            raise NotationError(Message("Beach {beach} is named twice.", beach=key))
        placement[beach] = _colours(value)
    return Land(island, tuple(sorted(placement.items())), out)


def _put(args: list[str]) -> Choice:
    marker = next((i for i, a in enumerate(args) if a in ("red", "emblem")), None)
    if marker is None:
        raise NotationError(Message("Say where the red emblem faces, like 'red S'."))
    red = _direction(args[marker + 1 :])
    where = args[:marker]
    if where in (["centre"], ["center"]):
        return PutTile(None, 0, red)
    if "of" in where:
        at = where.index("of")
        return PutTile(_anchor(where[at + 1 :]), _direction(where[:at]), red)
    for split in (len(where) - 1, len(where) - 2):
        if split >= 1 and parse_direction("".join(where[split:])) is not None:
            return PutTile(_anchor(where[:split]), _direction(where[split:]), red)
    if len(where) >= 2 and closest_directions(where[-1]):  # 'put Samoa nrth red S'
        _direction(where[-1:])
    raise NotationError(Message("Say where the tile goes, like 'Samoa NE' (north-east of Samoa)."))


def _anchor(tokens: list[str]) -> str:
    if len(tokens) == 2 and tokens[0] == "sea" and tokens[1].upper() in SEAS:
        return tokens[1].upper()  # "sea N": the sea tile N
    if len(tokens) == 1 and tokens[0].upper() in SEAS:
        return tokens[0].upper()
    island, rest = _island(tokens)
    if rest:
        raise NotationError(
            Message("Unexpected {words!r} after {island}.", words=" ".join(rest), island=island)
        )
    return island


_PARSERS = {
    "place": _place,
    "expand": _expand,
    "royal": _royal,
    "colonise": _colonise,
    "emigrate": _emigrate,
    "land": _land,
    "put": _put,
    "pass": _pass,
}
