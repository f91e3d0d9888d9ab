"""One cycle of the service (read new mail, do what deadlines call for, send queued mail) and
the scheduler around it (`serve`); the sending itself is `pbem.host.sending`'s."""

from __future__ import annotations

import asyncio
import fcntl
import gc
import imaplib
import logging
import os
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, suppress
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from pathlib import Path

from apscheduler.events import EVENT_JOB_ERROR, EVENT_JOB_EXECUTED, EVENT_JOB_SUBMITTED, JobEvent
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlmodel import Session

from pbem.core import ImapSettings, MailOutcome, MailTransport, PbemError, Settings, shown
from pbem.flow.deadlines import TickReport, tick
from pbem.flow.replies import Replies, Taken, handle
from pbem.flow.service import Service
from pbem.host.sending import LANES, backoff, flush_outbox
from pbem.host.transport import (
    IDLE_RENEW,
    ImapIdle,
    Inbox,
    KeptImap,
    make_sender,
    open_inbox,
)
from pbem.mail_in import database_down, quarantine_row
from pbem.store import on_postgres, session

log = logging.getLogger(__name__)

MAILBOX_DOWN = (OSError, imaplib.IMAP4.error)  # the mail server, not the service, failed
# (IMAPClient raises imaplib's errors: imaplib is light, IMAPClient loaded only to read IMAP)


class Outage:
    """A step that fails because a server is down: logged when it starts failing, now and
    then while it goes on, and when it works again; not at every poll."""

    EVERY = 100  # failed tries between two reminders in the log

    def __init__(self, what: str) -> None:
        self.what = what
        self.failures = 0
        self.why = ""

    def failed(self, error: BaseException) -> None:
        self.failures += 1
        why, self.why = self.why, one_line(error)
        if self.failures == 1 or self.failures % self.EVERY == 0 or why != self.why:
            log.warning(
                "%s failed%s: %s; will try again",
                self.what,
                f" {self.failures} times in a row" if self.failures > 1 else "",
                self.why,
            )

    def worked(self) -> None:
        if self.failures:
            log.info("%s works again after %d failed tries", self.what, self.failures)
        self.failures, self.why = 0, ""


def one_line(error: BaseException) -> str:
    """An error in one line: a database error without the SQL statement SQLAlchemy adds."""
    cause = error.orig if isinstance(error, DBAPIError) and error.orig is not None else error
    return shown(f"{type(cause).__name__}: {cause}", 300)


class ServiceRunning(PbemError, RuntimeError):
    """Another `pbem serve` or `pbem poll` works on the same database."""


@contextmanager
def one_service(database: Path | str) -> Iterator[None]:
    """Hold the SQLite database's service lock for as long as the block runs: two services on
    one file would each send the same waiting mail. The lock goes with the process. On
    PostgreSQL (`database` is its URL) services share the database: each claims the mail it
    sends (`flush_outbox`), and works on a game under the game's lock."""
    if isinstance(database, str):
        yield
        return
    path = database.with_name(database.name + ".lock")
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a+") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.seek(0)
            holder = lock.read().strip() or "another process"
            raise ServiceRunning(
                f"{holder} is serving {database} already; run one service per database"
            ) from None
        lock.seek(0)
        lock.truncate()
        lock.write(f"pbem (pid {os.getpid()})")
        lock.flush()
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@dataclass
class CycleReport:
    handled: int = 0
    sent: int = 0
    failed: int = 0
    clock: TickReport | None = None
    read_error: str = ""  # why the mailbox could not be read, if it could not


