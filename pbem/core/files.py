"""The service's files without the database's or the mail servers' machinery: kept its
user's alone, the local mail folders; the command line's quick commands use them as
`pbem.store.db` and `pbem.host.transport` do."""

from __future__ import annotations

import logging
import stat
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import mailbox

BUSY_SECONDS = 30  # how long a write waits for another process's write to end
# what the service makes is its user's alone: the database holds every seat's secret
PRIVATE_UMASK = 0o077

log = logging.getLogger(__name__)


def others_may_read(path: Path) -> bool:
    """Whether users other than the owner may read or enter `path` (False if it is not there)."""
    try:
        return bool(path.stat().st_mode & PRIVATE_UMASK)
    except OSError:  # not there, or in a folder this user cannot read
        return False


def make_private(path: Path) -> None:
    """Take group's and others' access to `path` away (a file or folder of the service's, made
    before the service set its umask), saying so in the log; a path it may not change is left
    as it is and logged (`pbem check-config` warns of it too)."""
    if not others_may_read(path):
        return
    mode = stat.S_IMODE(path.stat().st_mode)
    try:
        path.chmod(mode & ~PRIVATE_UMASK)
    except OSError as error:
        log.warning("%s may be read by other users of the host: %s", path, error.strerror)
        return
    log.warning(
        "%s could be read by other users of the host (mode %o): now by its owner only",
        path,
        mode,
    )


def maildir(path: Path) -> mailbox.Maildir:
    """The Maildir at `path`, created with its parent folders if need be."""
    import mailbox  # here: `pbem --version` reads no mail

    path.parent.mkdir(parents=True, exist_ok=True)
    return mailbox.Maildir(path, create=True)


__all__ = ["BUSY_SECONDS", "PRIVATE_UMASK", "maildir", "make_private", "others_may_read"]
