"""Where mail comes from and goes to: a local Maildir or a real IMAP and SMTP server."""

from __future__ import annotations

import asyncio
import imaplib
import os
import re
import select
import socket
import ssl
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import aiosmtplib
from aiosmtplib.email import quote_address
from aiosmtplib.protocol import normalize_message_line_endings
from aiosmtplib.status import SMTPStatus

from pbem.core import ImapSettings, MailTransport, Settings, SmtpSettings, Tls, maildir

if TYPE_CHECKING:
    from imapclient import IMAPClient


class Inbox(Protocol):
    def new_messages(self) -> Iterator[tuple[str, bytes]]:
        """(key, raw message) for every message not yet handled."""
        ...

    def mark_handled(self, keys: Sequence[str]) -> None:
        """Mark these messages handled: they are not among the new ones again."""
        ...


class Sender(Protocol):
    """Opened once per flush (`async with`), then `send` for each mail."""

    async def __aenter__(self) -> Sender: ...

    async def __aexit__(self, *exc_info: object) -> None: ...

    async def close(self) -> None: ...

    async def send(self, raw: bytes, sender: str, recipient: str) -> None: ...


class MaildirInbox:
    """A local Maildir: a message is handled once it carries the Seen flag.

    Flags are read from the file names (`KEY:2,FLAGS` in `cur/`), never from the mails, and
    only unhandled mail is read: a poll costs a directory listing, however many mails were
    handled before, and marking a mail renames its file without rewriting it.
    """

    def __init__(self, path: Path) -> None:
        maildir(path)  # made with its folders if need be
        self.root = path

    def new_messages(self) -> Iterator[tuple[str, bytes]]:
        waiting: list[tuple[str, Path]] = []
        for sub in ("new", "cur"):
            with os.scandir(self.root / sub) as entries:
                for entry in entries:
                    name = entry.name
                    if name.startswith("."):
                        continue
                    key, _, info = name.partition(":")
                    if sub == "cur" and "S" in info.partition(",")[2]:
                        continue
                    waiting.append((key, Path(entry.path)))
        for _, path in sorted(waiting):
            try:
                raw = path.read_bytes()
            except FileNotFoundError:  # taken away meanwhile
                continue
            yield f"{path.parent.name}/{path.name}", raw

    def mark_handled(self, keys: Sequence[str]) -> None:
        for key in keys:
            sub, _, name = key.partition("/")
            base, _, info = name.partition(":")
            flags = info.partition(",")[2] if info.startswith("2,") else ""
            target = self.root / "cur" / f"{base}:2,{''.join(sorted(set(flags) | {'S'}))}"
            os.rename(self.root / sub / name, target)


class ImapInbox:
    """An IMAP folder: unseen messages by UID, flagged Seen once handled."""

    def __init__(self, client: IMAPClient) -> None:
        self.client = client

    def new_messages(self) -> Iterator[tuple[str, bytes]]:
        """One FETCH a message, in the order of their UIDs: a large one is in memory alone."""
        self.client.noop()
        unseen: list[int] = sorted(self.client.search("UNSEEN"))
        for uid in unseen:
            fetched: dict[int, dict[bytes, object]] = self.client.fetch([uid], ["BODY.PEEK[]"])
            raw = fetched.get(uid, {}).get(b"BODY[]")
            if isinstance(raw, bytes):  # else expunged meanwhile, by someone else
                yield str(uid), raw

    def mark_handled(self, keys: Sequence[str]) -> None:
        """One STORE for all of them (a set of UIDs). A mail left unseen by a STORE that
        failed is read again at the next poll, and is then a duplicate."""
        if keys:
            self.client.add_flags([int(key) for key in keys], [rb"\Seen"], silent=True)


@lru_cache(maxsize=8)
def tls_context(ca_file: str) -> ssl.SSLContext:
    """A verifying client context (made once: loading the CA store takes a while)."""
    return ssl.create_default_context(cafile=ca_file or None)


def imap_client(settings: ImapSettings, *, timeout: float = 30.0) -> IMAPClient:
    """A connection to the IMAP server, over TLS or STARTTLS as configured, not logged in.

    IMAPClient (imported here, so that only what reads IMAP loads it) speaks the protocol:
    its errors are imaplib's (`imaplib.IMAP4.error`, `.abort`), as are those of a refusal.
    """
    from imapclient import IMAPClient

    implicit = settings.tls == Tls.TLS
    client = IMAPClient(
        settings.host,
        settings.port,
        ssl=implicit,
        ssl_context=tls_context(settings.ca_file) if implicit else None,
        timeout=timeout,
    )
    # IMAPClient sets imaplib's debug level to 5, for its DEBUG log (silenced: `pbem.host.cli`):
    # imaplib then formats the repr of every response, a mail's whole body included, logged
    # or not. Measured on a 12 MB mail: 7.4 times its size in memory at once and 15 times the
    # CPU of reading it; 1.0 times with the level at 0 (tests/test_imap.py holds it there).
    client._imap.debug = 0
    try:
        # small command/response exchanges: without TCP_NODELAY each can wait on a delayed ACK
        client.socket().setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if settings.tls == Tls.STARTTLS:
            client.starttls(tls_context(settings.ca_file))
    except BaseException:
        _shut(client)
        raise
    return client