def read_mail(
    service: Service,
    now: datetime,
    opener: Callable[[], AbstractContextManager[Inbox]] | None = None,
    *,
    timer: Callable[[], float] = time.monotonic,
) -> int:
    """Handle every new message; each is marked handled only after the transaction that
    recorded it committed (or put it in the quarantine). A database that fails stops the
    reading: the mail stays unread and is tried again at the next poll, where what was
    committed is a duplicate. On SQLite the mails are handled in batches, a transaction each
    (`take_batch`); on PostgreSQL, where services share the database and each holds the games
    it works on until it commits, a transaction each. `timer` measures a batch's time."""
    handled = 0
    with (opener or partial(open_inbox, service.settings))() as inbox:
        waiting = inbox.new_messages()
        if on_postgres(service.engine):
            for key, raw in waiting:
                take(service, raw, now)  # logs what it did
                inbox.mark_handled([key])
                handled += 1
            return handled
        while keys := take_batch(service, waiting, now, timer):
            inbox.mark_handled(keys)
            handled += len(keys)
    return handled


BATCH_SECONDS = 0.5  # an inbound batch grows no longer: its answers wait for its commit


def take_batch(
    service: Service,
    waiting: Iterator[tuple[str, bytes]],
    now: datetime,
    timer: Callable[[], float] = time.monotonic,
) -> list[str]:
    """Handle the next of the `waiting` mails in one transaction: as many as the
    `inbound_batch` setting and `BATCH_SECONDS` (by `timer`) allow; their keys once committed
    ([] when none was waiting). A mail the service fails on rolls back its own part only, and is put
    in the quarantine in that transaction; a database that fails rolls back the whole batch
    (raised)."""
    keys: list[str] = []
    taken: list[Taken] = []
    started = timer()
    with session(service.engine) as db:
        for key, raw in waiting:
            taken.append(_take_in(service, db, raw, now))
            keys.append(key)
            full = len(keys) >= service.settings.inbound_batch
            if full or timer() - started >= BATCH_SECONDS:
                break
        db.commit()
    for mail in taken:
        mail.log()
    return keys


def _take_in(service: Service, db: Session, raw: bytes, now: datetime) -> Taken:
    """One mail of a batch, in a savepoint of the batch's transaction."""
    try:
        with db.begin_nested():
            return Replies(service).take_in(db, raw, now)
    except Exception as error:
        if database_down(error):
            raise _first_failure(error) from None
        return _quarantined(service, db, raw, now, error)


def _first_failure(error: BaseException) -> BaseException:
    """The database error a failure began with: SQLite ends the whole transaction on a full
    disk (and on other faults), and the savepoint's rollback then fails as well, with 'no
    such savepoint', which would hide the cause."""
    while isinstance(error.__context__, OperationalError):
        error = error.__context__
    return error


RACES = 3  # tries of a mail whose transaction lost a race with another service


def take(service: Service, raw: bytes, now: datetime) -> MailOutcome:
    """Handle one inbound mail; if anything but the database fails, the mail goes to the
    quarantine with the error (one log line) and the outcome is "quarantined". On PostgreSQL
    a transaction that lost a race with another service (the same row written by both, a
    deadlock) changed nothing: the mail is handled again, and is then a duplicate if the
    other service handled it."""
    for left in range(RACES, 0, -1):
        try:
            return handle(service, raw, now)
        except Exception as error:
            if left > 1 and lost_race(service.engine, error):
                log.info("message handled again after a race: %s", one_line(error))
                continue
            if database_down(error):
                raise
            return _quarantine(service, raw, now, error)
    raise AssertionError("unreachable")  # pragma: no cover


def lost_race(engine: Engine, error: BaseException) -> bool:
    """Whether `error` is PostgreSQL's answer to two transactions writing the same rows: a
    unique key written by both, a deadlock, a serialization failure."""
    if not on_postgres(engine) or not isinstance(error, DBAPIError):
        return False
    return getattr(error.orig, "sqlstate", None) in ("23505", "40P01", "40001")


def _quarantine(service: Service, raw: bytes, now: datetime, error: Exception) -> MailOutcome:
    """A mail the service failed on, put in the quarantine in a transaction of its own."""
    with session(service.engine) as db:
        taken = _quarantined(service, db, raw, now, error)
        db.commit()
    taken.log()
    return taken.outcome


