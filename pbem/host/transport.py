"""Where mail comes from and goes to: a local Maildir or a real IMAP and SMTP server."""

from __future__ import annotations

import imaplib
import itertools
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
from typing import Protocol

import aiosmtplib

from pbem.core.config import ImapSettings, MailTransport, Settings, SmtpSettings, Tls
from pbem.core.files import maildir


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

    def __init__(self, client: imaplib.IMAP4) -> None:
        self.client = client

    def new_messages(self) -> Iterator[tuple[str, bytes]]:
        self.client.noop()
        status, data = self.client.uid("SEARCH", "UNSEEN")
        if status != "OK":
            raise imaplib.IMAP4.error(f"UID SEARCH failed: {data!r}")
        for uid in (data[0] or b"").decode().split():
            status, parts = self.client.uid("FETCH", uid, "(BODY.PEEK[])")
            raw = next((p[1] for p in parts if isinstance(p, tuple)), None)
            if status == "OK" and isinstance(raw, bytes):
                yield uid, raw

    def mark_handled(self, keys: Sequence[str]) -> None:
        """One STORE for all of them (a set of UIDs). A mail left unseen by a STORE that
        failed is read again at the next poll, and is then a duplicate."""
        if keys:
            self.client.uid("STORE", ",".join(keys), "+FLAGS.SILENT", "(\\Seen)")


@lru_cache(maxsize=8)
def tls_context(ca_file: str) -> ssl.SSLContext:
    """A verifying client context (made once: loading the CA store takes a while)."""
    return ssl.create_default_context(cafile=ca_file or None)


def imap_connect(settings: ImapSettings) -> imaplib.IMAP4:
    """A logged-in IMAP session with the configured folder selected."""
    client: imaplib.IMAP4
    if settings.tls == Tls.TLS:
        client = imaplib.IMAP4_SSL(
            settings.host, settings.port, ssl_context=tls_context(settings.ca_file), timeout=30
        )
    else:
        client = imaplib.IMAP4(settings.host, settings.port, timeout=30)
        if settings.tls == Tls.STARTTLS:
            client.starttls(tls_context(settings.ca_file))
    # small command/response exchanges: without TCP_NODELAY each can wait on a delayed ACK
    client.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        client.login(settings.user, settings.password)
        status, data = client.select(quote_mailbox(settings.folder))
        if status != "OK":
            raise imaplib.IMAP4.error(f"cannot open folder {settings.folder!r}: {data!r}")
    except BaseException:
        _logout(client)
        raise
    return client


def _logout(client: imaplib.IMAP4) -> None:
    with suppress(OSError, imaplib.IMAP4.error):
        client.logout()


@contextmanager
def imap_inbox(settings: ImapSettings) -> Iterator[ImapInbox]:
    """A logged-in IMAP session on the configured folder, logged out afterwards."""
    client = imap_connect(settings)
    try:
        yield ImapInbox(client)
    finally:
        _logout(client)


class KeptImap:
    """One IMAP session kept across polls (a long-running service), replaced when broken."""

    def __init__(self, settings: ImapSettings) -> None:
        self.settings = settings
        self.client: imaplib.IMAP4 | None = None

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
            _logout(client)


IDLE_RENEW = 25 * 60.0
"""Seconds in one IDLE before it is ended and issued again (RFC 2177: within 29 minutes)."""

_EXISTS = re.compile(rb"\* \d+ EXISTS\b", re.IGNORECASE)
_LITERAL = re.compile(rb"\{(\d+)\}\r\n\Z")