def imap_connect(settings: ImapSettings, *, timeout: float = 30.0) -> IMAPClient:
    """A logged-in IMAP session with the configured folder selected."""
    client = imap_client(settings, timeout=timeout)
    try:
        imap_login(client, settings)
        try:
            client.select_folder(settings.folder)
        except imaplib.IMAP4.error as error:
            raise imaplib.IMAP4.error(
                f"cannot open folder {settings.folder!r}: {server_words(error)}"
            ) from None
    except BaseException:
        imap_logout(client)
        raise
    return client


def imap_login(client: IMAPClient, settings: ImapSettings) -> None:
    """LOGIN; a refusal raises `imaplib.IMAP4.error` with the server's words as text."""
    try:
        client.login(settings.user, settings.password)
    except imaplib.IMAP4.error as error:
        raise type(error)(server_words(error)) from None


def server_words(error: BaseException) -> str:
    """What an IMAP error says, the server's words as text: imaplib keeps them as bytes,
    IMAPClient wraps a refused login into an error that shows those bytes' repr, and puts
    "COMMAND failed: " before a refusal."""
    cause = error.__context__ if isinstance(error.__context__, imaplib.IMAP4.error) else error
    said = cause.args[0] if len(cause.args) == 1 else cause
    if isinstance(said, bytes):
        return said.decode("utf-8", "replace")
    text = _FAILED.sub("", str(said), count=1)
    if text.startswith(("b'", 'b"')) and text.endswith(text[1]):  # a repr of bytes
        return text[2:-1]
    return text


_FAILED = re.compile(r"\A[a-z]+ failed: ")  # IMAPClient's words before the server's


def imap_logout(client: IMAPClient) -> None:
    """LOGOUT, or close the connection if that fails (it may be gone)."""
    try:
        client.logout()
    except (OSError, imaplib.IMAP4.error):
        _shut(client)


def _shut(client: IMAPClient) -> None:
    with suppress(OSError, imaplib.IMAP4.error):
        client.shutdown()


@contextmanager
def imap_inbox(settings: ImapSettings) -> Iterator[ImapInbox]:
    """A logged-in IMAP session on the configured folder, logged out afterwards."""
    client = imap_connect(settings)
    try:
        yield ImapInbox(client)
    finally:
        imap_logout(client)


class KeptImap:
    """One IMAP session kept across polls (a long-running service), replaced when broken."""

    def __init__(self, settings: ImapSettings) -> None:
        self.settings = settings
        self.client: IMAPClient | None = None

    @contextmanager
    def open(self) -> Iterator[Inbox]:
        if self.client is None:
            self.client = imap_connect(self.settings)
        try:
            yield ImapInbox(self.client)
        except (OSError, imaplib.IMAP4.error):
            self.close()
            raise

    def close(self) -> None:
        client, self.client = self.client, None
        if client is not None:
            imap_logout(client)


IDLE_RENEW = 25 * 60.0
"""Seconds in one IDLE before it is ended and issued again (RFC 2177: within 29 minutes)."""


