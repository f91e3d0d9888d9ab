"""The record of a game for its game-over mails: made once at the game over, kept in the
database, attached to each mail or published under a name nobody can guess."""

from __future__ import annotations

import logging
import secrets
import zlib
from dataclasses import replace
from pathlib import Path

from pbem.core import ExportOnGameOver, MailKind, Settings
from pbem.game.table import Table
from pbem.store import GameRecord
from pbem.views import view
from pbem.views.export import game_record_html

log = logging.getLogger(__name__)


class Records:
    """The records of games for one configuration of the service."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._unpacked: tuple[bytes, bytes] = (b"", b"")  # the last record's page, unpacked

    def record(self, table: Table) -> GameRecord | None:
        """The record of the game for its game-over mails, when the host attaches it or
        links to it: made at the game over, kept in the database and used for every mail
        after (a reply after the game over builds and publishes nothing again)."""
        how = self.settings.export_on_game_over
        if how == ExportOnGameOver.NONE:
            return None
        game_id = table.game.id
        assert game_id is not None
        kept = table.db.get(GameRecord, game_id)
        if kept is not None and (kept.link if how == ExportOnGameOver.LINK else kept.page):
            return kept
        table.db.flush()  # the last moves and the game's end, as the record reads them
        page = game_record_html(table.db, game_id).encode()
        if how == ExportOnGameOver.LINK:
            name, link = self._publish(game_id, page)
            if not link:  # not written: the mails go out without it, a later one tries again
                return None
            made = GameRecord(game_id=game_id, name=name, link=link)
        else:
            name = f"tongiaki-game-{game_id}.html"
            made = GameRecord(game_id=game_id, name=name, page=zlib.compress(page))
        if kept is not None:
            table.db.delete(kept)  # made under the other setting
            table.db.flush()
        table.db.add(made)
        return made

    def attached(self, table: Table, mail: view.Mail) -> tuple[view.Mail, tuple[str, bytes] | None]:
        """A game-over mail with the record of the game: attached, or as its address."""
        if mail.kind != MailKind.GAME_OVER:
            return mail, None
        record = self.record(table)
        if record is None:
            return mail, None
        if record.page is None:
            return replace(mail, record_url=record.link), None
        return mail, (record.name, self._page(record))

    def _page(self, record: GameRecord) -> bytes:
        """The page of an attached record, decompressed once for all the readers of a round."""
        assert record.page is not None
        if self._unpacked[0] != record.page:
            self._unpacked = (record.page, zlib.decompress(record.page))
        return self._unpacked[1]

    def _publish(self, game_id: int, page: bytes) -> tuple[str, str]:
        """Write the record into `export_dir` under a name nobody can guess (a secret in it:
        a stranger cannot list the games); its name and address, or an empty address if it
        could not be written (logged: the game-over mails go out without it). The log names
        the file by its first characters only: the rest is the secret."""
        name = f"tongiaki-game-{game_id}-{secrets.token_urlsafe(16)}.html"
        folder = Path(self.settings.export_dir)
        try:
            if not folder.is_dir():
                folder.mkdir(parents=True)
                folder.chmod(0o755)  # the web server enters it (the service's umask is 077)
            partial = folder / f".{name}.partial"
            partial.write_bytes(page)
            partial.chmod(0o644)  # the web server reads it
            partial.replace(folder / name)
        except OSError as error:
            log.error(
                "game %s: the record could not be written into %s: %s", game_id, folder, error
            )
            return name, ""
        shown = name[: len(f"tongiaki-game-{game_id}-") + 3]
        log.info("game %s: the record is at %s/%s...", game_id, folder, shown)
        return name, self.settings.export_url.rstrip("/") + "/" + name


__all__ = ["Records"]
