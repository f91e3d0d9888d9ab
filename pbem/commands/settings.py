"""A player's settings: time zone, language, vacation, which mails and when."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlmodel import col, func, select

from engine import (
    Message,
)
from pbem.commands.registry import (
    Command,
    CommandError,
    Round,
    player_seat,
    said_by,
)
from pbem.commands.usage import LANG_WORDS, said
from pbem.core import (
    DurationError,
    GameStatus,
    MailMode,
    PictureChoice,
    as_utc,
    parse_duration,
    shown,
    zone_meant,
    zone_named,
)
from pbem.game import decision_clock
from pbem.store import Game, MailChoice, Seat
from pbem.views import news
from pbem.views.i18n import LANGUAGES, choices, duration, known, named
from pbem.views.view import when

SHORTEST_VACATION = 6 * 3600  # seconds


HOUR = 3600  # seconds: a vacation counts by the hour it was on


TELL_AFTER = timedelta(hours=1)  # a vacation is news to the others once on this long


ENDS = ("off", "back", "0", "end", "over", "none", "stop")  # vacation off: back now


def _tz(round: Round, argument: str) -> str:
    seat, argument = player_seat(round), argument.rstrip(".")
    if argument.lower() in ("utc", "off", "none", ""):
        seat.tz = None
        return Message("your deadlines are shown in UTC only")
    zone = _time_zone(argument)
    seat.tz = zone
    return Message("your deadlines are shown in {zone} (and in UTC)", zone=zone)


def _lang(round: Round, argument: str) -> str:
    """The language of the sender's mails: `lang it`; `lang` alone says which it is and the
    choices. The answer to this very mail comes in the new language."""
    seat, code = player_seat(round), argument.strip(" .").lower()
    if not code:
        return Message(
            "your mails are in {language}; the languages: {choices}",
            language=named(seat.lang),
            choices=choices(),
        )
    by_name = {name.lower(): lang for lang, name in LANGUAGES.items()}
    code = by_name.get(code, code)  # `lang italiano` too
    if not known(code):
        raise CommandError(
            Message(
                "{word!r} is not a language of the game. The languages: {choices}.",
                word=shown(argument.strip(), 40),
                choices=choices(),
            ),
            code="unknown-language",
        )
    seat.lang = code
    return Message("your mails are in {language} from now on", language=named(code))


def _time_zone(text: str) -> str:
    """The canonical name of a time zone ('europe/berlin' -> 'Europe/Berlin'): only a name
    of the host's tz database, never a region alone ('Europe'), a path or a long text."""
    zone = zone_named(text)
    if zone is not None:
        return zone
    meant = zone_meant(text)
    if meant is not None:
        raise CommandError(
            Message(
                "{word!r} is not a time zone. Did you mean {zone}? Write it as in "
                "tz Europe/Berlin or tz America/New_York.",
                word=shown(text, 40),
                zone=meant,
            ),
            code="unknown-zone",
        )
    raise CommandError(
        Message(
            "{word!r} is not a time zone. Write it as in tz Europe/Berlin or tz America/New_York.",
            word=shown(text, 40),
        ),
        code="unknown-zone",
    )


def on_vacation(seat: Seat) -> str:
    """The news of a vacation, as everyone reads it."""
    assert seat.away_until is not None
    return Message(
        "{name} ({colour}) is on vacation until {back}: their deadlines wait.",
        name=seat.name,
        colour=news.colour(seat.colour),
        back=when(as_utc(seat.away_until)),
    )