def _quarantined(
    service: Service, db: Session, raw: bytes, now: datetime, error: Exception
) -> Taken:
    """Put a mail the service failed on in the quarantine, in `db`'s transaction, with why."""
    why = one_line(error)  # a database error without its SQL and parameters
    kept = quarantine_row(raw, why, now, service.settings.max_message_bytes)
    db.add(kept)
    db.flush()  # its number, for the log
    return Taken(
        MailOutcome.QUARANTINED,
        logging.WARNING,
        "message quarantined as %d (%d bytes): %s",
        (kept.id, len(raw), shown(why, 200)),
    )


class IdleWatch:
    """Waits for new mail with IMAP IDLE in a thread of its own and calls `on_mail` (from
    that thread) when some arrives, and whenever a session begins (mail may have come while
    none waited). After an error it reconnects at once, then after `backoff` while sessions
    fail before one wait is done. If the server does not offer IDLE it ends: polling does
    it all then."""

    def __init__(
        self, settings: ImapSettings, on_mail: Callable[[], None], *, renew: float
    ) -> None:
        self.settings = settings
        self.on_mail = on_mail
        self.renew = renew
        self.stopping = threading.Event()
        self.session: ImapIdle | None = None
        self.outage = Outage("waiting for mail with IDLE")
        self.thread = threading.Thread(target=self._run, name="imap-idle", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        """Ask the thread to end; a wait under way ends with DONE and LOGOUT."""
        self.stopping.set()
        session = self.session
        if session is not None:
            session.interrupt()

    def join(self, timeout: float) -> None:
        self.thread.join(timeout)
        if self.thread.is_alive():
            log.warning("the IDLE session did not end within %g s; left behind", timeout)

    def _run(self) -> None:
        failures = 0  # sessions in a row that failed before one wait was done
        while not self.stopping.wait(backoff(failures - 1).total_seconds() if failures > 1 else 0):
            waited = False
            try:
                session = ImapIdle(self.settings)
            except MAILBOX_DOWN as error:
                self.outage.failed(error)
                failures += 1
                continue
            try:
                if not session.offered:
                    log.info("the IMAP server does not offer IDLE: new mail is polled for")
                    return
                self.session = session
                if self.stopping.is_set():
                    return
                self.on_mail()
                while not self.stopping.is_set():
                    if session.wait(self.renew):
                        self.on_mail()
                    if not waited:
                        waited = True
                        self.outage.worked()
            except MAILBOX_DOWN as error:
                self.outage.failed(error)
                failures = 1 if waited else failures + 1
            except Exception:  # a fault of ours: polling goes on, IDLE is tried again later
                log.exception("waiting for mail with IDLE failed; will try again")
                failures += 1
            finally:
                self.session = None
                session.close()


def _where(settings: Settings) -> str:
    """What the service works on, for its first log line."""
    if settings.mail == MailTransport.IMAP:
        imap, smtp = settings.imap, settings.smtp
        mail = (
            f"replies from IMAP {imap.host}:{imap.port} ({imap.tls}, user {imap.user}, folder "
            f"{imap.folder}), mail out by SMTP {smtp.host}:{smtp.port} ({smtp.tls})"
        )
    else:
        mail = f"replies from {settings.inbox_dir}, mail out to {settings.outbox_dir}"
    return (
        f"{settings.database_shown}; {mail}; polling every {settings.poll_seconds:g} s, "
        f"sending every {settings.outbox_seconds:g} s; as {settings.from_address}"
    )


def run_cycle(service: Service, now: datetime) -> CycleReport:
    """Read new mail, do what the deadlines call for, then send what is due; a mailbox that
    cannot be read is reported (`read_error`) and the rest still done."""
    report = CycleReport()
    try:
        report.handled = read_mail(service, now)
    except MAILBOX_DOWN as error:
        report.read_error = f"{type(error).__name__}: {error}"
        log.warning("reading mail failed: %s", report.read_error)
    report.clock = tick(service, now)
    report.sent, report.failed = asyncio.run(
        flush_outbox(
            service.engine,
            [make_sender(service.settings) for _ in range(LANES)],
            service.settings.from_address,
            now,
            claim=timedelta(seconds=service.settings.outbox_claim_seconds),
        )
    )
    return report


def serve(service: Service, clock: Callable[[], datetime]) -> None:
    """Poll and send at the configured intervals until SIGTERM or SIGINT.

    APScheduler wakes the poller and the sender; mail is read in a worker thread while the
    sender works in the event loop, and the sender is woken at once after new mail was
    handled, so answers go out without waiting for the next interval. With IMAP, a second
    session waits with IDLE where the server offers it, and mail is read as soon as it
    arrives; the poll at every interval stays (it also runs the deadlines). The garbage
    collector looks at new objects less often (`YOUNG_COLLECTED_AFTER`).
    """
    gc.set_threshold(YOUNG_COLLECTED_AFTER, *gc.get_threshold()[1:])
    asyncio.run(Serving(service, clock).run())


# New container objects the collector lets pile up before it looks at them (Python's default
# is 700): a reply makes many thousands, so it ran several times a reply over them, some 7%
# of handling's CPU in `bench-handle`'s games; a cycle among them is freed a little later.
YOUNG_COLLECTED_AFTER = 10_000


class Serving:
    """One run of `serve` in its event loop: the poll (mail read and deadlines run in a
    worker thread), the sender, the IDLE watch's wake-ups, the scheduler that starts the poll
    and the sender at their intervals, and the stop that lets each finish what it began."""

    def __init__(self, service: Service, clock: Callable[[], datetime]) -> None:
        self.service = service
        self.clock = clock
        self.stop = asyncio.Event()  # SIGTERM or SIGINT
        self.wake = asyncio.Event()  # the sender's turn: an interval, or mail was handled
        self.noticed = asyncio.Event()  # the IDLE session saw new mail
        self.polling = asyncio.Lock()  # held while a poll is under way
        self.reading = Outage("reading mail")
        self.database = Outage("the database")  # a full disk: mail stays unread till mended
        self.jobs = Counter[str]()  # how many the scheduler started, and how many ended
        settings = service.settings
        self.senders = [make_sender(settings, keep_open=True) for _ in range(LANES)]
        self.kept = KeptImap(settings.imap) if settings.mail == MailTransport.IMAP else None
        self.watch: IdleWatch | None = None

    async def run(self) -> None:
        """Serve until stopped, then stop each part in turn."""
        self.loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            self.loop.add_signal_handler(signum, self.stop.set)
        if self.kept is not None:
            self.watch = IdleWatch(self.service.settings.imap, self.on_mail, renew=IDLE_RENEW)
            self.watch.start()
        noticing = asyncio.create_task(self.poll_when_noticed())
        scheduler = self.scheduler()
        sending = asyncio.create_task(self.send_forever())
        scheduler.start()
        log.info("serving: %s", _where(self.service.settings))
        await self.stop.wait()
        await self.shut_down(scheduler, noticing, sending)
        log.info("stopped")

    def scheduler(self) -> AsyncIOScheduler:
        """The poll and the sender's wake-up at their intervals, the first ones at once."""
        scheduler = AsyncIOScheduler()
        scheduler.add_listener(
            self.count, EVENT_JOB_SUBMITTED | EVENT_JOB_EXECUTED | EVENT_JOB_ERROR
        )
        for job, seconds in (
            (self.poll, self.service.settings.poll_seconds),
            (self.wake_sender, self.service.settings.outbox_seconds),
        ):
            scheduler.add_job(
                job,
                "interval",
                seconds=seconds,
                next_run_time=self.clock(),
                max_instances=1,
                coalesce=True,
                misfire_grace_time=None,
            )
        return scheduler

    def count(self, event: JobEvent) -> None:
        self.jobs["started" if event.code == EVENT_JOB_SUBMITTED else "ended"] += 1

    async def shut_down(
        self, scheduler: AsyncIOScheduler, noticing: asyncio.Task[None], sending: asyncio.Task[None]
    ) -> None:
        """A poll under way finishes its cycle (it is not cancelled), then the scheduler,
        the IDLE wake-ups, the sender and the connections end."""
        if self.watch is not None:
            self.watch.stop()
        scheduler.pause()
        async with self.polling:
            pass
        # a job started before the pause ends at once now (a poll sees `stop`): let it, as
        # the scheduler's shutdown would cancel it and log the cancelling as a fault
        for _ in range(500):
            if self.jobs["ended"] >= self.jobs["started"]:
                break
            await asyncio.sleep(0.01)
        scheduler.shutdown(wait=False)
        self.noticed.set()
        await noticing
        self.wake.set()
        await sending
        for sender in self.senders:
            await sender.close()
        if self.kept is not None:
            self.kept.close()
        if self.watch is not None:
            await asyncio.to_thread(self.watch.join, 5.0)

    async def send_forever(self) -> None:
        """Send what is due whenever woken; on start-up every waiting mail is tried at once
        (the server may be back)."""
        settings = self.service.settings
        claim = timedelta(seconds=settings.outbox_claim_seconds)
        force = True
        while not self.stop.is_set():
            await self.wake.wait()
            self.wake.clear()
            try:
                await flush_outbox(
                    self.service.engine,
                    self.senders,
                    settings.from_address,
                    self.clock(),
                    force=force,
                    claim=claim,
                )
            except OperationalError as error:
                log.warning("sending mail failed: %s; will try again", one_line(error))
            except Exception:
                log.exception("sending mail failed; will try again")
            force = False

    async def wake_sender(self) -> None:  # in the loop: an asyncio.Event is not thread-safe
        self.wake.set()

    async def poll(self) -> None:
        """Read mail (in a worker thread) until a cycle finds nothing to do, waking the
        sender after each cycle that did something; the deadlines run in the poll's first
        cycle, then in the next one after they did something or once `poll_seconds` passed
        since they last ran (a cycle takes a moment: at every cycle of a busy poll they cost
        more than the mail they wait for, and mail that never stops must not stop them)."""
        try:
            await self.polling.acquire()
        except asyncio.CancelledError:  # stopping before this poll began: nothing to do
            return
        try:
            every = timedelta(seconds=self.service.settings.poll_seconds)
            ticking, ticked_at = True, self.clock()
            while not self.stop.is_set():
                if ticking:
                    ticked_at = self.clock()
                try:
                    handled, ticked = await asyncio.to_thread(self.read_and_tick, ticking)
                except Exception:
                    log.exception("a cycle failed; will try again")
                    return
                if not handled and not ticked:
                    return
                ticking = ticked > 0 or self.clock() - ticked_at >= every
                self.wake.set()  # answer at once rather than at the next outbox interval
        finally:
            self.polling.release()

    def read_and_tick(self, ticking: bool = True) -> tuple[int, int]:
        """One cycle without the sending, in a worker thread (the deadlines run only if
        `ticking`): what it did, the mails handled and what the deadlines did (reminders,
        automatic moves, deadlines moved). A failure is logged, never raised."""
        opener = self.kept.open if self.kept is not None else None
        try:
            handled = read_mail(self.service, self.clock(), opener)
        except MAILBOX_DOWN as error:
            self.reading.failed(error)
            handled = 0
        except OperationalError as error:
            self.database.failed(error)
            return 0, 0
        except Exception:  # a fault of ours: it must not stop the service either
            log.exception("reading mail failed; will try again")
            handled = 0
        else:
            self.reading.worked()
        if not ticking:
            return handled, 0
        try:
            report = tick(self.service, self.clock())  # even while the mailbox is down
        except OperationalError as error:
            self.database.failed(error)
            return handled, 0
        self.database.worked()
        return handled, report.reminders + report.automatic + report.graced

    def on_mail(self) -> None:
        """The IDLE session saw new mail (called from its thread)."""
        with suppress(RuntimeError):  # the loop is closed: the service has stopped
            self.loop.call_soon_threadsafe(self.noticed.set)

    async def poll_when_noticed(self) -> None:
        while True:
            await self.noticed.wait()
            self.noticed.clear()  # mail that comes during this poll calls for another
            if self.stop.is_set():
                return
            await self.poll()
