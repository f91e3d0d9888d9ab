"""The door: a mail read within bounds, its reply text, its sender checks, automatic mail. Its face
names what the layers above use; each name loads its module when first used (`pbem.faces`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pbem.faces import lazy

_NAMES = {
    "authres": "FROM_LIMIT sender_refusal",
    "automatic": "automatic_reason",
    "door": "MAX_LINES MAX_LINE Letter read turned_away_why reply_lines",
    "entry": "Entry Received admit first_time",
    "inbound": (
        "MAX_FIELDS MAX_FIELD MAX_CONTENT_FIELD MAX_ADDRESS_FIELD ADDRESS_FIELDS "
        "MAX_COPIES MANY_COPIES MAX_MANY_COPIES MAX_HEAD MAX_DEPTH MAX_MULTIPARTS "
        "MailError Arrival split_head capped depth arrive shown_id sender_of headers_only "
        "database_down quarantine_row quarantined quarantined_mail take_out"
    ),
    "replytext": "Lines MAX_HEADER_LINE MAX_CONTENT_HEADER message_text reply_text new_text Attrs",
    "who": "Refused identify replay_keys",
}

if TYPE_CHECKING:  # the type checker reads the face whole
    from pbem.mail_in.authres import *  # noqa: F403
    from pbem.mail_in.automatic import *  # noqa: F403
    from pbem.mail_in.door import *  # noqa: F403
    from pbem.mail_in.entry import *  # noqa: F403
    from pbem.mail_in.inbound import *  # noqa: F403
    from pbem.mail_in.replytext import *  # noqa: F403
    from pbem.mail_in.who import *  # noqa: F403
else:
    __getattr__ = lazy(__name__, _NAMES)
