"""Replies to the game's mails: each message handled exactly once, its lines applied in
order until one fails, and everyone told, in one transaction with the message itself."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import Message

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, func, select

import engine
from engine import is_move_word
from pbem import letters, news, view
from pbem.addressing import GM_SEAT, Tag, find_tag, gm_token_ok, observer_of, token_epoch
from pbem.authres import sender_refusal
from pbem.automatic import automatic_reason
from pbem.budget import may_answer, spent_until
from pbem.clock import as_utc, format_duration
from pbem.commands import Commands, Round, after_rejected, run_lines
from pbem.db import hold_game, session
from pbem.gm import GameMaster
from pbem.i18n import duration
from pbem.inbound import Arrival, arrive, headers_only, quarantine_row, sender_of, shown, shown_id
from pbem.kinds import AnswerKind, GameStatus, LineOutcome, MailKind, MailOutcome, WatchEnd
from pbem.models import INVITATION_DAYS, Game, GmTag, Inbound, Move, Observer, ReplyUse, Seat
from pbem.play import (
    INVITED_COMMANDS,
    OBSERVER_COMMANDS,
    PLAYER_COMMANDS,
    QUIET_OBSERVER_COMMANDS,
    RESIGNED_COMMANDS,
    asked_before,
    greeting,
    remember_asked,
    wants_stop,
)
from pbem.replytext import reply_text
from pbem.service import Service
from pbem.table import LineFault, Table
from pbem.view import LineResult

log = logging.getLogger(__name__)

MAX_LINES = 30
MAX_LINE = 300  # characters of a line read; a command is far shorter


@dataclass(frozen=True)
class Taken:
    """What one inbound message came to, and the line the log gets once the transaction
    that recorded it committed (a transaction rolled back recorded nothing to tell)."""

    outcome: MailOutcome
    level: int = logging.INFO
    said: str = ""
    args: tuple[object, ...] = ()

    def log(self) -> None:
        if self.said:
            log.log(self.level, self.said, *self.args)


class Replies:
    """Handles inbound mail for a `Service`."""

    def __init__(self, service: Service) -> None:
        self.service = service
        self.settings = service.settings

    def handle(self, raw: bytes, now: datetime) -> MailOutcome:
        """Handle one inbound message exactly once, in a transaction of its own; returns its
        outcome, and logs it.

        Raises whatever the mail makes fail; the runner puts such a mail in the quarantine.
        """
        with session(self.service.engine) as db:
            taken = self.take_in(db, raw, now)
            db.commit()
        taken.log()
        return taken.outcome

    def take_in(self, db: Session, raw: bytes, now: datetime) -> Taken:
        """Handle one inbound message in `db`'s transaction, which the caller commits (the
        message is recorded in it: the same message is a duplicate after that commit); what
        it came to, with the line for the log once committed.

        Raises whatever the mail makes fail.
        """
        now = as_utc(now)
        if len(raw) > self.settings.max_message_bytes:
            return self._too_large(db, raw, now)
        arrival = arrive(raw)
        message, sender = arrival.message, arrival.sender
        tag = find_tag(message)
        # what needs no database is done before the transaction first asks for its write lock
        turned_away = self._turned_away(message, sender)
        lines = self.command_lines(message) if tag is not None and not turned_away else []
        automatic = False
        if turned_away and turned_away[0] == MailOutcome.IGNORED and tag is not None:
            # an unsubscribing agent's `stop` to an observer's address (List-Unsubscribe) may
            # be marked automatic: it still stops their mail, and is not answered
            first = self.command_lines(message)[:1] if observer_of(tag.seat) else []
            if wants_stop(first):
                turned_away, lines, automatic = None, first, True
        inbound = self._first_time(db, arrival.message_hash, arrival, now)
        if inbound is None:
            return Taken(MailOutcome.DUPLICATE)
        outcome, detail = turned_away or self._handle(
            db, sender, tag, lines, inbound, now, raw, automatic=automatic
        )
        inbound.outcome, inbound.detail = outcome, shown(detail, 500)
        where = f"game {tag.game} {tag.seat_label} decision {tag.decision}" if tag else "no tag"
        return Taken(
            outcome,
            logging.INFO,
            "message %s (%s): %s: %s",
            (inbound.id, where, inbound.outcome, inbound.detail),
        )

    def _first_time(
        self, db: Session, message_hash: str, arrival: Arrival | None, now: datetime
    ) -> Inbound | None:
        """The new row of a message not seen before, or None (logged) for a duplicate."""
        seen = db.exec(select(Inbound).where(Inbound.message_hash == message_hash)).first()
        if seen is not None:
            log.info("message %s: duplicate of message %s", seen.message_id, seen.id)
            return None
        inbound = Inbound(
            message_hash=message_hash,
            message_id=arrival.message_id if arrival else "",
            sender=arrival.sender if arrival else "",
            received_at=now,
            outcome="",
        )
        try:
            with db.begin_nested():  # a failure rolls back this row only
                db.add(inbound)
        except IntegrityError:  # PostgreSQL: another service took this message meanwhile
            log.info("message %s: handled by another service", inbound.message_id)
            return None
        return inbound

    def _too_large(self, db: Session, raw: bytes, now: datetime) -> Taken:
        """A mail over the size limit: kept in the quarantine unread (in the transaction that
        records it as handled); a tagged one from its seat's own address is answered once,
        briefly."""
        limit = self.settings.max_message_bytes
        message, message_id = headers_only(raw)
        if not message_id:
            message_id = f"<sha256-{hashlib.sha256(raw).hexdigest()}@tongiaki>".encode()
        sender = shown(sender_of(message), 254)
        why = f"too large: {len(raw)} bytes, the limit is {limit}"
        tag = find_tag(message)
        answer = tag is not None and not self._turned_away(message, sender)
        digest = hashlib.sha256(message_id).hexdigest()
        inbound = self._first_time(db, digest, None, now)
        if inbound is None:
            return Taken(MailOutcome.DUPLICATE)
        inbound.message_id = shown_id(message_id, digest)
        inbound.sender = sender
        inbound.outcome, inbound.detail = MailOutcome.QUARANTINED, why
        kept = quarantine_row(raw, why, now, limit, message)
        db.add(kept)
        found = self._seat_of(db, tag, sender) if tag is not None and answer else None
        if found is not None and may_answer(
            db, sender, AnswerKind.TOO_LARGE, now, self.settings.answers_per_day
        ):
            game = found[0]
            notice = view.Notice(
                kind=MailKind.NOTICE,
                subject=engine.Message("Not applied: your mail was too large"),
                paragraphs=(
                    engine.Message(
                        "Your mail to game {game} was {size} KB; the game "
                        "reads mail of at most {limit} KB, so nothing in it was "
                        "read or applied.",
                        game=game.id,
                        size=len(raw) // 1000,
                        limit=limit // 1000,
                    ),
                    engine.Message(
                        "Reply to the newest mail of the game again, without attachments "
                        "and with only your command at the top."
                    ),
                ),
            )
            self.service.mail.queue_notice(
                db,
                found[1].address or sender,
                notice,
                now=now,
                game_id=game.id,
                lang=found[1].lang,
            )
        db.flush()  # the quarantine's number, for the log
        return Taken(
            MailOutcome.QUARANTINED,
            logging.WARNING,
            "message %s: quarantined as %s: %s",
            (inbound.id, kept.id, why),
        )

    def _sender_refusal(self, message: Message) -> str | None:
        """Why the From of `message` is not taken (see `pbem.authres`), or None."""
        return sender_refusal(
            message,
            authenticated_from=self.settings.authenticated_from,
            authserv_id=self.settings.authserv_id,
        )

    def _seat_of(self, db: Session, tag: Tag, sender: str) -> tuple[Game, Seat] | None:
        """The game and seat of a tag signed for that seat and sent from its address."""
        game = db.get(Game, tag.game)
        if game is None or tag.seat == GM_SEAT:
            return None
        seat = db.exec(select(Seat).where(Seat.game_id == game.id, Seat.seat == tag.seat)).first()
        if seat is None or (seat.address or "").lower() != sender:
            return None
        if token_epoch(seat.secret, tag, game.epoch) is None:
            return None
        return game, seat

    def _turned_away(self, message: Message, sender: str) -> tuple[MailOutcome, str] | None:
        """The outcome of a mail never to answer (automatic mail), or from a sender that is
        not taken; None for the others."""
        reason = automatic_reason(message, self.settings.from_address, sender)
        if reason:
            return MailOutcome.IGNORED, reason
        refusal = self._sender_refusal(message)
        if refusal:
            return MailOutcome.REFUSED, f"sender not accepted: {refusal}"
        return None

    def _handle(
        self,
        db: Session,
        sender: str,
        tag: Tag | None,
        lines: list[str],
        inbound: Inbound,
        now: datetime,
        raw: bytes,
        *,
        automatic: bool = False,
    ) -> tuple[MailOutcome, str]:
        """What a tagged mail does; an `automatic` one only says `stop` to an observer's
        address (see `take_in`)."""
        if tag is not None:
            hold_game(db, tag.game)  # other services wait: one mail at a time acts on a game
        game = db.get(Game, tag.game) if tag else None
        if tag is None or game is None:
            if not automatic:
                self._answer_lost(db, sender, now)
            return MailOutcome.REFUSED, "no game tag" if tag is None else f"no game {tag.game}"
        inbound.game_id = game.id
        table = self.service.table(db, tag.game, now)
        done = self._at_table(table, sender, tag, lines, inbound, automatic=automatic)
        for fault in table.faults:  # lines undone, the mail's other lines applied
            self._keep_copy(table, raw, inbound, fault)
        return done

    def _keep_copy(self, table: Table, raw: bytes, inbound: Inbound, fault: LineFault) -> None:
        """A copy of a mail with a line the service failed on, in the quarantine for the
        host: the mail itself was handled (its other lines applied, its sender answered),
        so handing the copy to the service again does nothing (it is a duplicate)."""
        why = (
            f"a copy: line {fault.number} {shown(fault.line, 60)!r} failed and was undone alone; "
            f"the mail was handled as message {inbound.id}: {fault.error}"
        )
        kept = quarantine_row(raw, why, table.now, self.settings.max_message_bytes)
        table.db.add(kept)
        table.db.flush()  # its number, for the log
        log.warning(
            "message %s: line %d failed; a copy is in the quarantine as %s: %s",
            inbound.id,
            fault.number,
            kept.id,
            fault.error,
        )

    def _at_table(
        self,
        table: Table,
        sender: str,
        tag: Tag,
        lines: list[str],
        inbound: Inbound,
        *,
        automatic: bool = False,
    ) -> tuple[MailOutcome, str]:
        """A tagged mail on its game: by the game master, an observer or a player."""
        db, now, game, seats = table.db, table.now, table.game, table.seats
        if tag.seat == GM_SEAT:
            return self._handle_gm(table, lines, sender, tag, inbound)
        watcher_id = observer_of(tag.seat)
        if watcher_id is not None:
            return self._handle_watcher(
                table, lines, sender, tag, inbound, watcher_id, automatic=automatic
            )
        epoch = None
        if 0 <= tag.seat < len(seats):
            epoch = token_epoch(seats[tag.seat].secret, tag, game.epoch)
        if epoch is None:
            return MailOutcome.REFUSED, "bad token"
        seat = seats[tag.seat]
        if sender != (seat.address or "").lower():
            self._tell_other_sender(db, game, seat, now)
            return MailOutcome.REFUSED, f"sender is not the address of {seat.label}"
        keys = _replay_keys(tag, lines, game, seat)
        replayed = self._replayed(db, keys)
        if replayed:
            return MailOutcome.IGNORED, replayed
        old = self._too_old(db, game, tag.decision, epoch, now)
        if old:
            outcome, detail = self._refuse(table, seat, lines, old)
            acted = False
        else:
            outcome, detail, acted = self._play(table, seat, tag, lines, inbound)
        db.add(ReplyUse(key=keys[0 if acted else 1], inbound_id=inbound.id, at=now))
        return outcome, detail

    def _replayed(self, db: Session, keys: tuple[str, str]) -> str:
        """Why a mail is a replay ("" if it is not), whatever its Message-ID: the same signed
        tag with the same commands acted once already, or changed nothing in a game and seat
        that are as they were then (sent again once the game changed, it is read anew: a
        move refused while the game was paused acts after it resumes)."""
        first = db.exec(select(ReplyUse).where(col(ReplyUse.key).in_(keys))).first()
        if first is None:
            return ""
        return f"a replay of message {first.inbound_id}: the same reply address and commands"

    def _too_old(self, db: Session, game: Game, decision: int, epoch: int, now: datetime) -> str:
        """Why a seat's reply address no longer acts ("" if it does): it was made before the
        game master took decisions back, or its decision closed `token_lifetime` ago."""
        if epoch != game.epoch:
            return engine.Message(
                "Your mail answers a mail from before the game master took decisions back. "
                "Reply to the newest mail the game sent you."
            )
        if decision >= game.decision:
            return ""
        closed = db.exec(
            select(Move.created_at).where(Move.game_id == game.id, Move.number == decision)
        ).first()
        lifetime = timedelta(seconds=self.settings.token_lifetime_seconds)
        if closed is not None and as_utc(closed) + lifetime < now:
            return engine.Message(
                "Your mail answers decision {number}, which closed more than "
                "{lifetime} ago: its reply address no "
                "longer acts. Reply to the newest mail the game sent you.",
                number=decision,
                lifetime=duration(int(lifetime.total_seconds())),
            )
        return ""

    def _refuse(
        self, table: Table, seat: Seat, lines: list[str], why: str
    ) -> tuple[MailOutcome, str]:
        """Refuse a whole mail with one reason: answered within the sender's budget."""
        first, *rest = lines or ["(nothing)"]
        results = [
            LineResult(first, LineOutcome.REJECTED, why),
            *(after_rejected(line) for line in rest),
        ]
        assert seat.address is not None
        per_day = self.settings.answers_per_day
        if may_answer(table.db, seat.address, AnswerKind.ERROR, table.now, per_day):
            self.service.mail.queue_round(table, [], sender=seat, results=results)
        return MailOutcome.REJECTED, _told(results)

    def command_lines(self, message: Message) -> list[str]:
        """The lines of the new text of a reply, without what the mail client quoted."""
        text = reply_text(
            message,
            own_addresses=[self.service.settings.from_address],
            own_names=[self.service.settings.from_name],
        )
        lines = [line.strip() for line in text.replace("\r\n", "\n").split("\n")]
        return [line[:MAX_LINE] for line in lines if line][:MAX_LINES]

    def _handle_gm(
        self, table: Table, lines: list[str], sender: str, tag: Tag, inbound: Inbound
    ) -> tuple[MailOutcome, str]:
        """A reply to a game master's mail: checked like a player's, then run as game master
        commands. Each such mail acts for `token_lifetime` and changes the game once."""
        db, game, now = table.db, table.game, table.now
        if sender not in self.service.mail.gm_addresses(game):
            return MailOutcome.REFUSED, "not a game master of this game"
        sent = db.exec(
            select(GmTag).where(GmTag.game_id == game.id, GmTag.serial == tag.decision)
        ).first()
        if sent is None or not gm_token_ok(game.gm_secret, tag):
            return MailOutcome.REFUSED, "bad game master token"
        keys = _replay_keys(tag, lines, game, None)
        replayed = self._replayed(db, keys)
        if replayed:
            return MailOutcome.IGNORED, replayed
        lifetime = timedelta(seconds=self.settings.token_lifetime_seconds)
        if as_utc(sent.sent_at) + lifetime < now:
            if may_answer(db, sender, AnswerKind.ERROR, now, self.settings.answers_per_day):
                self.service.mail.queue_gm(
                    table,
                    subject="Not applied: an old mail",
                    notice=f"Your mail answers a mail of the game sent more than "
                    f"{format_duration(int(lifetime.total_seconds()))} ago, so nothing in it "
                    "was done. Reply to this mail instead.",
                    to=[sender],
                )
            return MailOutcome.REFUSED, "game master token expired"
        answering = Tag(tag.game, GM_SEAT, sent.decision, tag.token)
        round = GameMaster(self.service).run(
            table, lines, actor=sender, answering=answering, may_change=sent.used_at is None
        )
        if round.applied:
            sent.used_at = now
        db.add(ReplyUse(key=keys[not round.applied], inbound_id=inbound.id, at=now))
        return round.mail_outcome, _told(round.results)

    def _handle_watcher(
        self,
        table: Table,
        lines: list[str],
        sender: str,
        tag: Tag,
        inbound: Inbound,
        watcher_id: int,
        *,
        automatic: bool = False,
    ) -> tuple[MailOutcome, str]:
        """A reply from someone who watches, or is invited to: `stop` from anyone who has
        their reply address; from their own address `watch` to accept an invitation, and
        once they watch the commands that look (`say` when the game lets observers talk).
        An invitation not accepted answers nothing else; a stopped observer hears nothing.
        An `automatic` mail (an unsubscribing agent's) may only stop, and is not answered."""
        db, now = table.db, table.now
        watcher = db.get(Observer, watcher_id)
        if (
            watcher is None
            or watcher.game_id != table.game.id
            or token_epoch(watcher.secret, tag, table.game.epoch) is None
        ):
            return MailOutcome.REFUSED, "bad token"
        stopping = wants_stop(lines)
        own = sender == watcher.address.lower()
        if not own and not stopping:
            return MailOutcome.REFUSED, "sender is not the observer's address"
        keys = _replay_keys(tag, lines, table.game, None)
        replayed = self._replayed(db, keys)
        if replayed:
            return MailOutcome.IGNORED, replayed
        invited = watcher.confirmed_at is None
        lapse = timedelta(days=INVITATION_DAYS)
        if invited and watcher.ended is None and as_utc(watcher.added_at) + lapse <= now:
            watcher.ended, watcher.ended_at = WatchEnd.LAPSED, now  # before the clock saw it
        if watcher.ended is not None:
            return MailOutcome.IGNORED, f"observer {watcher_id} ended ({watcher.ended}): not read"
        round = Round(
            table,
            sender,
            None,
            tag,
            opened=table.game.decision,
            inbound_id=inbound.id,
            observer=watcher,
        )
        if automatic or not own:
            run_lines(round, lines[:1], INVITED_COMMANDS)
        elif invited:
            run_lines(round, lines, INVITED_COMMANDS)
        else:
            talking = table.game.observers_talk
            run_lines(round, lines, OBSERVER_COMMANDS if talking else QUIET_OBSERVER_COMMANDS)
        db.add(ReplyUse(key=keys[not round.applied], inbound_id=inbound.id, at=now))
        outcome, told = round.mail_outcome, _told(round.results)
        mail = self.service.mail
        if round.farewell:  # stopped: one short answer (none to a machine), and nothing more
            if not automatic:
                mail.queue_stopped(table, watcher, invited=invited)
            if round.announced:
                mail.queue_round(table, [], announced=round.announced)
            return outcome, told
        if round.watchers:  # accepted: the first mail of the game, and the players told
            mail.welcome_watchers(table, round.watchers)
            mail.queue_round(table, [], announced=round.announced, welcomed=round.watchers)
            return outcome, told
        if invited:
            return outcome, told + "; not answered (an invitation not accepted)"
        kind = AnswerKind.ERROR if round.failed else AnswerKind.ANSWER
        per_day = self.settings.answers_per_day
        if may_answer(db, sender, kind, now, per_day):
            at, picture = mail.moment(table)
            answer = letters.watch(
                at,
                watcher.name,
                results=round.results,
                answers=round.answers,
                subject=engine.Message("Not applied: see why")
                if round.failed
                else engine.Message("Your answer"),
            )
            mail.queue_watch(table, watcher, answer, picture)
        mail.deliver_talk(table, round.talk, watcher)
        return outcome, told

    def _play(
        self, table: Table, seat: Seat, tag: Tag, lines: list[str], inbound: Inbound
    ) -> tuple[MailOutcome, str, bool]:
        """A player's lines, applied until one fails; everyone told what moved."""
        round = Round(
            table,
            seat.address or "",
            seat,
            tag,
            opened=table.game.decision,
            inbound_id=inbound.id,
            asked_before=asked_before(seat, tag.decision, table.now),
        )
        # a player who resigned may still look at the game, and do nothing else
        commands = RESIGNED_COMMANDS if seat.resigned else PLAYER_COMMANDS
        skipped = greeting(round, lines, commands)
        for line in lines[:skipped]:  # "Hi everyone!" above a move
            said = engine.Message("a greeting, not a command: skipped, as a line after it moves")
            round.results.append(LineResult(line, LineOutcome.IGNORED, said))
        run_lines(round, lines[skipped:], commands)
        remember_asked(round)
        results, announced = round.results, round.announced
        moved = round.moves > 0
        if seat.absent and any(
            r.outcome in (LineOutcome.APPLIED, LineOutcome.ANSWERED) for r in results
        ):
            seat.absent = False
            seat.auto_moves = 0
            announced.insert(
                0,
                engine.Message(
                    "{name} ({colour}) is back and plays again.",
                    name=seat.name,
                    colour=news.colour(seat.colour),
                ),
            )
        if moved:
            table.save()
        acted = round.applied  # a move, vacation, tz...: a line that changed the game
        outcome = round.mail_outcome
        note = ""
        if not moved and not announced:  # an answer to the sender alone: within the budget
            assert seat.address is not None
            kind = AnswerKind.ERROR if round.failed else AnswerKind.ANSWER
            per_day = self.settings.answers_per_day
            if real_commands(results, commands):  # a person trying the commands
                kind, per_day = AnswerKind.COMMAND, self.settings.command_answers_per_day
            if not may_answer(table.db, seat.address, kind, table.now, per_day):
                # what was said still reaches whoever reads it at once, the game masters too
                self.service.mail.deliver_talk(table, round.talk, seat)
                return outcome, _told(results) + "; not answered (answer budget spent)", acted
            note = _last_answer(table, seat.address, per_day, kind)
        if round.farewell:  # the game masters hear who left
            self.service.mail.queue_gm(
                table,
                subject=f"{seat.name} ({seat.colour}) resigned",
                notice=f"{seat.name} ({seat.colour}) resigned from game {table.game.id}.",
                happened=announced,
            )
        self.service.mail.queue_round(
            table,
            round.events,
            sender=seat,
            answers=round.answers,
            results=results,
            show_board=round.show_board,
            announced=announced,
            note=note,
            # news of a command that moved nothing is charged to its sender: bounded per reader
            cause=seat if not moved and not round.events else None,
        )
        self.service.mail.deliver_talk(table, round.talk, seat)
        return outcome, _told(results), acted

    def _answer_lost(self, db: Session, sender: str, now: datetime) -> None:
        """A player wrote without a usable game tag: one notice (at most once a day) that
        lists their games. A stranger gets nothing."""
        query = (
            select(Seat, Game)
            .join(Game)
            .where(
                col(Game.status).in_((GameStatus.RUNNING, GameStatus.PAUSED)),
                func.lower(Seat.address) == sender,
            )
        )
        found = list(db.exec(query))
        if not found or not may_answer(
            db, sender, AnswerKind.UNTAGGED, now, self.settings.answers_per_day
        ):
            return
        games = []
        for seat, game in found:
            if game.status == GameStatus.PAUSED:
                line = engine.Message(
                    "Game {game}: you are {name} ({colour}); it is at decision {number} "
                    "and paused.",
                    game=game.id,
                    name=seat.name,
                    colour=news.colour(seat.colour),
                    number=game.decision,
                )
            else:
                line = engine.Message(
                    "Game {game}: you are {name} ({colour}); it is at decision {number}.",
                    game=game.id,
                    name=seat.name,
                    colour=news.colour(seat.colour),
                    number=game.decision,
                )
            games.append(line)
        notice = view.Notice(
            kind=MailKind.NOTICE,
            subject=engine.Message("Not applied: which game?"),
            paragraphs=(
                engine.Message(
                    "Your mail reached the Tongiaki service, but it does not answer a mail of a "
                    "game (its reply address or subject has no game tag), so nothing in it was "
                    "read or applied."
                ),
                engine.Message(
                    "To play, reply to the newest mail of your game: its reply address says "
                    "which game, seat and decision your reply answers. This notice is sent at "
                    "most once a day."
                ),
            ),
            games=tuple(games),
        )
        address = found[0][0].address or sender  # as the seat has it, capitals and all
        self.service.mail.queue_notice(
            db, address, notice, now=now, game_id=None, lang=found[0][0].lang
        )

    def _tell_other_sender(self, db: Session, game: Game, seat: Seat, now: datetime) -> None:
        """A valid reply address of a seat used from another address: the seat's own address
        hears of it (at most once a day); the other address never gets an answer."""
        address = seat.address
        if not address:
            return
        if not may_answer(db, address, AnswerKind.OTHER_SENDER, now, self.settings.answers_per_day):
            return
        notice = view.Notice(
            kind=MailKind.NOTICE,
            subject=engine.Message("Not applied: a reply from another address"),
            paragraphs=(
                engine.Message(
                    "A reply to a mail of game {game} for your seat ({name}, "
                    "{colour}) came from another address than this one, so nothing in it "
                    "was applied. Only mail from this address acts for your seat.",
                    game=game.id,
                    name=seat.name,
                    colour=news.colour(seat.colour),
                ),
                engine.Message(
                    "If you wrote it from another address, write from this one. If you did "
                    "not, someone has a copy of a mail of your game. This notice is sent at "
                    "most once a day."
                ),
            ),
        )
        self.service.mail.queue_notice(
            db, address, notice, now=now, game_id=game.id, lang=seat.lang
        )


