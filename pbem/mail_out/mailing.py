"""The mails of a moment of a game: who gets which mail, rendered, composed and put in the
outbox in the caller's transaction (sending is the runner's job)."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta

from sqlmodel import Session, col, delete, func, select

from engine import Event, Joined, Message, State, counted
from pbem.commands.manual import (
    NO_COMMANDS,
    QUIET_WATCH_HELP,
    RESIGNED_HELP,
    WATCH_HELP,
    command_help,
)
from pbem.core import (
    GM_SEAT,
    GameStatus,
    MailKind,
    MailMode,
    MoveSource,
    Settings,
    Tag,
    as_utc,
    gm_token,
    observer_seat,
    token,
)
from pbem.game.table import Table
from pbem.mail_out import policy
from pbem.mail_out.compose import Picture, compose, list_unsubscribe
from pbem.mail_out.envelope import Envelope, envelope, said, talk_for
from pbem.mail_out.gm_words import gm_lang, gm_seat
from pbem.mail_out.record import Records
from pbem.store import (
    INVITATION_DAYS,
    Caused,
    Game,
    GmTag,
    Held,
    Move,
    Observer,
    Outbox,
    Seat,
    Talk,
)
from pbem.views import i18n, letters, news, view
from pbem.views.i18n import duration
from pbem.views.news import colour
from pbem.views.picture import Seen, drawn, english_differs, seen
from pbem.views.render import render
from pbem.views.view import Answer, CommandHelp, LineResult, when

log = logging.getLogger(__name__)

DAY = timedelta(days=1)


def news_seen(moves: Sequence[Move], seat: int) -> int:
    """The last move of the log whose news reached `seat` by mail, for a player who gets only
    the mails that ask for their decision (`mail turns`): the mail that answered their last
    move by mail told the whole round it was made in; a move made for them (at the deadline,
    by a bot, by the game master) was asked for in a mail that told everything before it."""
    own = [n for n, move in enumerate(moves) if move.seat == seat]
    if not own:
        return 0
    last = moves[own[-1]]
    if last.source != MoveSource.MAIL:
        return last.number - 1
    seen = last.number
    for move in moves[own[-1] + 1 :]:
        if move.created_at != last.created_at:
            break
        seen = move.number
    return seen


class BoardPicture:
    """The board picture of a round, drawn when the first mail needs it, once for each way
    its readers name the islands: as printed on the tiles ('Fidschi'), or as English readers
    name them ('Fiji') where that differs. `cid`, which the views refer to, is then `Named`:
    each reader's mail refers to the picture with their names (`for_cid`)."""

    def __init__(self, state: State, game: int, domain: str) -> None:
        self.board: Seen = seen(state)
        self.game = game
        digest = hashlib.sha256(repr(self.board).encode()).hexdigest()[:20]
        self.printed = f"board-{digest}@{domain}"
        self.english = f"board-{digest}-en@{domain}"
        differs = english_differs(self.board[0])
        self.cid: str = i18n.Named(self.english, self.printed) if differs else self.printed
        self._drawn: dict[str, Picture] = {}

    def for_cid(self, cid: str) -> Picture:
        """The picture a mail refers to as `cid` (one of the two sides of `self.cid`)."""
        cid = str(cid)
        picture = self._drawn.get(cid)
        if picture is None:
            png = drawn(self.board, self.game, english=cid == self.english)
            picture = self._drawn[cid] = Picture.of(png, cid=cid)
        return picture


