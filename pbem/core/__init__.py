"""The lowest layer: settings, errors, kinds, time arithmetic, names and addresses, reply-address
tokens. Its face names what the layers above use; each name loads its module when first used
(`pbem.faces`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pbem.faces import lazy

_NAMES = {
    "addressing": (
        "GM_SEAT observer_seat observer_of Tag token gm_token token_epoch gm_token_ok "
        "reply_address subject_tag find_tag"
    ),
    "clock": (
        "LONGEST DurationError Reminder as_utc due_reminder format_duration next_wake "
        "parse_duration parse_reminders reminder_times time_zone time_zones utc_now "
        "zone_meant zone_named"
    ),
    "config": (
        "ConfigError MailTransport Tls AuthenticatedFrom ExportOnGameOver ImapSettings "
        "SmtpSettings Settings SQLITE_URL POSTGRES_URL LOG_LEVELS load_settings shown_url "
        "settings_toml"
    ),
    "errors": "PbemError",
    "files": "BUSY_SECONDS PRIVATE_UMASK maildir make_private others_may_read",
    "headers": "header_texts header_text raw_header_texts",
    "identity": "ADDRESS_LIMIT NAME_LIMIT IdentityError check_address check_name unnamed_observer",
    "kinds": (
        "GameStatus LineOutcome MailOutcome MoveSource MailMode PictureChoice MailKind "
        "WatchEnd AnswerTopic AnswerKind E EnumText"
    ),
    "languages": "ENGLISH LANGUAGES",
    "text": "SHOWN shown",
}

if TYPE_CHECKING:  # the type checker reads the face whole
    from pbem.core.addressing import *  # noqa: F403
    from pbem.core.clock import *  # noqa: F403
    from pbem.core.config import *  # noqa: F403
    from pbem.core.errors import *  # noqa: F403
    from pbem.core.files import *  # noqa: F403
    from pbem.core.headers import *  # noqa: F403
    from pbem.core.identity import *  # noqa: F403
    from pbem.core.kinds import *  # noqa: F403
    from pbem.core.languages import *  # noqa: F403
    from pbem.core.text import *  # noqa: F403
else:
    __getattr__ = lazy(__name__, _NAMES)