def _replay_keys(tag: Tag, lines: Sequence[str], game: Game, seat: Seat | None) -> tuple[str, str]:
    """The keys a reply leaves behind: the first when it acted (the same tag and commands
    never act again), the second when it did not (nor while the game and the seat stay as
    they are)."""
    said = "\n".join(" ".join(line.lower().split()) for line in lines)
    signed = f"g{tag.game}-{tag.seat_text}-{tag.decision}-{tag.token.lower()}"
    state = f"{game.status} {game.epoch} {game.decision} {game.deadline_at} {game.ended_by}" + (
        f" {seat.tz} {seat.away_until} {seat.vacation_used} {seat.absent}" if seat else ""
    )
    acted = hashlib.sha256(f"{signed}\n{said}".encode()).hexdigest()
    unchanged = hashlib.sha256(f"{signed}\n{said}\n{state}".encode()).hexdigest()
    return acted, unchanged


def real_commands(results: Sequence[LineResult], commands: Commands) -> bool:
    """Whether every line of a mail that was read is a real command: carried out, or
    refused but written as a command (its own word in any language, a move's word, an
    option's number alone). Their answers count against the larger budget; text that is
    no command, a misspelt word, a number with other words ('1 2 (auto-reply)'), a command
    that looks written with more ('status (3)') are what autoresponders write."""
    read = [r for r in results if r.outcome != LineOutcome.IGNORED]
    done = (LineOutcome.APPLIED, LineOutcome.ANSWERED)
    return bool(read) and all(
        r.outcome in done or _written_as_command(r.line, commands) for r in read
    )


