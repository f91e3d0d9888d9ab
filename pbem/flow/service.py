"""The game service over one database: what is truly service-wide (the database, the
settings, the mailer, the cache of states), creating a game and opening one (`Table`).
Replies are handled by `pbem.flow.replies`, the game master by `pbem.flow.gm`, the clock by
`pbem.flow.deadlines`; the mails are made by `pbem.mail_out.mailing`.

Every change happens in one transaction together with the inbound message that caused it
and the mails it causes, so a crash loses nothing and applies nothing twice. Mail goes out
at least once: a crash after the mail server accepted a mail and before it left the outbox
sends it again, with the same Message-ID, so that mail servers and clients drop the copy.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy import Engine
from sqlmodel import Session

from engine import BOT_KINDS, COLOURS, BotKind, Setup, SetupError, State
from pbem.core import IdentityError, Settings, as_utc, check_address, check_name, unnamed_observer
from pbem.game.table import GameError, StateCache, Table
from pbem.mail_out.mailing import Mailer
from pbem.store import MAX_OBSERVERS, Game, MailChoice, Observer, Seat, session
from pbem.views import letters
from pbem.views.i18n import ENGLISH, choices, known

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SeatSpec:
    name: str
    address: str | None  # None for a bot
    colour: str | None = None
    bot: str | None = None
    lang: str | None = None  # the player's language (None: the game's)


MAX_SEED = 2**31 - 1  # the seed column is a 32-bit integer in PostgreSQL


class Service:
    """The game service over one database."""

    def __init__(self, engine: Engine, settings: Settings) -> None:
        self.engine = engine
        self.settings = settings
        self.mail = Mailer(settings)
        self.cache = StateCache(settings.state_cache_games)

    # -- creating a game -----------------------------------------------------------------

    def new_game(
        self,
        specs: Sequence[SeatSpec],
        *,
        seed: int | None = None,
        stack: Sequence[str] | None = None,
        deadline_seconds: int | None = None,
        gm: str | None = None,
        observers: Sequence[tuple[str, str | None]] = (),
        observers_talk: bool = False,
        lang: str = ENGLISH,
        now: datetime,
    ) -> int:
        """Create a game, play its bot seats up to the first human decision, queue the mails.
        `observers` (address, name or None) watch it; with `observers_talk` they may `say`.
        `lang` is the game's language: its observers' and the seats' that name none;
        `deadline_seconds` the time per decision (else the settings' `default_deadline`).
        The stack is `stack`, else shuffled from `seed` (reproducible, so predictable), else
        shuffled with the operating system's randomness (no seed is stored)."""
        now = as_utc(now)
        if seed is not None and not 0 <= seed <= MAX_SEED:
            raise GameError(f"The seed must be a whole number from 0 to {MAX_SEED}.")
        for chosen in (lang, *(s.lang for s in specs if s.lang is not None)):
            if not known(chosen):
                raise GameError(f"Unknown language {chosen!r}; the languages are {choices()}.")
        seats = _check_seats(specs)
        watchers = _check_observers(observers, seats)
        colours = [s.colour for s in seats]
        try:
            if stack:
                setup = Setup.from_names(colours, list(stack))  # type: ignore[arg-type]
            elif seed is not None:  # reproducible, and so predictable: the host asked for it
                setup = Setup.from_seed(colours, seed)  # type: ignore[arg-type]
            else:  # the operating system's randomness: no seed to try (issue 27)
                setup = Setup.shuffled(colours, secrets.SystemRandom())  # type: ignore[arg-type]
        except SetupError as error:
            raise GameError(str(error)) from error
        seconds = deadline_seconds or self.settings.default_deadline_seconds
        if seconds < 60:
            raise GameError("The time per decision must be at least a minute.")
        if gm is not None:
            try:
                gm = check_address(gm)
            except IdentityError as error:
                raise GameError(str(error)) from error
        with session(self.engine) as db:
            game = Game(
                created_at=now,
                colours=",".join(setup.colours),
                stack=",".join(setup.stack),
                seed=None if stack else seed,
                deadline_seconds=seconds,
                gm_address=gm,
                gm_secret=secrets.token_hex(16),
                observers_talk=observers_talk,
                lang=lang,
            )
            db.add(game)
            db.flush()
            assert game.id is not None
            rows = [
                Seat(
                    game_id=game.id,
                    seat=index,
                    name=spec.name,
                    address=spec.address,
                    colour=spec.colour or "",
                    secret=secrets.token_hex(16),
                    bot=None if spec.bot is None else BotKind(spec.bot),
                    lang=spec.lang or lang,
                )
                for index, spec in enumerate(seats)
            ]
            for row in rows:  # the mail settings the player chose for all their games
                choice = db.get(MailChoice, row.address.lower()) if row.address else None
                if choice is not None:
                    row.mail_mode, row.digest_hour = choice.mail_mode, choice.digest_hour
                    row.talk_now, row.digest_at = choice.talk_now, now
            db.add_all(rows)
            watching = [
                Observer(
                    game_id=game.id,
                    address=address,
                    name=name,
                    secret=secrets.token_hex(16),
                    added_at=now,
                    confirmed_at=now,  # the host's word is their consent
                )
                for address, name in watchers
            ]
            db.add_all(watching)
            table = Table(db, game, rows, State(setup), now, self.settings, self.cache, watching)
            events = table.advance()
            at, picture = self.mail.moment(table, events)
            for row in rows:
                if row.address:
                    self.mail.queue(table, row, letters.welcome(at, row.seat), None)
            decision = table.state.decision
            if decision is not None and rows[decision.seat].address:
                seat = rows[decision.seat]
                prompt = letters.letter(at, seat.seat, deadline=self.mail.deadline_view(game, seat))
                self.mail.queue(table, seat, prompt, picture)
            self.mail.welcome_watchers(table, watching)
            self.mail.queue_gm(  # the game's own game master and the host's, if any
                table,
                subject=f"You are the game master of game {game.id}",
                notice=f"You are the game master of game {game.id}. Reply to this mail "
                "(or to any later mail of this game to you) with the commands below."
                + ("" if game.seed is None else " " + stack_note(game, shows_seed=False)),
            )
            db.commit()
            log.info(
                "game %s created: %s", game.id, ", ".join(f"{r.name} ({r.colour})" for r in rows)
            )
            return game.id

    # -- reading ---------------------------------------------------------------------------

    def table(self, db: Session, game_id: int, now: datetime) -> Table:
        """The game `game_id` as stored, to read or change in `db`'s transaction; raises
        GameError if there is none."""
        return Table.load(db, game_id, now, self.settings, self.cache)


def stack_note(game: Game, *, shows_seed: bool = True) -> str:
    """How the stack of `game` was made, for the host and the game master (English): a game
    shuffled from a seed is predictable. `shows_seed` names the seed (not in mail)."""
    if game.seed is None:
        return (
            "This game's stack was shuffled with the operating system's randomness (or given "
            "with --stack): no seed predicts it."
        )
    seed = f" ({game.seed})" if shows_seed else ""
    return (
        f"This game's stack was shuffled from a seed{seed}, so it is predictable: whoever "
        "knows the seed, or finds it by trying seeds against the tiles drawn, knows every "
        "tile to come. Games for real play are made without --seed."
    )


def _check_observers(
    observers: Sequence[tuple[str, str | None]], seats: Sequence[SeatSpec]
) -> list[tuple[str, str]]:
    """Observers' addresses and names, checked; raises GameError."""
    if len(observers) > MAX_OBSERVERS:
        raise GameError(f"A game has at most {MAX_OBSERVERS} observers, not {len(observers)}.")
    taken = {s.address.lower() for s in seats if s.address}
    checked: list[tuple[str, str]] = []
    for address, name in observers:
        try:
            address = check_address(address)
            name = check_name(name) if name else unnamed_observer(n for _, n in checked)
        except IdentityError as error:
            raise GameError(str(error)) from error
        if address.lower() in taken:
            raise GameError(f"{address} has a seat or watches the game already.")
        taken.add(address.lower())
        checked.append((address, name))
    return checked


def _check_seats(specs: Sequence[SeatSpec]) -> list[SeatSpec]:
    """Seats with colours filled in; raises GameError for anything that cannot be a game."""
    if not 2 <= len(specs) <= 6:
        raise GameError(f"A game needs 2 to 6 seats, not {len(specs)}.")
    try:  # names and addresses are checked here, once: what is stored is what was checked
        specs = [
            SeatSpec(
                check_name(s.name),
                None if s.address is None else check_address(s.address),
                s.colour,
                s.bot,
                s.lang,
            )
            for s in specs
        ]
    except IdentityError as error:
        raise GameError(str(error)) from error
    addresses = [s.address.lower() for s in specs if s.address]
    if not addresses:
        raise GameError("A game needs a player: bots alone would play it to the end at once.")
    if len(set(addresses)) != len(addresses):
        raise GameError("Two seats have the same address.")
    for spec in specs:
        if spec.bot is not None and spec.bot not in BOT_KINDS:
            raise GameError(f"Unknown bot {spec.bot!r}; the bots are {', '.join(BOT_KINDS)}.")
        if spec.colour is not None and spec.colour not in COLOURS:
            raise GameError(
                f"Unknown colour {spec.colour!r}; the colours are {', '.join(COLOURS)}."
            )
    taken = [s.colour for s in specs if s.colour]
    if len(set(taken)) != len(taken):
        raise GameError("Two seats have the same colour.")
    free = iter(c for c in COLOURS if c not in taken)
    return [replace(s, colour=s.colour or next(free)) for s in specs]


__all__ = ["MAX_SEED", "GameError", "SeatSpec", "Service", "stack_note"]