class ImapIdle:
    """An IMAP session of its own that waits in IDLE (RFC 2177) for new mail.

    IMAPClient sends IDLE and DONE and parses what the server said meanwhile
    (`idle()`, `idle_done()`). The wait between them watches the connection's socket
    (`IMAPClient.socket()`, given for this) and a wake-up socket with `select`: it ends at its
    deadline, at once on `interrupt()` from another thread, or when the server says anything,
    which `idle_done()` then reads whole, in blocking mode: new mail (EXISTS) ends the wait; a
    keep-alive or a flag changed by the polling session is only read, and IDLE issued again.
    A connection closed by the server raises there (`imaplib.IMAP4.abort`), as a BYE does.
    """

    TIMEOUT = 30.0  # for the server's answers outside a wait

    def __init__(self, settings: ImapSettings) -> None:
        self._waker, self._wake = socket.socketpair()
        self._idling = False  # IDLE is under way: LOGOUT may not be sent
        try:
            self.client = imap_connect(settings, timeout=self.TIMEOUT)
        except BaseException:
            self._waker.close()
            self._wake.close()
            raise
        try:
            self.offered: bool = self.client.has_capability("IDLE")
            _keep_alive(self.client.socket())
        except BaseException:
            self.close()
            raise

    @property
    def sock(self) -> socket.socket:
        """The connection to the server (for `select`, and for tests that break it)."""
        sock: socket.socket = self.client.socket()
        return sock

    def wait(self, seconds: float) -> bool:
        """IDLE for up to `seconds`, until new mail arrives or `interrupt()`; ended with DONE
        in every case. True if the server reported new mail (EXISTS)."""
        deadline = time.monotonic() + seconds
        while True:
            # NOOP first: what came since the last command is told here, not together with
            # IDLE's go-ahead, where it would wait in the reader's buffer unseen by `select`
            _, pending = self.client.noop()
            if _news(pending):
                return True
            self._idling = True
            self.client.idle()
            ended = self._quiet_until(deadline)
            _, said = self.client.idle_done()
            self._idling = False
            if _news(said) or ended:
                return _news(said)

    def _quiet_until(self, deadline: float) -> bool:
        """Wait until the server says something (False) or the deadline or an interrupt
        (True)."""
        sock = self.sock
        if isinstance(sock, ssl.SSLSocket) and sock.pending():
            return False  # decrypted already, so `select` would not see it
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return True
            ready = select.select([sock, self._waker], [], [], remaining)[0]
            if self._waker in ready:
                with suppress(OSError):
                    self._waker.recv(64)
                return True
            if ready:
                return False

    def interrupt(self) -> None:
        """End the current or next `wait` at once (from any thread)."""
        with suppress(OSError):
            self._wake.send(b"!")

    def close(self) -> None:
        """LOGOUT unless IDLE is under way, and close the connection."""
        if self._idling:
            _shut(self.client)
        else:
            imap_logout(self.client)
        self._waker.close()
        self._wake.close()


def _news(responses: Sequence[tuple[object, ...]]) -> bool:
    """Whether untagged responses as IMAPClient parses them tell of new mail (`* N EXISTS`)."""
    return any(
        len(r) >= 2 and isinstance(r[1], bytes) and r[1].upper() == b"EXISTS" for r in responses
    )


