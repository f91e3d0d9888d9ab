"""Real mail servers for tests: Dovecot (IMAP) and an aiosmtpd SMTP server that delivers into it.

Everything listens on 127.0.0.1 only, on free ports, and every wait is bounded by `TIMEOUT`
seconds so that a broken server fails a test quickly instead of hanging it.

    with Dovecot() as dovecot, SmtpServer(dovecot) as smtp:
        smtp.send("p1@example.test", ["tongiaki+g1@example.test"], message)
        mail = dovecot.wait_for("tongiaki", lambda m: m["Subject"] == "Hello")

- `Certificates`: a throwaway `trustme` CA and a server certificate for 127.0.0.1/localhost.
  Clients are told to trust it with `ca_file` (a PEM path) or `client_context()`.
- `Dovecot`: `dovecot -F` with its own configuration in a temporary directory: one passwd-file
  user per name in `users` (all with the password `password`), a Maildir each, plain IMAP with
  STARTTLS on `port` and implicit TLS on `tls_port`. As root it is started as `nobody` (with
  `setpriv`), in a directory under /tmp that belongs to nobody.
- `SmtpServer`: aiosmtpd with STARTTLS on `port`, implicit TLS on `tls_port`, AUTH PLAIN/LOGIN
  for any Dovecot user. Each envelope recipient `user[+tag]@example.test` gets a copy in that
  user's INBOX (IMAP APPEND, with `Return-Path` and `Delivered-To` headers prepended); unknown
  recipients get 550. `stop()` and `start()` again keep the same ports.
- `Mail`: both servers plus the helpers a test acting as players needs (`send`, `fetch_all`,
  `wait_for`, `new_user`, `reset`); the `mail` fixture of tests/conftest.py returns one.

Messages read back are parsed with `email.policy.default` after turning CRLF into LF (see
`parse`), so that `get_content()` of 8-bit bodies gives plain `\\n` lines.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import email
import email.policy
import grp
import imaplib
import itertools
import logging
import math
import os
import pwd
import re
import shutil
import signal
import smtplib
import socket
import ssl
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path
from typing import Any, Literal, Self

import trustme
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session

from pbem.core.config import ImapSettings, Settings, SmtpSettings
from tests.support.reading import READING

DOMAIN = "example.test"
PASSWORD = "test-password"
HOST = "127.0.0.1"
TIMEOUT = 5.0
SERVICE = "tongiaki@example.test"  # the address of the service under test
"""Upper bound, in seconds, of every wait and every socket operation in this module."""

DEFAULT_USERS: tuple[str, ...] = (
    "tongiaki",
    "gm",
    *(f"p{n}" for n in range(1, 7)),
    *(f"bench{n}" for n in range(1, 41)),
)

Tls = Literal["starttls", "tls", "none"]
"""How a client connects: STARTTLS on the plain port, implicit TLS on the TLS port, or plain."""

_USER_NAME = re.compile(r"[a-z0-9][a-z0-9._-]*\Z")
_POLL = 0.05


class MailServerError(RuntimeError):
    """A test mail server could not be started or used (the message says why)."""


class DovecotMissing(MailServerError):
    """The `dovecot` binary is not installed."""


def find_dovecot() -> str | None:
    """Path of the `dovecot` binary, also when /usr/sbin is not on PATH; None if not installed."""
    found = shutil.which("dovecot")
    if found:
        return found
    return "/usr/sbin/dovecot" if os.access("/usr/sbin/dovecot", os.X_OK) else None


@contextlib.contextmanager
def refused_port() -> Iterator[int]:
    """A TCP port on 127.0.0.1 held without listening while the block runs: connecting to it
    is refused, and no other test's server can take it meanwhile (as one may a free port)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        yield int(sock.getsockname()[1])


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def address(user: str, tag: str | None = None, domain: str = DOMAIN) -> str:
    """`user@domain`, or the plus address `user+tag@domain`."""
    return f"{user}+{tag}@{domain}" if tag else f"{user}@{domain}"


def mailbox_of(recipient: str, domain: str = DOMAIN) -> str | None:
    """The user a recipient address is delivered to (plus tag dropped); None if another domain."""
    local, at, dom = recipient.strip().strip("<>").rpartition("@")
    if not at or dom.lower() != domain.lower():
        return None
    return local.split("+", 1)[0].lower()