def _written_as_command(line: str, commands: Commands) -> bool:
    whole = line.lower().strip(" .!")
    found = commands.named(whole)
    if found is not None and found.looks:
        return True
    verb = whole.partition(" ")[0]
    found = commands.named(verb)
    return (found is not None and not found.looks) or is_move_word(verb) or whole.isdecimal()


def _last_answer(
    table: Table, address: str, per_day: int, kind: AnswerKind = AnswerKind.ERROR
) -> str:
    """A word in the answer that spends the sender's answer budget: until when a reply that
    moves nothing goes unanswered (else a player whose refused move meets silence would
    wait for the deadline)."""
    until = spent_until(table.db, address, table.now, per_day, kind)
    if until is None:
        return ""
    if kind == AnswerKind.COMMAND:
        return engine.Message(
            "This is the last answer to your commands that move nothing (help, status, tz "
            "...) that you get before {time}: until then such replies get no answer (a "
            "setting such as tz or lang is still made), so that no autoresponder can make the "
            "game mail without end. A move you make is still applied, and everyone is mailed "
            "the news.",
            time=view.when(until),
        )
    return engine.Message(
        "This is the last answer to a reply that moves nothing (a refused line, help, status "
        "...) that you get before {time}: until then such replies get no answer, so that no "
        "autoresponder can make the game mail without end. A move you make is still applied, "
        "and everyone is mailed the news.",
        time=view.when(until),
    )


def _told(results: Sequence[LineResult]) -> str:
    """What the lines of a mail came to, for the log and the inbound row."""
    said = [
        f"{r.line} -> {r.outcome}" + (f" ({r.detail})" if r.detail and r.detail != r.line else "")
        for r in results
    ]
    return "; ".join(said)[:500]


def handle(service: Service, raw: bytes, now: datetime) -> MailOutcome:
    """Handle one inbound message of `service` exactly once; returns its outcome."""
    return Replies(service).handle(raw, now)