class Mailer:
    """Queues the mails of a game for one configuration of the service."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        # the players' help, with the host's vacation allowance
        allowance = duration(settings.vacation_allowance_seconds)
        self.commands = command_help(allowance=allowance)
        self.records = Records(settings)  # the game's record, for its game-over mails

    def deadline_view(self, game: Game, seat: Seat) -> view.Deadline | None:
        """The open decision's deadline as `seat` reads it: in UTC and in their zone."""
        if game.deadline_at is None or game.status != GameStatus.RUNNING:
            return None
        return view.deadline(as_utc(game.deadline_at), seat.tz)

    def moment(
        self, table: Table, events: Sequence[Event] = (), announced: Sequence[str] = ()
    ) -> tuple[letters.Moment, BoardPicture]:
        """What the mails of this round share, with the board picture: made once per round."""
        game, state = table.game, table.state
        assert game.id is not None
        domain = self.settings.from_address.partition("@")[2] or "localhost"
        picture = BoardPicture(state, game.id, domain)
        at = letters.moment(
            game.id,
            state,
            table.names,
            table.bots,
            events,
            picture.cid,
            announced=announced,
            outcome=table.outcome,
            paused=game.status == GameStatus.PAUSED,
            resigned=[s.resigned for s in table.seats],
            removed=[s.kicked for s in table.seats],
        )
        return at, picture

    def queue_round(
        self,
        table: Table,
        events: Sequence[Event],
        *,
        sender: Seat | None = None,
        answers: Sequence[Answer] = (),
        results: Sequence[LineResult] = (),
        show_board: bool = False,
        announced: Sequence[str] = (),
        subject: str = "",
        welcomed: Sequence[Observer] = (),
        told: Mapping[int, str] | None = None,
        note: str = "",
        cause: Seat | None = None,
        quiet: bool | None = None,
    ) -> None:
        """The mails of a round, as `policy.deliveries` says: the sender hears how their
        reply went (and the `note`, a word to them alone); after a move everyone hears what
        happened (but observers `welcomed` in this round, who got the board) and whoever
        decides next gets their options; a change that is no move (`quiet`: by default, a
        round without events) is a short line the clock's next round sends, gathered with the
        other changes of the poll. The seats `told` (by number) get it whatever their mail
        mode, under the subject given: news about them.

        `cause`: the seat whose command that moved nothing made this round's news (a
        vacation, a resignation): they hear nothing more of it, and each other reader gets
        at most `caused_per_day` such mails of theirs a day; past that, the reader's news
        waits for their next mail (`_hold`)."""
        told = told or {}
        at, picture = self.moment(table, events, announced)
        over = at.final is not None
        happening = policy.Happening(
            news=bool(events) or bool(announced),
            quiet=(not events and not over) if quiet is None else quiet and not over,
            sender=sender.seat if sender is not None else None,
            cause=cause.seat if cause is not None else None,
            told=frozenset(told),
            deadline_moved=self._deadline_moved(table),
            over=over,
        )
        readers = [self.reader(table, seat) for seat in table.seats if seat.address]
        for each in policy.deliveries(happening, readers):
            seat = table.seats[each.seat]
            send = each.send
            if each.charged and cause is not None and not self._may_cause(table, cause, seat):
                send = each.past_bound
            named = i18n.words(seat.lang, seat.tz).say(_name(cause)) if cause else ""
            if send is policy.Send.NOW:
                mine = seat is sender
                mail = letters.letter(
                    at,
                    seat.seat,
                    results=results if mine else (),
                    answers=answers if mine else (),
                    remark=self.remark(seat, note if mine else ""),
                    subject=told.get(seat.seat, subject),
                    show_board=happening.news or (mine and show_board),
                    deadline=self.deadline_view(table.game, seat),
                    earlier=self._unseen(table, seat) if each.catch_up else (),
                )
                mail = self._with_held(table, seat, mail)
                self.queue(table, seat, mail, picture, asked=mine and show_board)
            elif send is not policy.Send.NOTHING:
                soon = send is policy.Send.SOON
                self._hold(table, seat, at.happened, named, soon=soon)
        if happening.news and not happening.quiet:
            self.watchers_hear(table, at, picture, skip=welcomed, cause=cause)

    def reader(self, table: Table, seat: Seat) -> policy.Reader:
        """A seat as `policy` sees it: its settings, and whether the open decision is its."""
        decision = table.state.decision
        decides = (
            table.game.status == GameStatus.RUNNING
            and decision is not None
            and decision.seat == seat.seat
        )
        return policy.Reader(seat.seat, seat.mail_mode, seat.picture, seat.resigned, decides)

    def _deadline_moved(self, table: Table) -> bool:
        """Whether the open decision's deadline differs from the one its decider's calendar
        has: set, moved, or given back after a pause."""
        game, decision = table.game, table.state.decision
        if decision is None or game.deadline_at is None or game.status != GameStatus.RUNNING:
            return False
        sent = table.seats[decision.seat].calendar_at
        return sent is None or as_utc(sent) != as_utc(game.deadline_at)

    def _unseen(self, table: Table, seat: Seat) -> Sequence[Event]:
        """What happened since the last mail a player of `mail turns` got, before this round."""
        seen = news_seen(table.moves(), seat.seat)
        if seen + 1 < table.opened:  # rounds this player got no mail of
            return table.events_between(seen, table.opened)
        return ()

    def _may_cause(self, table: Table, cause: Seat | Observer, reader: Seat | Observer) -> bool:
        """Whether `cause`'s commands that moved nothing may mail `reader` once more now (and
        it is counted): at most `caused_per_day` such mails in 24 hours per game."""
        assert table.game.id is not None and cause.address and reader.address
        db, now, game_id = table.db, table.now, table.game.id
        who, whom = cause.address.lower(), reader.address.lower()
        db.exec(delete(Caused).where(col(Caused.game_id) == game_id, col(Caused.at) < now - DAY))
        sent = db.exec(
            select(func.count())
            .select_from(Caused)
            .where(Caused.game_id == game_id, Caused.cause == who, Caused.reader == whom)
        ).one()
        if sent >= self.settings.caused_per_day:
            log.info(
                "game %s: no mail to %s caused by %s today: %d already", game_id, whom, who, sent
            )
            return False
        db.add(Caused(game_id=game_id, cause=who, reader=whom, at=now))
        return True

    def _hold(
        self,
        table: Table,
        seat: Seat,
        happened: Sequence[str],
        cause: str = "",
        *,
        soon: bool = False,
    ) -> None:
        """Keep news for `seat`'s digest or next mail (`soon`: the clock's next round), as
        the player reads it; `cause`: whose command that moved nothing made it, named as the
        reader reads it."""
        if not happened:
            return
        assert table.game.id is not None
        lines = json.dumps([i18n.words(seat.lang, seat.tz).say(line) for line in happened])
        row = Held(
            game_id=table.game.id, seat=seat.seat, at=table.now, lines=lines, cause=cause, soon=soon
        )
        table.db.add(row)

    def _with_held(self, table: Table, seat: Seat, mail: view.Mail) -> view.Mail:
        """A mail that tells news or asks for a decision, with the news held for `seat`
        before its own (unless they get a digest, which tells it): the news of other
        players' commands that waited past `caused_per_day`."""
        if seat.mail_mode == MailMode.DIGEST or not (mail.happened or mail.decision):
            return mail
        rows = list(
            table.db.exec(
                select(Held)
                .where(Held.game_id == table.game.id, Held.seat == seat.seat)
                .order_by(col(Held.id))
            )
        )
        if not rows:
            return mail
        for row in rows:
            table.db.delete(row)
        return replace(mail, happened=(*held_news(rows), *mail.happened))

    def remark(self, seat: Seat, note: str = "") -> str:
        """A word to a player about how their seat is played, when it is not by them, and the
        `note` for them."""
        said = self._played_by(seat)
        return Joined(" ", [said, note]) if said and note else said or note

    def _played_by(self, seat: Seat) -> str:
        if seat.resigned:
            return Message(
                "You resigned from this game: the {bot} bot plays your seat to the end.",
                bot=seat.bot or self.settings.absent_bot,
            )
        if seat.absent:
            return Message(
                "You are marked absent: the game moves for you (the {bot} bot plays your seat "
                "without waiting while another player plays on). Reply to this mail with any "
                "command (status, for example) to play again.",
                bot=self.settings.absent_bot,
            )
        if seat.bot:
            return Message(
                "The game master has the {bot} bot play your seat for now.", bot=seat.bot
            )
        return ""

    def queue(
        self,
        table: Table,
        seat: Seat,
        mail: view.Mail,
        picture: BoardPicture | None,
        *,
        digest: bool = False,
        asked: bool = False,
    ) -> None:
        """Render a mail and put it in the outbox; its reply address names the seat and the
        decision open now, so that any mail of the game can be answered. It carries the
        board picture where `policy.picture` says (a `digest`, a board the player `asked`
        for, their prompt), by the player's choice."""
        if mail.picture and not policy.picture(seat.picture, mail.kind, digest=digest, asked=asked):
            mail = replace(mail, picture=None)
        if mail.board and policy.folded(mail.kind, digest=digest, asked=asked):
            mail = replace(mail, board=view.folded(mail.board))
        self.post(table, envelope(table, seat, mail), picture)

    def post(self, table: Table, letter: Envelope, picture: BoardPicture | None) -> None:
        """Render a mail addressed already and put it in the outbox."""
        mail, record = self.records.attached(table, letter.mail)
        self._queue_mail(
            table,
            letter.address,
            mail,
            tag=letter.tag,
            picture=picture,
            calendar=letter.calendar,
            record=record,
            words=letter.words,
            commands=self._help(letter),
        )

    def _help(self, letter: Envelope) -> CommandHelp:
        """The commands a mail to a player lists: none in the last mail of a seat, those
        that look to a player who resigned, all of them to a player."""
        if letter.leaving:
            return NO_COMMANDS
        return RESIGNED_HELP if letter.resigned else self.commands

    def observer_tag(self, table: Table, watcher: Observer) -> Tag:
        """The tag of a mail to an observer: their reply address, for their commands and
        their `stop`."""
        game = table.game
        assert game.id is not None and watcher.id is not None
        seat = observer_seat(watcher.id)
        signed = token(watcher.secret, game.id, seat, game.decision, game.epoch)
        return Tag(game.id, seat, game.decision, signed)

    def queue_watch(
        self,
        table: Table,
        watcher: Observer,
        mail: view.Mail,
        picture: BoardPicture | None,
        *,
        pictured: bool = False,
    ) -> None:
        """A mail to someone who watches the game; its reply address is theirs (for `say`,
        `status` and the other commands that look), and so is its List-Unsubscribe. The
        board picture goes with their first mail (`pictured`) and the game over."""
        game = table.game
        if not pictured and mail.kind != MailKind.GAME_OVER:
            mail = replace(mail, picture=None)
        if mail.board and policy.folded(mail.kind, asked=pictured or bool(mail.answers)):
            mail = replace(mail, board=view.folded(mail.board))
        tag = self.observer_tag(table, watcher)
        talk = [t for t in talk_for(table, watcher.talk_seen, None) if t.observer_id != watcher.id]
        if talk:
            watcher.talk_seen = talk[-1].id or watcher.talk_seen
        mail = replace(
            mail,
            talk=tuple(said(t, None) for t in talk),
            watching=tuple(o.name for o in table.observers),
        )
        mail, record = self.records.attached(table, mail)
        self._queue_mail(
            table,
            watcher.address,
            mail,
            tag=tag,
            picture=picture,
            record=record,
            words=i18n.words(game.lang),
            commands=WATCH_HELP if game.observers_talk else QUIET_WATCH_HELP,
            unsubscribe=True,
        )

    def welcome_watchers(self, table: Table, watchers: Sequence[Observer]) -> None:
        """Someone starts to watch the game: a first mail with the board."""
        if not watchers:
            return
        at, picture = self.moment(table)
        for watcher in watchers:
            subject = Message("You watch game {game}", game=at.game)
            mail = letters.watch(at, watcher.name, subject=subject)
            self.queue_watch(table, watcher, mail, picture, pictured=True)

    def invite(self, table: Table, watchers: Sequence[Observer]) -> None:
        """Someone the game master named is asked whether they will watch: who invites
        (the game, its game master, never their address nor the names and words the game
        master gave), how to accept, how to decline; nothing else goes to them until then."""
        game = table.game
        for watcher in watchers:
            lapses = when(as_utc(watcher.added_at) + timedelta(days=INVITATION_DAYS))
            notice = view.Notice(
                kind=MailKind.INVITATION,
                subject=Message("Will you watch game {game}?", game=game.id),
                paragraphs=(
                    Message(
                        "The game master of game {game} of Tongiaki by email (a board game "
                        "played by mail) invites you to watch it: a mail after each round with "
                        "the news and the board, and the final result. You make no moves and "
                        "nobody waits for you.",
                        game=game.id,
                    ),
                    Message(
                        "To accept, reply to this mail with the word watch. Until you do, "
                        "this game mails you nothing more; without an answer by {time}, the "
                        "invitation lapses.",
                        time=lapses,
                    ),
                    Message(
                        "If you do not want it, do nothing, or reply stop (your mail "
                        "program's unsubscribe does the same): then no game master of this "
                        "service invites you again."
                    ),
                ),
                footer=Message(
                    "Tongiaki by email. You get this mail because the game master of game "
                    "{game} gave your address; a reply to it is read only for watch or stop.",
                    game=game.id,
                ),
            )
            self._queue_observer_notice(table, watcher, notice)

    def queue_stopped(self, table: Table, watcher: Observer, *, invited: bool) -> None:
        """The one short answer to an observer's `stop` (a stop that was `invited` declined
        an invitation): after it, nothing."""
        game = table.game
        said = (
            Message(
                "You said stop: this is the last mail you get from game {game}, and no game "
                "master of this service invites you to watch a game again.",
                game=game.id,
            )
            if invited
            else Message(
                "You said stop: this is the last mail you get from game {game}.", game=game.id
            )
        )
        notice = view.Notice(
            kind=MailKind.NOTICE,
            subject=Message("No more mail from game {game}", game=game.id),
            paragraphs=(said,),
            footer=Message("Tongiaki by email. A reply to this mail is not read."),
        )
        self._queue_observer_notice(table, watcher, notice)

    def _queue_observer_notice(self, table: Table, watcher: Observer, notice: view.Notice) -> None:
        """A short mail to an observer (an invitation, the answer to a stop) in the game's
        language, answerable with their own reply address and List-Unsubscribe."""
        game = table.game
        assert game.id is not None
        tag = self.observer_tag(table, watcher)
        words = i18n.words(game.lang)
        said = words.translated(notice)
        text, html = render(said, NO_COMMANDS, words)
        message = compose(
            self.settings,
            recipient=watcher.address,
            subject=f"[Tongiaki g{game.id}] {said.subject}",
            text=text,
            html=html,
            game_id=game.id,
            tag=tag,
            now=table.now,
            headers={
                "X-Tongiaki-Kind": str(notice.kind),
                "List-Unsubscribe": list_unsubscribe(self.settings, tag),
            },
        )
        _outbox(table.db, game.id, watcher.address, message, table.now)

    def watchers_hear(
        self,
        table: Table,
        at: letters.Moment,
        picture: BoardPicture,
        *,
        sender: Observer | None = None,
        results: Sequence[LineResult] = (),
        answers: Sequence[Answer] = (),
        skip: Sequence[Observer] = (),
        cause: Seat | None = None,
    ) -> None:
        """Everyone who watches gets the news of this moment (the sender their answer); news
        a player's command that moved nothing made (`cause`), at most `caused_per_day`
        times a day of each player (past that, an observer does without it)."""
        for watcher in table.observers:
            if any(watcher is other for other in skip):
                continue
            mine = watcher is sender
            if not mine and not at.happened and at.final is None:
                continue
            if cause is not None and not mine and not self._may_cause(table, cause, watcher):
                continue
            mail = letters.watch(
                at,
                watcher.name,
                results=results if mine else (),
                answers=answers if mine else (),
            )
            self.queue_watch(table, watcher, mail, picture)

    def deliver_talk(self, table: Table, said: Sequence[Talk]) -> None:
        """Table talk just said: the game masters read it at once when the host lets them
        (every time: `talk_per_day` bounds them); the players get it from the clock
        (`send_talk`) or with their next mail of the game."""
        if not said or not self.settings.gm_reads_talk:
            return
        names = {s.seat: _name(s) for s in table.seats}
        lines = [
            Message("{speaker} to the table: {text}", speaker=news.speaker(t.speaker), text=t.text)
            if t.to_seat is None
            else Message(
                "{speaker} to {to}: {text}",
                speaker=news.speaker(t.speaker),
                to=names[t.to_seat],
                text=t.text,
            )
            for t in said
        ]
        subject = Message("Table talk in game {game}", game=table.game.id)
        self.queue_gm(table, subject=subject, happened=lines)

    def send_talk(self, table: Table, seat: Seat) -> bool:
        """The table talk `seat` has not read, in one mail now if `policy.talk_due` says so:
        charged to its speakers, each of whom may cause `caused_per_day` such mails a day to
        this reader (a speaker past it rides along with the others' talk, or waits for the
        reader's next mail). Whether a mail was queued."""
        unread = talk_for(table, seat.talk_seen, seat.seat)
        said_at = [as_utc(t.at) for t in unread]
        if not seat.address or seat.resigned:
            return False
        if not policy.talk_due(said_at, table.now, talk_now=seat.talk_now):
            return False
        speakers = {(t.seat, t.observer_id) for t in unread}
        charged = [self._may_cause(table, who, seat) for who in self._speakers(table, speakers)]
        if not any(charged):
            return False
        at, _ = self.moment(table)
        self.queue(table, seat, letters.talk(at, seat.seat), None)
        return True

    def _speakers(
        self, table: Table, speakers: set[tuple[int | None, int | None]]
    ) -> list[Seat | Observer]:
        """The seats and observers who said the talk, by seat number or observer id."""
        found: list[Seat | Observer] = []
        for number, observer_id in sorted(speakers, key=str):
            if number is not None:
                found.append(table.seats[number])
            else:
                found += [o for o in table.observers if o.id == observer_id]
        return [who for who in found if who.address]

    def queue_gm(
        self,
        table: Table,
        *,
        subject: str,
        notice: str = "",
        results: Sequence[LineResult] = (),
        answers: Sequence[Answer] = (),
        happened: Sequence[str] = (),
        show_board: bool = False,
        to: Sequence[str] | None = None,
    ) -> None:
        """A mail to the game masters (the game's own and the host's, or `to`), answerable
        with game master commands."""
        db, game, now = table.db, table.game, table.now
        assert game.id is not None
        recipients = list(to) if to is not None else table.gm_addresses()
        if not recipients:
            return
        at, picture = self.moment(table)
        status = at.waiting
        mail = view.GmMail(
            kind=MailKind.GM,
            game=game.id,
            subject=subject,
            notice=notice,
            results=tuple(results),
            answers=tuple(answers),
            happened=tuple(happened),
            status=status,
            deadline=view.deadline(as_utc(game.deadline_at))
            if game.deadline_at is not None and game.status == GameStatus.RUNNING
            else None,
            seats=tuple(gm_seat(seat, self.settings.absent_bot) for seat in table.seats),
            board=at.board if show_board else None,
            final=at.final,
            picture=at.picture if show_board else None,
        )
        # each mail to the game masters has a number of its own: it acts once
        last = select(func.max(GmTag.serial)).where(GmTag.game_id == game.id)
        serial = (db.exec(last).one() or 0) + 1
        db.add(GmTag(game_id=game.id, serial=serial, decision=game.decision, sent_at=now))
        tag = Tag(game.id, GM_SEAT, serial, gm_token(game.gm_secret, game.id, serial))
        for address in dict.fromkeys(recipients):
            words = i18n.words(gm_lang(game, address))
            self._queue_mail(
                table, address, mail, tag=tag, picture=picture if show_board else None, words=words
            )

    def queue_notice(
        self,
        db: Session,
        address: str,
        notice: view.Notice,
        *,
        now: datetime,
        game_id: int | None,
        lang: str | None = None,
    ) -> None:
        """A notice about a refused mail: no reply address of a game, no picture; in `lang`
        (the recipient's seat's language, when the notice is about one)."""
        words = i18n.words(lang)
        said = words.translated(notice)
        text, html = render(said, self.commands, words)
        message = compose(
            self.settings,
            recipient=address,
            subject=f"[Tongiaki{f' g{game_id}' if game_id else ''}] {said.subject}",
            text=text,
            html=html,
            game_id=game_id,
            tag=None,
            now=now,
            headers={"X-Tongiaki-Kind": str(notice.kind)},
        )
        _outbox(db, game_id, address, message, now)

    def _queue_mail(
        self,
        table: Table,
        address: str,
        mail: view.Mail | view.GmMail,
        *,
        tag: Tag,
        picture: BoardPicture | None = None,
        calendar: bytes | None = None,
        record: tuple[str, bytes] | None = None,
        words: i18n.Words = i18n.ENGLISH_WORDS,
        commands: CommandHelp | None = None,
        unsubscribe: bool = False,
    ) -> None:
        """Render `mail` in `words`, compose it with its parts and put it in the outbox;
        with `unsubscribe` (an observer's mail) its List-Unsubscribe is `stop` to `tag`."""
        game, now = table.game, table.now
        assert game.id is not None
        mail = words.translated(mail)
        text, html = render(mail, commands or self.commands, words)
        message = compose(
            self.settings,
            recipient=address,
            subject=f"[Tongiaki g{game.id}] {mail.subject}",
            text=text,
            html=html,
            picture=picture.for_cid(mail.picture) if picture and mail.picture else None,
            game_id=game.id,
            tag=tag,
            now=now,
            headers=_headers(mail)
            | ({"List-Unsubscribe": list_unsubscribe(self.settings, tag)} if unsubscribe else {}),
            calendar=calendar,
            record=record,
        )
        _outbox(table.db, game.id, address, message, now)