def vacation_used(seat: Seat, now: datetime) -> int:
    """The seconds the vacation running now (since `away_since`) takes from the allowance
    if it ends at `now`: the time it was on, rounded up to the hour, at least an hour
    (switching it on and off is not free), at most what was asked for."""
    assert seat.away_until is not None and seat.away_since is not None
    on = (now - as_utc(seat.away_since)).total_seconds()
    hours = max(1, -int(-on // HOUR))
    planned = int((as_utc(seat.away_until) - as_utc(seat.away_since)).total_seconds())
    return min(hours * HOUR, planned)


def back_from_vacation(round: Round) -> int | None:
    """End the sender's vacation now, if they are away (None if not): the time not used,
    rounded down to the hour it was on, is theirs again, and the open decision's deadline
    comes back by the time not used. The others hear of it if they heard of the vacation.
    Returns the seconds given back."""
    table, seat = round.table, player_seat(round)
    now = table.now
    if seat.away_until is None or as_utc(seat.away_until) <= now:
        return None
    unused = int((as_utc(seat.away_until) - now).total_seconds())
    given_back = unused
    if seat.away_since is not None:
        planned = int((as_utc(seat.away_until) - as_utc(seat.away_since)).total_seconds())
        given_back = planned - vacation_used(seat, now)
    told = seat.away_told
    seat.away_until, seat.away_since, seat.away_told = None, None, False
    seat.vacation_used = max(seat.vacation_used - given_back, 0)
    decision = table.state.decision
    if decision is not None and decision.seat == seat.seat and table.game.deadline_at is not None:
        decision_clock.shift(table.game, -unused, table.settings.parsed_reminders, now)
    if told:  # a vacation switched off within the hour told nobody, nor does its end
        round.announced.append(
            Message(
                "{name} ({colour}) is back from vacation.",
                name=seat.name,
                colour=news.colour(seat.colour),
            )
        )
    return given_back


def _vacation(round: Round, argument: str) -> str:
    """Time away: the seat's deadlines wait until the player is back; `vacation off` ends
    it early. The others are told once it has been on for an hour (`TELL_AFTER`, by the
    clock: `pbem.flow.deadlines`), at once of a longer one they know of already."""
    table, seat = round.table, player_seat(round)
    game, now, settings = table.game, table.now, table.settings
    if argument.rstrip(".").lower() in ENDS:
        if back_from_vacation(round) is None:
            raise CommandError(Message("You are not on vacation."), code="not-on-vacation")
        remaining = duration(settings.vacation_allowance_seconds - seat.vacation_used)
        return Message(
            "your vacation is over; {left} of vacation left in this game", left=remaining
        )
    try:
        seconds = parse_duration(argument.rstrip("."))
    except DurationError as error:
        raise CommandError(
            Message("{error} Write it as: vacation 3d.", error=said_by(error)), code="bad-duration"
        ) from error
    allowance = settings.vacation_allowance_seconds
    left = allowance - seat.vacation_used
    if seconds < SHORTEST_VACATION:  # each vacation may be news to everyone: not too many
        raise CommandError(
            Message(
                "A vacation lasts at least {shortest}; write it as: vacation 3d.",
                shortest=duration(SHORTEST_VACATION),
            ),
            code="vacation-too-short",
        )
    if not 0 < seconds <= left:
        raise CommandError(
            Message(
                "You have {left} of vacation left in this game "
                "(of {allowance}); ask for at most that much.",
                left=duration(max(left, 0)),
                allowance=duration(allowance),
            ),
            code="vacation-left",
        )
    if game.status == GameStatus.OVER:
        raise CommandError(Message("The game is over."), code="game-over")
    away = seat.away_until is not None and as_utc(seat.away_until) > now
    if not away:  # a new vacation: the others hear of it once it has been on for an hour
        seat.away_until, seat.away_since, seat.away_told = now, now, False
    assert seat.away_until is not None
    seat.away_until = as_utc(seat.away_until) + timedelta(seconds=seconds)
    seat.vacation_used += seconds
    decision = table.state.decision
    if decision is not None and decision.seat == seat.seat and game.deadline_at is not None:
        decision_clock.shift(game, seconds, settings.parsed_reminders, now)
    if away and seat.away_told:  # longer: the others knew of the vacation
        round.announced.append(on_vacation(seat))
    left_after = duration(allowance - seat.vacation_used)
    return Message(
        "you are away until {back}; your deadlines wait until then ({left} of vacation left)",
        back=when(seat.away_until),
        left=left_after,
    )


def _mail(round: Round, argument: str) -> str:
    """How much mail the sender gets: `mail all|turns|digest [HOUR]`, `mail talk now|later`,
    `mail picture always|prompts|never`, for this game, or for all their games with
    `all-games`."""
    table, seat = round.table, player_seat(round)
    words = argument.rstrip(".").lower().split()
    everywhere = "all-games" in words
    words = [w for w in words if w != "all-games"]
    changes: dict[str, object] = {}
    if words[:1] == ["talk"] and words[1:] in (["now"], ["later"]):
        changes["talk_now"] = words[1] == "now"
        said = (
            Message("table talk comes to you at once")
            if words[1] == "now"
            else Message("table talk comes with the next mail of the game")
        )
    elif words[:1] == ["picture"] and len(words) == 2 and words[1] in tuple(PictureChoice):
        said = _picture(PictureChoice(words[1]), changes)
    elif words[:1] and words[0] in tuple(MailMode) and len(words) <= 2:
        mode = MailMode(words[0])
        changes["mail_mode"] = mode
        if len(words) == 2:
            changes["digest_hour"] = _digest_hour(mode, words[1])
        if mode == MailMode.DIGEST:
            changes["digest_at"] = table.now
        said = {
            MailMode.ALL: Message("you get every mail of the game"),
            MailMode.TURNS: Message(
                "you get only mails that ask for your decision, reminders and the final result"
            ),
            MailMode.DIGEST: Message(
                "you get mails that ask for your decision as they come, and "
                "everything else once a day at {hour}:00 {zone}",
                hour=changes.get("digest_hour", seat.digest_hour),
                zone=seat.tz or "UTC",
            ),
        }[mode]
    else:
        raise CommandError(
            Message(
                "Write it as: mail all, mail turns, mail digest [HOUR], mail talk now|later, or "
                "mail picture always|prompts|never; add all-games for all your games."
            ),
            code="mail-form",
        )
    seats = [seat]
    if everywhere:
        seats += _seats_elsewhere(round, seat)
        _remember(round, seat, changes)
    for each in seats:
        for name, value in changes.items():
            setattr(each, name, value)
    if everywhere:
        return Message("{done} (in all your games)", done=said)
    return Message("{done} (in this game)", done=said)


def _digest_hour(mode: MailMode, hour: str) -> int:
    """The hour of `mail digest HOUR`: 0-23, and only for a digest."""
    if mode != MailMode.DIGEST or not (
        hour.isascii() and hour.isdigit() and len(hour) <= 2 and int(hour) < 24
    ):
        raise CommandError(
            Message("Write the digest's hour as 0-23: mail digest 18."), code="digest-hour"
        )
    return int(hour)


def _picture(choice: PictureChoice, changes: dict[str, object]) -> Message:
    """`mail picture always|prompts|never`: which mails carry the picture of the board."""
    changes["picture"] = choice
    return {
        PictureChoice.ALWAYS: Message("every mail that shows the board carries its picture"),
        PictureChoice.PROMPTS: Message(
            "the picture of the board comes with your prompts, the digest and the game over"
        ),
        PictureChoice.NEVER: Message("your mails show the board as text, without a picture"),
    }[choice]


def _seats_elsewhere(round: Round, seat: Seat) -> list[Seat]:
    """The sender's seats in their other games that are not over."""
    assert seat.address is not None
    query = (
        select(Seat)
        .join(Game)
        .where(
            func.lower(Seat.address) == seat.address.lower(),
            Seat.id != seat.id,
            col(Game.status).in_((GameStatus.RUNNING, GameStatus.PAUSED)),
        )
    )
    return list(round.table.db.exec(query))


def _remember(round: Round, seat: Seat, changes: dict[str, object]) -> None:
    """Mail settings for all games: kept by address, for the games still to come."""
    assert seat.address is not None
    address = seat.address.lower()
    choice = round.table.db.get(MailChoice, address) or MailChoice(address=address)
    for name, value in changes.items():
        if name != "digest_at":
            setattr(choice, name, value)
    round.table.db.add(choice)


def vacation_summary(allowance: str) -> str:
    """What `vacation` does, with the host's allowance ('7d')."""
    return Message(
        "your deadlines wait while you are away, up to {allowance} per game in all; vacation "
        "off ends it",
        allowance=allowance,
    )


VACATION = Command(
    "vacation",
    # Translators: the form of a command in the help and its refusals: keep "vacation",
    # translate the placeholder in capitals (what the player writes there)
    Message("vacation DURATION"),
    vacation_summary(
        duration(7 * 86400)
    ),  # the default allowance; the mails say the host's (`manual`)
    _vacation,
    example="vacation 3d",
    words=said(it="vacanza", nl="vakantie", fi="loma", hu="szabadság", he="חופשה"),
)


TZ = Command(
    "tz",
    # Translators: keep "tz", translate the placeholder in capitals
    Message("tz ZONE"),
    Message("deadlines in your own time zone as well as in UTC"),
    _tz,
    example="tz Europe/Berlin",
    words=said(it="fuso", nl="tijdzone", fi="aikavyöhyke", hu="időzóna", he="אזור"),
)


LANG = Command(
    "lang",
    # Translators: keep "lang", translate the placeholder in capitals
    Message("lang CODE"),
    Message("the language of your mails: {choices}", choices=", ".join(LANGUAGES)),
    _lang,
    example="lang it",
    words=LANG_WORDS,
)


MAIL = Command(
    "mail",
    # Translators: keep the command's words, translate HOUR as in "a daily digest at HOUR"
    Message("mail all|turns|digest [HOUR] [all-games]"),
    Message(
        "how much mail you get (every mail, only your turns, or a daily digest at HOUR); "
        "mail talk now|later: table talk at once or with your next mail; "
        "mail picture always|prompts|never: which mails carry the picture of the board"
    ),
    _mail,
    example="mail digest 18",
    words=said(it="posta", nl="post", fi="posti", hu="levél", he="דואר"),
)