class ImapIdle:
    """An IMAP session of its own that waits in IDLE (RFC 2177) for new mail.

    imaplib has no IDLE before Python 3.14, and a timeout on its buffered file spoils the
    file: after the login the socket is read here, with `select`, so that a wait ends at
    its deadline, on new mail, or at once on `interrupt()` from another thread.
    """

    TIMEOUT = 30.0  # for the server's answers outside a wait

    def __init__(self, settings: ImapSettings) -> None:
        self.client = imap_connect(settings)
        self.sock = self.client.sock
        self._buffer = b""
        self._tags = itertools.count(1)
        self._waker, self._wake = socket.socketpair()
        self._clean = True  # no command is under way: LOGOUT may be sent
        try:
            status, data = self.client.capability()
            words = b" ".join(d for d in data if isinstance(d, bytes)).upper().split()
            self.offered = status == "OK" and b"IDLE" in words
            _keep_alive(self.sock)
            self.sock.setblocking(False)
        except BaseException:
            self.close()
            raise

    def wait(self, seconds: float) -> bool:
        """IDLE for up to `seconds`, until new mail arrives or `interrupt()`; ended with DONE
        in every case. True if the server reported new mail (EXISTS)."""
        self._clean = False
        tag = self._send(b"IDLE")
        news = False
        while True:  # until the server's go-ahead
            line = self._line(time.monotonic() + self.TIMEOUT)
            if line.startswith(tag + b" "):
                raise imaplib.IMAP4.error(f"IDLE refused: {_shown(line)}")
            if line.startswith(b"+"):
                break
            news = self._untagged(line) or news
        deadline = time.monotonic() + seconds
        while not news:
            line = self._line(deadline, interruptible=True)
            if not line:
                break
            news = self._untagged(line)
        self._put(b"DONE\r\n")
        while True:
            line = self._line(time.monotonic() + self.TIMEOUT)
            if line.startswith(tag + b" "):
                if not line[len(tag) + 1 :].upper().startswith(b"OK"):
                    raise imaplib.IMAP4.error(f"IDLE ended with {_shown(line)}")
                self._clean = True
                return news
            news = self._untagged(line) or news

    def interrupt(self) -> None:
        """End the current or next `wait` at once (from any thread)."""
        with suppress(OSError):
            self._wake.send(b"!")

    def close(self) -> None:
        """LOGOUT if no command is under way, and close the connection."""
        if self._clean:
            with suppress(OSError, imaplib.IMAP4.error):
                tag = self._send(b"LOGOUT")
                deadline = time.monotonic() + 2
                while not self._line(deadline).startswith(tag + b" "):
                    pass
        with suppress(OSError):
            self.client.shutdown()
        self._waker.close()
        self._wake.close()

    def _untagged(self, line: bytes) -> bool:
        if line.upper().startswith(b"* BYE"):
            raise imaplib.IMAP4.abort(f"the server closed the session: {_shown(line)}")
        return _EXISTS.match(line) is not None

    def _send(self, command: bytes) -> bytes:
        tag = b"I%d" % next(self._tags)
        self._put(tag + b" " + command + b"\r\n")
        return tag

    def _put(self, data: bytes) -> None:
        self.sock.settimeout(self.TIMEOUT)
        try:
            self.sock.sendall(data)
        finally:
            self.sock.setblocking(False)

    def _line(self, deadline: float, *, interruptible: bool = False) -> bytes:
        """The server's next response line, a literal in it read along (b"" at the deadline
        or on interrupt if `interruptible`; TimeoutError at the deadline otherwise)."""
        line = b""
        while True:
            end = self._buffer.find(b"\r\n")
            if end < 0:
                if not self._fill(deadline, interruptible):
                    if interruptible and not line:
                        return b""
                    raise TimeoutError("the IMAP server did not answer in time")
                continue
            line += self._buffer[: end + 2]
            self._buffer = self._buffer[end + 2 :]
            literal = _LITERAL.search(line)
            if literal is None:
                return line
            size = int(literal.group(1))
            while len(self._buffer) < size:
                if not self._fill(deadline, False):
                    raise TimeoutError("the IMAP server did not answer in time")
            line += self._buffer[:size]
            self._buffer = self._buffer[size:]

    def _fill(self, deadline: float, interruptible: bool) -> bool:
        """Add what the server sent next to the buffer; False at the deadline or on interrupt."""
        while True:
            if not (isinstance(self.sock, ssl.SSLSocket) and self.sock.pending()):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                watched = [self.sock, self._waker] if interruptible else [self.sock]
                ready = select.select(watched, [], [], remaining)[0]
                if self._waker in ready:
                    self._waker.recv(64)
                    return False
                if not ready:
                    continue
            try:
                data = self.sock.recv(65536)
            except (ssl.SSLWantReadError, BlockingIOError):
                continue  # a TLS record that held no data yet
            if not data:
                raise imaplib.IMAP4.abort("the IMAP server closed the connection")
            self._buffer += data
            return True


def _keep_alive(sock: socket.socket) -> None:
    """TCP keep-alive: a connection that died while idling is noticed within minutes."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    for name, value in (("TCP_KEEPIDLE", 60), ("TCP_KEEPINTVL", 15), ("TCP_KEEPCNT", 4)):
        if hasattr(socket, name):
            sock.setsockopt(socket.IPPROTO_TCP, getattr(socket, name), value)


def _shown(line: bytes) -> str:
    return line.decode("utf-8", "replace").strip()[:200]


def quote_mailbox(folder: str) -> str:
    return '"' + folder.replace("\\", "\\\\").replace('"', '\\"') + '"'


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
        assert self.client is not None, "use the sender in `async with`"
        await self.client.sendmail(sender, [recipient], raw)


def make_sender(settings: Settings, *, keep_open: bool = False) -> Sender:
    if settings.mail == MailTransport.IMAP:
        return SmtpSender(settings.smtp, keep_open=keep_open)
    return MaildirSender(settings.outbox_dir)
