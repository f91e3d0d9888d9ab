"""The database: its tables, sessions and upgrades. Its face names what the layers above use; each
name loads its module when first used (`pbem.faces`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pbem.faces import lazy

_NAMES = {
    "db": (
        "LASTING FOR_NOW ROOM CONNECT_SECONDS GAME_LOCK CLOCK_LOCK NO_GAME open_database "
        "postgres_arguments on_postgres hold_game hold session written_alone read_rows_of "
        "found_any reading compact "
        "incremental backup Unusable damage problems check_intact damaged explain "
        "storage_problem"
    ),
    "migrate": "SCHEMA_VERSION SCHEMA_LOCK Step UPGRADES SchemaError schema_version upgrade",
    "models": (
        "Game Seat MAX_OBSERVERS INVITATION_DAYS Observer Declined Talk MailChoice Held "
        "Caused Move Inbound Quarantined ReplyUse GmTag Answered Outbox GmAction Setting "
        "GameRecord"
    ),
}

if TYPE_CHECKING:  # the type checker reads the face whole
    from pbem.store.db import *  # noqa: F403
    from pbem.store.migrate import *  # noqa: F403
    from pbem.store.models import *  # noqa: F403
else:
    __getattr__ = lazy(__name__, _NAMES)
