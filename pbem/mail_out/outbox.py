"""A mail rendered and put in the outbox: `Post` renders a view into the bytes of a mail
(`render` and `compose`: no side effects) and queues them (`put`) in the caller's
transaction. Sending is the runner's job."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime

from sqlalchemy import insert
from sqlmodel import Session

from pbem.commands.manual import command_help
from pbem.core import Settings, Tag
from pbem.game.table import Table
from pbem.mail_out.board import BoardPicture
from pbem.mail_out.compose import compose, list_unsubscribe
from pbem.mail_out.record import Records
from pbem.store import Outbox
from pbem.views import i18n, view
from pbem.views.i18n import duration
from pbem.views.render import render
from pbem.views.view import CommandHelp

_PUT = insert(Outbox.__table__)  # type: ignore[attr-defined]  # built once
# what a new row of the outbox holds unless told otherwise: the model's own defaults
_NEW = {
    name: field.default
    for name, field in Outbox.model_fields.items()
    if name != "id" and not field.is_required()
}


class Post:
    """Renders and queues the mails of games for one configuration of the service."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        # the players' help, with the host's vacation allowance
        allowance = duration(settings.vacation_allowance_seconds)
        self.commands = command_help(allowance=allowance)
        self.records = Records(settings)  # the game's record, for its game-over mails

    def send(
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
        text, html = render(mail, commands or self.commands, words)  # said in `words` there
        cid = words.translated(mail.picture)  # the picture with the reader's names
        message = compose(
            self.settings,
            recipient=address,
            subject=f"[Tongiaki g{game.id}] {words.translated(mail.subject)}",
            text=text,
            html=html,
            picture=picture.for_cid(cid) if picture and cid else None,
            game_id=game.id,
            tag=tag,
            now=now,
            headers=headers(mail)
            | ({"List-Unsubscribe": list_unsubscribe(self.settings, tag)} if unsubscribe else {}),
            calendar=calendar,
            record=record,
        )
        put(table.db, game.id, address, message, now)

    def gathered(self, db: Session) -> AbstractContextManager[None]:
        """A block whose mails go in the outbox in one statement (`gathered`)."""
        return gathered(db)

    def notice(
        self,
        address: str,
        notice: view.Notice,
        words: i18n.Words,
        *,
        now: datetime,
        game_id: int | None,
        tag: Tag | None = None,
        commands: CommandHelp | None = None,
    ) -> bytes:
        """A short mail (a refused mail's notice, an invitation, the answer to a stop)
        rendered in `words`: answerable with `tag` (and unsubscribed with it) if given."""
        said = words.translated(notice)
        text, html = render(said, commands or self.commands, words)
        extra = {"List-Unsubscribe": list_unsubscribe(self.settings, tag)} if tag else {}
        return compose(
            self.settings,
            recipient=address,
            subject=f"[Tongiaki{f' g{game_id}' if game_id else ''}] {said.subject}",
            text=text,
            html=html,
            game_id=game_id,
            tag=tag,
            now=now,
            headers={"X-Tongiaki-Kind": str(notice.kind)} | extra,
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
        message = self.notice(address, notice, i18n.words(lang), now=now, game_id=game_id)
        put(db, game_id, address, message, now)


def put(db: Session, game_id: int | None, address: str, message: bytes, now: datetime) -> None:
    """Put a composed mail in the outbox, to go out at once: one INSERT of the table's row
    (the ORM's unit of work would keep a copy of the mail and flush it, which costs more than
    the statement; nothing here reads the row back), or one for all the mails `gathered`."""
    row = {
        **_NEW,
        "game_id": game_id,
        "recipient": address,
        "message": bytes(message),
        "created_at": now,
        "next_attempt_at": now,
    }
    waiting = db.info.get(_GATHERED)
    if waiting is not None:
        waiting.append(row)
    else:
        db.connection().execute(_PUT, row)


_GATHERED = "outbox gathered"  # the session's key of the rows `gathered` waits to put


@contextmanager
def gathered(db: Session) -> Iterator[None]:
    """A block whose mails are put in the outbox together at its end, in their order (one
    statement for a round's mails: nothing reads the outbox before the commit); a block
    that raises puts none."""
    if _GATHERED in db.info:  # inside another: that one puts them
        yield
        return
    rows: list[dict[str, object]] = []
    db.info[_GATHERED] = rows
    try:
        yield
    finally:
        del db.info[_GATHERED]
    if rows:
        db.connection().execute(_PUT, rows)


def headers(mail: view.Mail | view.GmMail) -> dict[str, str]:
    """What kind of mail this is, for the players' mail filters and for tests."""
    found = {"X-Tongiaki-Kind": str(mail.kind)}
    if isinstance(mail, view.Mail) and mail.decision is not None:
        found["X-Tongiaki-Decision"] = f"{mail.decision.number} {mail.decision.kind}"
    refused = [r.code for r in mail.results if r.code]
    if refused:  # which refusal, in any language: a player's, an observer's, a game master's
        found["X-Tongiaki-Refused"] = " ".join(refused)
    return found


__all__ = ["Post", "gathered", "headers", "put"]