def _keep_alive(sock: socket.socket) -> None:
    """TCP keep-alive: a connection that died while idling is noticed within minutes."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    for name, value in (("TCP_KEEPIDLE", 60), ("TCP_KEEPINTVL", 15), ("TCP_KEEPCNT", 4)):
        if hasattr(socket, name):
            sock.setsockopt(socket.IPPROTO_TCP, getattr(socket, name), value)


@contextmanager
def open_inbox(settings: Settings) -> Iterator[Inbox]:
    if settings.mail == MailTransport.IMAP:
        with imap_inbox(settings.imap) as inbox:
            yield inbox
    else:
        yield MaildirInbox(settings.inbox_dir)


class MaildirSender:
    """Outgoing mail kept in a local Maildir, for the embedded defaults."""

    def __init__(self, path: Path) -> None:
        self.maildir = maildir(path)

    async def __aenter__(self) -> MaildirSender:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        return None

    async def close(self) -> None:
        return None

    async def send(self, raw: bytes, sender: str, recipient: str) -> None:
        self.maildir.add(raw)


class SmtpSender:
    """A real SMTP server (TLS, STARTTLS or plain, AUTH when a user is set).

    One connection serves all the mails of a flush; with `keep_open` it also serves the
    next flush (checked with NOOP first), as a long-running service should.
    """

    def __init__(self, settings: SmtpSettings, *, keep_open: bool = False) -> None:
        self.settings = settings
        self.keep_open = keep_open
        self.client: aiosmtplib.SMTP | None = None

    async def __aenter__(self) -> SmtpSender:
        if self.client is not None:
            try:
                await self.client.noop()
                return self
            except (aiosmtplib.SMTPException, OSError):
                await self.close()
        s = self.settings
        client = aiosmtplib.SMTP(
            hostname=s.host,
            port=s.port,
            username=s.user or None,
            password=s.password or None,
            use_tls=s.tls == Tls.TLS,
            start_tls=s.tls == Tls.STARTTLS,
            tls_context=tls_context(s.ca_file) if s.tls != Tls.NONE else None,
            timeout=30,
        )
        await client.connect()
        try:
            if client.is_ehlo_or_helo_needed:  # as `sendmail` greets before its first MAIL
                try:
                    await client.ehlo()
                except aiosmtplib.SMTPHeloError:
                    await client.helo()
        except BaseException:
            client.close()
            raise
        self.client = client
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if exc_info[0] is not None or not self.keep_open:
            await self.close()

    async def close(self) -> None:
        client, self.client = self.client, None
        if client is not None and client.is_connected:
            with suppress(aiosmtplib.SMTPException, OSError):
                await client.quit()

    async def send(self, raw: bytes, sender: str, recipient: str) -> None:
        """One mail transaction, as aiosmtplib's `sendmail` for one recipient (the same
        commands and bytes on the wire, the same errors, RSET after a refusal), with less
        work in between: the message put in its wire form by `crlf_lines` and `dot_stuffed`
        (replaces, where `sendmail` runs a regular expression over the whole mail three
        times), the addresses checked and quoted once (`_quoted`; `sendmail` parses each
        twice a mail), and one timer for the transaction (TRANSACTION_SECONDS) instead of
        one a command."""
        client = self.client
        assert client is not None, "use the sender in `async with`"
        mail_from, rcpt_to = b"FROM:" + _quoted(sender), b"TO:" + _quoted(recipient)
        lines = crlf_lines(raw)
        size = [f"size={len(lines)}".encode("ascii")] if client.supports_extension("size") else []
        try:
            async with asyncio.timeout(TRANSACTION_SECONDS):
                said = await client.execute_command(b"MAIL", mail_from, *size, timeout=None)
                if said.code != SMTPStatus.completed:
                    raise aiosmtplib.SMTPSenderRefused(said.code, said.message, sender)
                said = await client.execute_command(b"RCPT", rcpt_to, timeout=None)
                if said.code not in (SMTPStatus.completed, SMTPStatus.will_forward):
                    refused = aiosmtplib.SMTPRecipientRefused(said.code, said.message, recipient)
                    raise aiosmtplib.SMTPRecipientsRefused([refused])
                await _data(client, dot_stuffed(lines))
        except (aiosmtplib.SMTPResponseException, aiosmtplib.SMTPRecipientsRefused):
            with suppress(ConnectionError, aiosmtplib.SMTPResponseException):
                await client.rset()
            raise
        except TimeoutError:  # a command's answer may still come: the connection is done
            client.close()
            raise


TRANSACTION_SECONDS = 120.0  # MAIL, RCPT and DATA of one mail, answered within this long


@lru_cache(maxsize=4096)
def _quoted(address: str) -> bytes:
    """`<address>` as MAIL and RCPT carry it; ValueError for an address SMTP cannot carry
    (aiosmtplib's check: a control character, or not ASCII)."""
    return quote_address(address).encode("ascii")


def crlf_lines(raw: bytes) -> bytes:
    """`raw` with every line ending CRLF and a CRLF at its end, as SMTP carries it (RFC 5321
    2.3.8; aiosmtplib's `normalize_message_line_endings`, a regular expression, where a mail
    has no CR, as the service's mails have none)."""
    if b"\r" in raw:
        return normalize_message_line_endings(raw)
    lines = raw.replace(b"\n", b"\r\n")
    return lines if lines.endswith(b"\r\n") else lines + b"\r\n"


def dot_stuffed(lines: bytes) -> bytes:
    """DATA's content: a period doubled at the start of a line, and the final `.` line (RFC
    5321 4.5.2); `lines` as `crlf_lines` made them. (The HTML part's style sheet has lines
    that start with a period: a replace, not aiosmtplib's regular expression.)"""
    stuffed = lines.replace(b"\n.", b"\n..")
    return (b"." if stuffed.startswith(b".") else b"") + stuffed + b".\r\n"


async def _data(client: aiosmtplib.SMTP, content: bytes) -> None:
    """DATA with the content in its wire form already (`dot_stuffed`), as aiosmtplib's
    `data` sends it after making that form itself."""
    start = await client.execute_command(b"DATA", timeout=None)
    if start.code != SMTPStatus.start_input:
        raise aiosmtplib.SMTPDataError(start.code, start.message)
    protocol = client.protocol
    if protocol is None:
        raise aiosmtplib.SMTPServerDisconnected("Connection lost")
    try:
        protocol.write(content)
        done = await protocol.read_response(timeout=None)  # the transaction's timer runs
    except aiosmtplib.SMTPServerDisconnected:
        client.close()
        raise
    if done.code != SMTPStatus.completed:
        raise aiosmtplib.SMTPDataError(done.code, done.message)


def make_sender(settings: Settings, *, keep_open: bool = False) -> Sender:
    if settings.mail == MailTransport.IMAP:
        return SmtpSender(settings.smtp, keep_open=keep_open)
    return MaildirSender(settings.outbox_dir)