HELD_LINES = 5  # lines of news of one player's commands that moved nothing, in one mail


def held_news(rows: Sequence[Held]) -> list[str]:
    """The news held for a reader, oldest first: of each player whose commands that moved
    nothing made news, at most HELD_LINES lines, then how many more there were."""
    lines: list[str] = []
    told: dict[str, int] = {}
    for row in rows:
        for line in json.loads(row.lines):
            if row.cause:
                told[row.cause] = told.get(row.cause, 0) + 1
                if told[row.cause] > HELD_LINES:
                    continue
            lines.append(line)
    for name, count in told.items():
        if count > HELD_LINES:
            lines.append(
                counted(
                    "... and {count} more line about {name}, left out",
                    "... and {count} more lines about {name}, left out",
                    count - HELD_LINES,
                    name=name,
                )
            )
    return lines


def _name(seat: Seat) -> str:
    return Message("{name} ({colour})", name=seat.name, colour=colour(seat.colour))


def _outbox(db: Session, game_id: int | None, address: str, message: bytes, now: datetime) -> None:
    """Put a composed mail in the outbox, to go out at once."""
    db.add(
        Outbox(
            game_id=game_id,
            recipient=address,
            message=bytes(message),
            created_at=now,
            next_attempt_at=now,
        )
    )


def _headers(mail: view.Mail | view.GmMail) -> dict[str, str]:
    """What kind of mail this is, for the players' mail filters and for tests."""
    headers = {"X-Tongiaki-Kind": str(mail.kind)}
    if isinstance(mail, view.Mail) and mail.decision is not None:
        headers["X-Tongiaki-Decision"] = f"{mail.decision.number} {mail.decision.kind}"
    refused = [r.code for r in mail.results if r.code]
    if refused:  # which refusal, in any language: a player's, an observer's, a game master's
        headers["X-Tongiaki-Refused"] = " ".join(refused)
    return headers
