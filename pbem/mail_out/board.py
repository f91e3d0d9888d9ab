"""What the mails of a round share: the moment (`letters.Moment`) and the board picture,
made once per round and drawn only when the first mail that carries it is rendered."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import replace

from engine import Event, State
from pbem.core import GameStatus, Settings
from pbem.game.table import Table
from pbem.mail_out import policy
from pbem.mail_out.compose import Picture
from pbem.views import i18n, letters, view
from pbem.views.picture import Seen, drawn, english_differs, seen


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


def moment(
    settings: Settings, table: Table, events: Sequence[Event] = (), announced: Sequence[str] = ()
) -> tuple[letters.Moment, BoardPicture]:
    """What the mails of this round share, with the board picture: made once per round."""
    game, state = table.game, table.state
    assert game.id is not None
    domain = settings.from_address.partition("@")[2] or "localhost"
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


__all__ = ["BoardPicture", "moment"]


def folded(mail: view.Mail, *, digest: bool = False, asked: bool = False) -> view.Mail:
    """`mail` with its board folded where `policy.folded` says (news shows in full only the
    islands that changed since the reader's last mail)."""
    if mail.board and policy.folded(mail.kind, digest=digest, asked=asked):
        return replace(mail, board=view.folded(mail.board))
    return mail