def parse(raw: bytes) -> EmailMessage:
    """A message as `email.policy.default` parses it (`READING`), after normalising CRLF to
    LF."""
    message = email.message_from_bytes(raw.replace(b"\r\n", b"\n"), policy=READING)
    assert isinstance(message, EmailMessage)
    return message


def _as_bytes(message: EmailMessage | bytes | str) -> bytes:
    """The message as a mail client puts it on the wire: CRLF line endings (smtplib sends
    bytes as they are, and a server reads an LF-only message as one overlong line)."""
    if isinstance(message, EmailMessage):
        return message.as_bytes(policy=email.policy.SMTP)
    raw = message.encode("utf-8") if isinstance(message, str) else message
    return re.sub(rb"\r?\n", b"\r\n", raw)


class Certificates:
    """A throwaway CA with one server certificate for 127.0.0.1 and localhost.

    `ca_file` is written into `directory` (created if needed); give it to clients as the
    extra CA to trust, or use `client_context()`.
    """

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.ca = trustme.CA(organization_name="pbem tests")
        self._leaf = self.ca.issue_cert(HOST, "localhost")
        self.ca_file = directory / "ca.pem"
        self.ca.cert_pem.write_to_path(str(self.ca_file))

    @property
    def cert_chain_pem(self) -> bytes:
        """The server certificate followed by its chain, PEM."""
        return b"".join(blob.bytes() for blob in self._leaf.cert_chain_pems)

    @property
    def private_key_pem(self) -> bytes:
        return self._leaf.private_key_pem.bytes()

    def client_context(self) -> ssl.SSLContext:
        """A client context that trusts (only) this CA and checks host names."""
        return ssl.create_default_context(cafile=str(self.ca_file))

    def server_context(self) -> ssl.SSLContext:
        """A server context presenting the server certificate."""
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self._leaf.configure_cert(context)
        return context


@dataclass(frozen=True)
class _RunAs:
    name: str
    group: str
    uid: int
    gid: int

    @classmethod
    def for_dovecot(cls) -> _RunAs:
        """`nobody` when root (mail files and processes then belong to nobody), else oneself."""
        entry = pwd.getpwnam("nobody") if os.geteuid() == 0 else pwd.getpwuid(os.geteuid())
        return cls(entry.pw_name, grp.getgrgid(entry.pw_gid).gr_name, entry.pw_uid, entry.pw_gid)


class Dovecot:
    """A private Dovecot IMAP server; `start()` (or `with`) runs it, `stop()` removes it all.

    Attributes once started: `host`, `port` (plain IMAP, STARTTLS offered), `tls_port`
    (implicit TLS), `password` (shared by every user), `users` (every user name, including the
    `spare_users` unused ones `fresh1`, `fresh2`, ... that `new_user()` hands out), `ca_file`,
    `directory` (configuration, `dovecot.log`, and each user's `home/NAME/Maildir`).
    """

    def __init__(
        self,
        users: Iterable[str] = DEFAULT_USERS,
        *,
        spare_users: int = 100,
        password: str = PASSWORD,
        certificates: Certificates | None = None,
    ) -> None:
        if ":" in password or "\n" in password:
            raise ValueError("password must not contain ':' or a newline")
        self.host = HOST
        self.port = 0
        self.tls_port = 0
        self.password = password
        self.users: set[str] = set()
        self._initial_users = [self._check_name(name) for name in users]
        self._fresh_numbers = itertools.count(1)
        self._spare_count = spare_users
        self._spare: list[str] = []
        self._certificates = certificates
        self._own_certificates = certificates is None
        self._process: subprocess.Popen[bytes] | None = None
        self._directory: Path | None = None
        self._run_as = _RunAs.for_dovecot()
        self._lock = threading.Lock()
        self.start_seconds = 0.0
        """How long the last `start()` took until a login succeeded."""

    # -- lifecycle -------------------------------------------------------------------------

    @property
    def directory(self) -> Path:
        if self._directory is None:
            raise MailServerError("Dovecot is not started")
        return self._directory

    @property
    def certificates(self) -> Certificates:
        if self._certificates is None:
            raise MailServerError("Dovecot is not started")
        return self._certificates

    @property
    def ca_file(self) -> Path:
        """PEM file of the CA that signed the server certificate."""
        return self.certificates.ca_file

    def client_context(self) -> ssl.SSLContext:
        return self.certificates.client_context()

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int | None:
        """The process id of Dovecot's master process while it runs."""
        return self._process.pid if self.running and self._process is not None else None

    def start(self) -> Self:
        """Write the configuration, start Dovecot and wait (bounded) until a login works."""
        if self._process is not None:
            raise MailServerError("Dovecot is already started")
        binary = find_dovecot()
        if binary is None:
            raise DovecotMissing(
                "Dovecot is not installed: run `python3 dev.py test`, which installs it, "
                "or `apt-get install --no-install-recommends dovecot-imapd`"
            )
        began = time.monotonic()
        for attempt in range(3):  # a free port can be taken between choosing and binding it
            try:
                self._prepare()
                self._launch(binary)
            except _PortTaken:
                self._discard()
                if attempt == 2:
                    raise MailServerError("Dovecot: no free ports after 3 attempts") from None
                continue
            except BaseException:
                self._discard()
                raise
            break
        self.start_seconds = time.monotonic() - began
        atexit.register(self.stop)
        return self

    def stop(self) -> None:
        """Terminate Dovecot and its children, wait for them, and delete the directory."""
        atexit.unregister(self.stop)
        self._discard()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def log_text(self) -> str:
        """Dovecot's log so far (for failure messages)."""
        parts = []
        for name in ("stderr.log", "dovecot.log"):
            with contextlib.suppress(OSError):
                parts.append((self.directory / name).read_text(errors="replace"))
        return "".join(parts)

    def _prepare(self) -> None:
        self._directory = Path(tempfile.mkdtemp(prefix="pbem-dovecot-", dir="/tmp"))
        if self._certificates is None:
            self._certificates = Certificates(self._directory / "ca")
        self.port, self.tls_port = free_port(), free_port()
        while self.tls_port == self.port:
            self.tls_port = free_port()
        d = self._directory
        (d / "home").mkdir()
        (d / "server.pem").write_bytes(self._certificates.cert_chain_pem)
        (d / "server.key").write_bytes(self._certificates.private_key_pem)
        (d / "passwd").write_text("")
        self.users = set()
        for name in self._initial_users:
            self._write_user(name)
        self._spare = []
        while len(self._spare) < self._spare_count:
            name = f"fresh{next(self._fresh_numbers)}"
            if name not in self.users:
                self._write_user(name)
                self._spare.append(name)
        (d / "dovecot.conf").write_text(self._config())
        if os.geteuid() == 0:
            for path in [d, *d.rglob("*")]:
                os.chown(path, self._run_as.uid, self._run_as.gid)
        d.chmod(0o700)  # owned by the user Dovecot runs as; root can still read it

    def _config(self) -> str:
        d = self.directory
        user, group = self._run_as.name, self._run_as.group
        return f"""\
# Throwaway configuration written by tests/support/mailservers.py
protocols = imap
listen = {HOST}
base_dir = {d}/run
state_dir = {d}/state
log_path = {d}/dovecot.log
instance_name = pbem-test-{self.port}
default_internal_user = {user}
default_internal_group = {group}
default_login_user = {user}
first_valid_uid = 1
ssl = yes
ssl_cert = <{d}/server.pem
ssl_key = <{d}/server.key
ssl_min_protocol = TLSv1.2
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_failure_delay = 0
mail_location = maildir:~/Maildir
mail_fsync = never
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%n {d}/passwd
}}
userdb {{
  driver = passwd-file
  args = username_format=%n {d}/passwd
}}
service imap-login {{
  chroot =
  inet_listener imap {{
    address = {HOST}
    port = {self.port}
  }}
  inet_listener imaps {{
    address = {HOST}
    port = {self.tls_port}
    ssl = yes
  }}
}}
service anvil {{
  chroot =
  # No penalty socket: failed logins are not slowed down by up to 15 s per attempt.
  unix_listener anvil-auth-penalty {{
    mode = 0
  }}
}}
protocol imap {{
  mail_max_userip_connections = 1000
}}
"""

    def _launch(self, binary: str) -> None:
        d = self.directory
        command = [binary, "-F", "-c", str(d / "dovecot.conf")]
        setpriv = shutil.which("setpriv")
        if setpriv:
            # Dovecot gets SIGTERM if this thread dies (say, pytest is killed): no leftovers.
            prefix = [setpriv, "--pdeathsig=TERM"]
            if os.geteuid() == 0:
                uid, gid = self._run_as.uid, self._run_as.gid
                prefix += [f"--reuid={uid}", f"--regid={gid}", "--clear-groups"]
            command = [*prefix, "--", *command]
        elif os.geteuid() == 0:
            raise MailServerError("setpriv (util-linux) is needed to run Dovecot as nobody")
        with open(d / "stderr.log", "wb") as output:
            self._process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: stop() can sweep up children
            )
        probe = self._initial_users[0] if self._initial_users else "-"
        deadline = time.monotonic() + TIMEOUT
        last_error: Exception | None = None
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                log = self.log_text()
                if "Address already in use" in log:
                    raise _PortTaken
                raise MailServerError(f"Dovecot exited with {self._process.returncode}:\n{log}")
            try:
                with self.session(probe, tls="none"):
                    return
            except (OSError, imaplib.IMAP4.error) as error:
                if not self._initial_users and isinstance(error, imaplib.IMAP4.error):
                    return  # no user to log in as, but the server answered
                last_error = error
            time.sleep(0.02)
        raise MailServerError(
            f"Dovecot did not accept a login within {TIMEOUT} s ({last_error}):\n{self.log_text()}"
        )

    def _discard(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(TIMEOUT)  # Dovecot's master waits 1 s for its log process
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(TIMEOUT)
            # Children that outlived the master are still in its process group.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
        if self._directory is not None:
            shutil.rmtree(self._directory, ignore_errors=True)
            self._directory = None
        if self._own_certificates:
            self._certificates = None  # its ca_file was in the directory

    # -- users -----------------------------------------------------------------------------

    @staticmethod
    def _check_name(name: str) -> str:
        if not _USER_NAME.match(name):
            raise ValueError(f"bad user name {name!r} (want lower-case letters, digits, ._-)")
        return name

    def _write_user(self, name: str) -> None:
        home = self.directory / "home" / name
        line = f"{name}:{{PLAIN}}{self.password}:{self._run_as.uid}:{self._run_as.gid}::{home}::\n"
        with open(self.directory / "passwd", "a") as passwd:
            passwd.write(line)
        self.users.add(name)

    def add_user(self, name: str) -> str:
        """Create a user with the shared password; it can log in when this returns.

        Dovecot looks at the passwd file at most once per second, so this waits for the next
        second to begin (up to 1 s). `new_user()` is instant.
        """
        self._check_name(name)
        with self._lock:
            if name in self.users:
                return name
            self._write_user(name)
        now = time.time()
        time.sleep(math.ceil(now) - now + 0.01)
        return name

    def new_user(self) -> str:
        """A user that nobody has used yet (`freshN`, created up front), instantly."""
        with self._lock:
            name = self._spare.pop(0) if self._spare else None
        return name or self.add_user(f"fresh{next(self._fresh_numbers)}")

    # -- IMAP as a client ------------------------------------------------------------------

    @contextlib.contextmanager
    def session(self, user: str, *, tls: Tls = "starttls") -> Iterator[imaplib.IMAP4]:
        """A logged-in imaplib session as `user`, logged out afterwards."""
        client: imaplib.IMAP4
        if tls == "tls":
            client = imaplib.IMAP4_SSL(
                self.host, self.tls_port, ssl_context=self.client_context(), timeout=TIMEOUT
            )
        else:
            client = imaplib.IMAP4(self.host, self.port, timeout=TIMEOUT)
        try:
            if tls == "starttls":
                client.starttls(ssl_context=self.client_context())
            client.login(user, self.password)
            yield client
        finally:
            with contextlib.suppress(OSError, imaplib.IMAP4.error):
                client.logout()

    def append(self, user: str, raw: bytes, *, mailbox: str = "INBOX") -> None:
        """Put a message into a user's mailbox, as a delivery would."""
        with self.session(user, tls="none") as client:
            now = imaplib.Time2Internaldate(time.time())
            kind, data = client.append(_quote(mailbox), "", now, raw)
            if kind != "OK":
                raise MailServerError(f"APPEND for {user} failed: {data!r}")

    def fetch_raw(self, user: str, *, mailbox: str = "INBOX", tls: Tls = "starttls") -> list[bytes]:
        """Every message in the mailbox as stored, oldest first; nothing is marked as seen."""
        with self.session(user, tls=tls) as client:
            _select(client, mailbox)
            return [raw for _, raw in _fetch_new(client, set())]

    def fetch_all(
        self, user: str, *, mailbox: str = "INBOX", tls: Tls = "starttls"
    ) -> list[EmailMessage]:
        """Every message in the mailbox, parsed (see `parse`), oldest first."""
        return [parse(raw) for raw in self.fetch_raw(user, mailbox=mailbox, tls=tls)]

    def wait_for(
        self,
        user: str,
        predicate: Callable[[EmailMessage], bool] | None = None,
        *,
        timeout: float = TIMEOUT,
        mailbox: str = "INBOX",
    ) -> EmailMessage:
        """The first message in the mailbox that satisfies `predicate` (default: any).

        Polls one IMAP session (NOOP, then UID SEARCH) until `timeout`, then raises
        TimeoutError naming the subjects that were there.
        """
        seen: set[bytes] = set()
        subjects: list[str] = []
        deadline = time.monotonic() + timeout
        with self.session(user, tls="none") as client:
            _select(client, mailbox)
            while True:
                client.noop()  # a long-lived session sees new mail only after a command
                for _, raw in _fetch_new(client, seen):
                    message = parse(raw)
                    if predicate is None or predicate(message):
                        return message
                    subjects.append(str(message["Subject"]))
                if time.monotonic() >= deadline:
                    raise TimeoutError(
                        f"no matching message for {user} in {mailbox} within {timeout} s; "
                        f"subjects there: {subjects}"
                    )
                time.sleep(_POLL)

    def count(self, user: str, *, mailbox: str = "INBOX") -> int:
        """How many messages the mailbox holds."""
        with self.session(user, tls="none") as client:
            kind, data = client.status(_quote(mailbox), "(MESSAGES)")
            found = re.search(rb"MESSAGES (\d+)", data[0] or b"") if kind == "OK" else None
            if found is None:
                raise MailServerError(f"STATUS {mailbox} for {user} failed: {data!r}")
            return int(found.group(1))

    def clear(self) -> None:
        """Empty every user's INBOX and delete their other folders (only users holding mail)."""
        for user in sorted(self.users):
            if self._has_mail(user):
                self._clear_user(user)

    def _has_mail(self, user: str) -> bool:
        """Whether the user's Maildir holds a message or a folder (looked up on disk: cheap)."""
        maildir = self.directory / "home" / user / "Maildir"
        if not maildir.is_dir():
            return False
        with os.scandir(maildir) as entries:
            if any(entry.name.startswith(".") and entry.is_dir() for entry in entries):
                return True  # a folder other than INBOX
        for sub in ("new", "cur"):
            with contextlib.suppress(FileNotFoundError), os.scandir(maildir / sub) as entries:
                if any(True for _ in entries):
                    return True
        return False

    def _clear_user(self, user: str) -> None:
        with self.session(user, tls="none") as client:
            kind, data = client.list()
            names = [_mailbox_name(line) for line in data if isinstance(line, bytes)]
            for name in sorted((n for n in names if n.upper() != "INBOX"), key=len, reverse=True):
                client.delete(_quote(name))
            _select(client, "INBOX", readonly=False)
            kind, data = client.uid("SEARCH", "ALL")
            if kind == "OK" and data[0]:
                client.store("1:*", "+FLAGS.SILENT", "(\\Deleted)")
                client.expunge()


class _PortTaken(Exception):
    pass


def _quote(mailbox: str) -> str:
    return '"' + mailbox.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _mailbox_name(line: bytes) -> str:
    # (\HasNoChildren) "." "Name"   or   (\HasNoChildren) "." Name
    found = re.match(rb'\([^)]*\) (?:"[^"]*"|NIL) (.*)\Z', line)
    if found is None:
        raise MailServerError(f"cannot parse LIST line {line!r}")
    name = found.group(1).decode("utf-8", "replace")
    if name.startswith('"') and name.endswith('"'):
        name = name[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    return name


def _select(client: imaplib.IMAP4, mailbox: str, *, readonly: bool = True) -> None:
    kind, data = client.select(_quote(mailbox), readonly=readonly)
    if kind != "OK":
        raise MailServerError(f"cannot select {mailbox!r}: {data!r}")


def _fetch_new(client: imaplib.IMAP4, seen: set[bytes]) -> list[tuple[bytes, bytes]]:
    """(uid, raw message) for every message whose UID is not in `seen`; adds them to it."""
    kind, data = client.uid("SEARCH", "ALL")
    if kind != "OK":
        raise MailServerError(f"UID SEARCH failed: {data!r}")
    uids = sorted((uid for uid in (data[0] or b"").split() if uid not in seen), key=int)
    found: list[tuple[bytes, bytes]] = []
    for uid in uids:
        kind, parts = client.uid("FETCH", uid.decode(), "(BODY.PEEK[])")
        raw = next((p[1] for p in parts if isinstance(p, tuple)), None)
        if kind != "OK" or raw is None:
            continue  # expunged meanwhile
        seen.add(uid)
        found.append((uid, raw))
    return found


@dataclass(frozen=True)
class Accepted:
    """One message the SMTP server accepted (and delivered)."""

    mail_from: str
    rcpt_tos: tuple[str, ...]
    content: bytes  # as received, before Return-Path/Delivered-To were added
    login: str | None  # the AUTH user name, None if the client did not authenticate
    tls: bool  # STARTTLS or implicit TLS was in use
    at: float = 0.0  # time.monotonic() when it was accepted (after delivery)

    @property
    def message(self) -> EmailMessage:
        return parse(self.content)


class _QuietLoginDataWarning(logging.Filter):
    """aiosmtpd 1.4 logs a deprecation warning about `login_data` on every AUTH."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "login_data is deprecated" not in record.getMessage()


logging.getLogger("mail.log").addFilter(_QuietLoginDataWarning())


class SmtpServer:
    """An SMTP server (aiosmtpd) delivering into a `Dovecot` by IMAP APPEND.

    `port`: plain SMTP with STARTTLS; `tls_port`: implicit TLS. AUTH PLAIN and LOGIN accept
    any Dovecot user (`user` or `user@example.test`) with the Dovecot password, also without
    TLS (loopback only). With `auth_required` (the default) MAIL FROM needs AUTH first.
    Set `failure` to an SMTP reply such as "451 4.3.0 Try again later" to refuse every DATA.
    """

    def __init__(
        self,
        dovecot: Dovecot,
        *,
        domain: str = DOMAIN,
        auth_required: bool = True,
        certificates: Certificates | None = None,
    ) -> None:
        self.dovecot = dovecot
        self.domain = domain
        self.auth_required = auth_required
        self.certificates = certificates or dovecot.certificates
        self.host = HOST
        self.port = free_port()
        self.tls_port = free_port()
        while self.tls_port == self.port:
            self.tls_port = free_port()
        self.failure: str | None = None
        self._accepted: list[Accepted] = []
        self._lock = threading.Lock()
        self._controllers: list[Controller] = []
        self._handler: _Delivery | None = None

    @property
    def ca_file(self) -> Path:
        return self.certificates.ca_file

    def client_context(self) -> ssl.SSLContext:
        return self.certificates.client_context()

    @property
    def running(self) -> bool:
        return bool(self._controllers)

    def start(self) -> Self:
        """Listen (again) on `port` and `tls_port`."""
        if self._controllers:
            raise MailServerError("SMTP server is already running")
        handler = self._handler = _Delivery(self)
        common: dict[str, Any] = {
            "server_hostname": f"mail.{self.domain}",
            "ready_timeout": TIMEOUT,
            # AUTH is offered with and without TLS. `auth_required` is enforced by the handler
            # (aiosmtpd warns on every connection when asked to require AUTH but not TLS).
            "auth_require_tls": False,
            "authenticator": self._authenticate,
        }
        starttls = Controller(
            handler,
            hostname=self.host,
            port=self.port,
            tls_context=self.certificates.server_context(),
            **common,
        )
        implicit = Controller(
            handler,
            hostname=self.host,
            port=self.tls_port,
            ssl_context=self.certificates.server_context(),
            **common,
        )
        try:
            for controller in (starttls, implicit):
                controller.start()
                self._controllers.append(controller)
        except BaseException:
            self.stop()
            raise
        atexit.register(self.stop)
        return self

    def stop(self) -> None:
        """Stop listening; connections are refused until `start()`."""
        atexit.unregister(self.stop)
        controllers, self._controllers = self._controllers, []
        for controller in controllers:
            controller.stop()
        handler, self._handler = self._handler, None
        if handler is not None:
            handler.close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def accepted(self) -> list[Accepted]:
        """Messages accepted so far, oldest first (a copy)."""
        with self._lock:
            return list(self._accepted)

    def clear(self) -> None:
        """Forget accepted messages and any `failure`."""
        with self._lock:
            self._accepted.clear()
        self.failure = None

    def _record(self, accepted: Accepted) -> None:
        with self._lock:
            self._accepted.append(accepted)

    def delivers(self, user: str) -> bool:
        """Whether mail accepted for `user` is put into their Dovecot mailbox (all are)."""
        return True

    def _user_for_login(self, login: str) -> str | None:
        name = login.lower()
        if "@" in name:
            name = mailbox_of(name, self.domain) or ""
        return name if name in self.dovecot.users else None

    def _authenticate(
        self, server: SMTP, session: Session, envelope: Envelope, mechanism: str, data: Any
    ) -> AuthResult:
        if isinstance(data, LoginPassword):
            login = data.login.decode("utf-8", "replace")
            user = self._user_for_login(login)
            if (
                user is not None
                and data.password.decode("utf-8", "replace") == self.dovecot.password
            ):
                return AuthResult(success=True, auth_data=login)
        return AuthResult(success=False, handled=False)

    def send(
        self,
        sender: str,
        recipients: Sequence[str],
        message: EmailMessage | bytes | str,
        *,
        login: str | None = None,
        tls: Tls = "starttls",
    ) -> dict[str, tuple[int, bytes]]:
        """Send like a player's mail client: smtplib, STARTTLS, AUTH as `login`.

        `login` defaults to the user of `sender`; "" sends without AUTH. Returns the refused
        recipients (smtplib raises SMTPRecipientsRefused when all are refused).
        """
        raw = _as_bytes(message)
        options = ["BODY=8BITMIME"] if any(byte > 127 for byte in raw) else []
        if login is None:
            login = mailbox_of(sender, self.domain) or sender
        client: smtplib.SMTP
        if tls == "tls":
            client = smtplib.SMTP_SSL(
                self.host,
                self.tls_port,
                local_hostname="client.example.test",
                timeout=TIMEOUT,
                context=self.client_context(),
            )
        else:
            client = smtplib.SMTP(
                self.host, self.port, local_hostname="client.example.test", timeout=TIMEOUT
            )
        with client:
            if tls == "starttls":
                client.starttls(context=self.client_context())
            if login:
                client.login(login, self.dovecot.password)
            return client.sendmail(sender, list(recipients), raw, mail_options=options)


def _uses_tls(server: SMTP, session: Session) -> bool:
    """STARTTLS sets `session.ssl`; on the implicit-TLS port only the transport knows."""
    if session.ssl is not None:
        return True
    return (
        server.transport is not None and server.transport.get_extra_info("ssl_object") is not None
    )


class _Delivery:
    """aiosmtpd handler: known `user[+tag]@domain` recipients only; APPEND a copy for each."""

    def __init__(self, server: SmtpServer) -> None:
        self.server = server
        self._sessions: dict[str, imaplib.IMAP4] = {}  # one logged-in session per mailbox
        self._lock = threading.Lock()  # the two listeners deliver from two threads

    def close(self) -> None:
        with self._lock:
            sessions, self._sessions = self._sessions, {}
        for client in sessions.values():
            with contextlib.suppress(OSError, imaplib.IMAP4.error):
                client.logout()

    def _append(self, user: str, raw: bytes) -> None:
        """APPEND over a kept session (a login per message would make delivery the slowest
        part of every test); a broken session is replaced once."""
        dovecot = self.server.dovecot
        with self._lock:
            for attempt in (1, 2):
                client = self._sessions.get(user)
                try:
                    if client is None:
                        client = imaplib.IMAP4(dovecot.host, dovecot.port, timeout=TIMEOUT)
                        client.login(user, dovecot.password)
                        self._sessions[user] = client
                    now = imaplib.Time2Internaldate(time.time())
                    kind, data = client.append('"INBOX"', "", now, raw)
                except (OSError, imaplib.IMAP4.abort):
                    self._sessions.pop(user, None)
                    if attempt == 2:
                        raise
                    continue
                if kind != "OK":
                    raise MailServerError(f"APPEND for {user} failed: {data!r}")
                return

    async def handle_MAIL(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: list[str]
    ) -> str:
        if self.server.auth_required and not session.authenticated:
            return "530 5.7.0 Authentication required"
        envelope.mail_from = address
        envelope.mail_options.extend(options)
        return "250 OK"

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: list[str]
    ) -> str:
        user = mailbox_of(address, self.server.domain)
        if user is None:
            return f"550 5.7.1 <{address}>: relaying denied"
        if user not in self.server.dovecot.users:
            return f"550 5.1.1 <{address}>: no such user"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        if self.server.failure:
            return self.server.failure
        content = envelope.original_content or b""
        mail_from = envelope.mail_from or ""
        try:
            await asyncio.to_thread(self._deliver, mail_from, list(envelope.rcpt_tos), content)
        except Exception as error:
            return f"451 4.3.0 delivery failed: {error}"
        self.server._record(
            Accepted(
                mail_from=mail_from,
                rcpt_tos=tuple(envelope.rcpt_tos),
                content=content,
                login=session.auth_data if isinstance(session.auth_data, str) else None,
                tls=_uses_tls(server, session),
                at=time.monotonic(),
            )
        )
        return "250 2.0.0 OK: delivered"

    def _deliver(self, mail_from: str, recipients: list[str], content: bytes) -> None:
        for recipient in recipients:
            user = mailbox_of(recipient, self.server.domain)
            assert user is not None
            if not self.server.delivers(user):
                continue
            trace = f"Return-Path: <{mail_from}>\r\nDelivered-To: {recipient}\r\n"
            self._append(user, trace.encode("utf-8") + content)


class Mail:
    """What a test needs to play by mail: both servers and the player-side helpers."""

    def __init__(self, dovecot: Dovecot, smtp: SmtpServer) -> None:
        self.dovecot = dovecot
        self.smtp = smtp
        self.domain = smtp.domain
        self.password = dovecot.password
        self.ca_file = dovecot.ca_file

    def client_context(self) -> ssl.SSLContext:
        return self.dovecot.client_context()

    def address(self, user: str, tag: str | None = None) -> str:
        return address(user, tag, self.domain)

    def new_user(self) -> str:
        """`Dovecot.new_user`: a user that no other test has used."""
        return self.dovecot.new_user()

    def send(
        self,
        sender: str,
        recipients: Sequence[str],
        message: EmailMessage | bytes | str,
        **options: Any,
    ) -> dict[str, tuple[int, bytes]]:
        """`SmtpServer.send`."""
        return self.smtp.send(sender, recipients, message, **options)

    def fetch_all(self, user: str, **options: Any) -> list[EmailMessage]:
        """`Dovecot.fetch_all`."""
        return self.dovecot.fetch_all(user, **options)

    def wait_for(
        self,
        user: str,
        predicate: Callable[[EmailMessage], bool] | None = None,
        *,
        timeout: float = TIMEOUT,
    ) -> EmailMessage:
        """`Dovecot.wait_for`."""
        return self.dovecot.wait_for(user, predicate, timeout=timeout)

    def reset(self) -> None:
        """Empty every mailbox, forget accepted messages, and make sure SMTP is up."""
        self.dovecot.clear()
        self.smtp.clear()
        if not self.smtp.running:
            self.smtp.start()


def mail_settings(mail: Mail, data_dir: Path) -> Settings:
    """The service on the test servers: IMAP and SMTP both with STARTTLS and a login."""
    return Settings(
        data_dir=data_dir,
        mail="imap",
        from_address=SERVICE,
        imap=ImapSettings(
            host="127.0.0.1",
            port=mail.dovecot.port,
            tls="starttls",
            user="tongiaki",
            password=mail.password,
            ca_file=str(mail.ca_file),
        ),
        smtp=SmtpSettings(
            host="127.0.0.1",
            port=mail.smtp.port,
            tls="starttls",
            user="tongiaki",
            password=mail.password,
            ca_file=str(mail.ca_file),
        ),
    )
