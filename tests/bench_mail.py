"""Benchmark of the mail loop: many games at once through real IMAP and SMTP servers.

Starts Dovecot and the test SMTP server on loopback, runs `pbem serve` on them in a
process of its own, and lets scripted players answer every prompt at once with a random
option. Players read their prompts as the SMTP server accepts them (the service is what is
measured, not their mail clients) and reply over SMTP; the service reads over IMAP.

Prints the inbound moves the service processed per second, and the delay from a reply's
delivery to the mailbox until the SMTP server accepted the service's next prompt for that
game (median and 95th percentile). The last line is `moves/s: N`.

With `--idle` the service polls only every 600 s and reads what IMAP IDLE reports, and the
players put their replies straight into the service's mailbox (IMAP APPEND): the delay is
then from the APPEND of a reply until its answer arrived at the SMTP server.

    python -m tests.bench_mail [--games 10] [--players 3] [--seconds 40] [--poll 0.2] [--idle]
"""

from __future__ import annotations

import argparse
import email
import imaplib
import multiprocessing
import multiprocessing.queues
import os
import queue
import random
import re
import signal
import smtplib
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from email.utils import parseaddr
from pathlib import Path
from typing import Any

from sqlmodel import select

from pbem.core.config import settings_toml
from pbem.flow.service import SeatSpec, Service
from pbem.store.db import open_database, session
from pbem.store.models import Inbound
from tests.support.localmail import START, option_count, reply_to
from tests.support.mailservers import (
    SERVICE,
    Accepted,
    Dovecot,
    Mail,
    SmtpServer,
    address,
    mail_settings,
    parse,
)

SERVICE_USER = SERVICE.split("@")[0]  # its Dovecot mailbox
IDLE_POLL = 600.0  # with --idle: no poll comes during the run, IDLE does it all


def run(games: int, players: int, seconds: float, poll: float, idle: bool = False) -> float:
    rng = random.Random(1)
    fork = multiprocessing.get_context("fork")
    accepted: multiprocessing.queues.Queue[tuple[str, bytes, float]] = fork.Queue()
    ports: multiprocessing.queues.Queue[tuple[int, int]] = fork.Queue()
    stop = fork.Event()
    with Dovecot() as dovecot, tempfile.TemporaryDirectory() as tmp:
        # the SMTP server gets a process (and an interpreter lock) of its own, so that the
        # players' side of the benchmark does not slow it down
        smtp_process = fork.Process(target=_serve_smtp, args=(dovecot, accepted, ports, stop))
        smtp_process.start()
        smtp_port, smtp_tls_port = ports.get(timeout=30)
        mail = Mail(dovecot, SmtpServer(dovecot))
        mail.smtp.port, mail.smtp.tls_port = smtp_port, smtp_tls_port
        settings = replace(
            mail_settings(mail, Path(tmp) / "data"), poll_seconds=poll, outbox_seconds=poll
        )
        config = Path(tmp) / "pbem.toml"
        config.write_text(settings_toml(settings))
        service = Service(open_database(settings.database_path), settings)
        for g in range(games):
            seats = [
                SeatSpec(f"B{g * players + i}", address(f"bench{g * players + i + 1}"))
                for i in range(players)
            ]
            service.new_game(seats, seed=g, now=START)
        env = {**os.environ, "PBEM_IMAP_PASSWORD": dovecot.password}
        env["PBEM_SMTP_PASSWORD"] = dovecot.password
        command = [str(Path(sys.executable).parent / "pbem"), "serve", "--config", str(config)]
        serve = subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL)
        delays: list[float] = []
        processes = (serve.pid, smtp_process.pid, dovecot.pid or 0)
        try:
            before = _cpu(*processes)
            delays, elapsed, finished = _drive(
                accepted, smtp_port, dovecot, games, seconds, rng, idle
            )
            used = [after - start for after, start in zip(_cpu(*processes), before, strict=True)]
        finally:
            serve.send_signal(signal.SIGTERM)
            serve.wait(30)
            stop.set()
            _drain_and_join(smtp_process, accepted)
        with session(service.engine) as db:
            moves = sum(1 for i in db.exec(select(Inbound)) if i.outcome == "applied")
    rate = moves / elapsed
    how = "IMAP IDLE, replies by APPEND" if idle else "replies by SMTP"
    print(f"{games} games of {players} players, poll every {poll} s, {how}, {elapsed:.1f} s")
    print(f"inbound moves processed: {moves}, games finished: {finished}")
    if delays:
        p95 = statistics.quantiles(delays, n=20)[-1] if len(delays) >= 20 else max(delays)
        start = "the APPEND of a reply" if idle else "delivery"
        print(
            f"delay from {start} to the next prompt at the SMTP server: "
            f"median {statistics.median(delays):.3f} s, p95 {p95:.3f} s ({len(delays)} replies)"
        )
    if moves:
        service, smtp, dovecot_cpu, players, machine = (seconds / moves * 1000 for seconds in used)
        cores = os.cpu_count() or 1
        print(
            f"CPU per move: service {service:.0f} ms, SMTP server {smtp:.0f} ms, Dovecot "
            f"{dovecot_cpu:.0f} ms, players (this script) {players:.0f} ms; the machine "
            f"{machine:.0f} ms ({used[-1] / elapsed:.2f} of {cores} cores busy)"
        )
        print(
            f"moves/s that {cores} cores allow the service and the mail servers at that CPU per "
            f"move: {cores * 1000 / (service + smtp + dovecot_cpu):.0f}; the service alone on "
            f"one core: {1000 / service:.0f}"
        )
    print(f"moves/s: {rate:.1f}")
    return rate


def _cpu(service: int, smtp: int, dovecot: int) -> tuple[float, float, float, float, float]:
    """CPU seconds used so far by the service, the SMTP server, Dovecot (its master and
    every process under it, those that ended included), this process (the players) and the
    whole machine; read from /proc (Linux only, as the test servers are)."""
    tick = os.sysconf("SC_CLK_TCK")
    stats = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:  # ended meanwhile
                continue
            stats[int(entry.name)] = (int(fields[1]), [int(f) for f in fields[11:15]])

    def process(pid: int, children: bool = False) -> float:
        utime, stime, cutime, cstime = stats.get(pid, (0, [0, 0, 0, 0]))[1]
        own = (utime + stime + (cutime + cstime if children else 0)) / tick
        if not children:
            return own
        under = [child for child, (parent, _) in stats.items() if parent == pid]
        return own + sum(process(child, True) for child in under)

    first = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, first[:8])
    machine = (user + nice + system + irq + softirq + steal) / tick
    mine = os.times()
    return (
        process(service),
        process(smtp),
        process(dovecot, children=True),
        mine.user + mine.system,
        machine,
    )


class _ForwardingSmtp(SmtpServer):
    """The test SMTP server, passing on what it accepted to the benchmark's process. It puts
    only the players' replies into Dovecot (the service's mailbox): the service's mail to the
    players is passed on as accepted, as a provider relays it to the players' own servers on
    other machines, not into a mailbox on the service's machine that nobody reads here."""

    def __init__(self, dovecot: Dovecot, out: Any) -> None:
        super().__init__(dovecot)
        self.out = out

    def _record(self, accepted: Accepted) -> None:
        self.out.put((accepted.mail_from, accepted.content, accepted.at))

    def delivers(self, user: str) -> bool:
        return user == SERVICE_USER


def _serve_smtp(dovecot: Dovecot, out: Any, ports: Any, stop: Any) -> None:
    """In a forked process: run the SMTP server until `stop` is set. What it accepted after
    the benchmark stopped reading is dropped: the process ends without waiting for a reader
    (it used to hang at exit, kept alive by the queue's unread items)."""
    out.cancel_join_thread()
    server = _ForwardingSmtp(dovecot, out).start()
    ports.put((server.port, server.tls_port))
    stop.wait()
    server.stop()


def _drain_and_join(process: Any, accepted: Any, seconds: float = 30.0) -> None:
    """Wait for the SMTP process to end, reading what it still passes on meanwhile."""
    deadline = time.monotonic() + seconds
    while process.is_alive() and time.monotonic() < deadline:
        try:
            while True:
                accepted.get_nowait()
        except queue.Empty:
            pass
        process.join(0.05)
    if process.is_alive():
        process.terminate()
        process.join(5)


def _drive(
    accepted: Any,
    port: int,
    dovecot: Dovecot,
    games: int,
    seconds: float,
    rng: random.Random,
    append: bool = False,
) -> tuple[list[float], float, int]:
    """Answer every prompt as soon as the SMTP server accepted it, until time is up; by
    SMTP, or with `append` by IMAP APPEND into the service's mailbox (timed from before it)."""
    pending: dict[str, float] = {}
    delays: list[float] = []
    finished: set[str] = set()
    # the players share one kept SMTP connection: the players' clients are not measured
    client = smtplib.SMTP("127.0.0.1", port, timeout=10)
    client.login("bench1", dovecot.password)
    mailbox = imaplib.IMAP4(dovecot.host, dovecot.port, timeout=10)
    mailbox.login("tongiaki", dovecot.password)
    start = time.monotonic()
    while time.monotonic() - start < seconds and len(finished) < games:
        try:
            mail_from, content, at = accepted.get(timeout=0.05)
        except queue.Empty:
            continue
        if mail_from != SERVICE:
            continue
        message = email.message_from_bytes(content)  # compat32: quick, headers only
        game = str(message["X-Tongiaki-Game"])
        subject = str(message["Subject"])
        if "Game over" in subject:
            finished.add(game)
        if "Your move" not in subject:
            continue
        if game in pending:
            delays.append(at - pending.pop(game))
        prompt = parse(content)
        options = option_count(prompt)
        player = parseaddr(str(message["To"]))[1]
        target = parseaddr(str(message["Reply-To"]))[1]
        raw = re.sub(rb"\r?\n", b"\r\n", reply_to(prompt, str(rng.randint(1, options))))
        if append:
            pending[game] = time.monotonic()
            trace = f"Return-Path: <{player}>\r\nDelivered-To: {target}\r\n".encode()
            mailbox.append('"INBOX"', "", imaplib.Time2Internaldate(time.time()), trace + raw)
        else:
            client.sendmail(player, [target], raw)
            pending[game] = time.monotonic()
    client.quit()
    mailbox.logout()
    return delays, time.monotonic() - start, len(finished)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--players", type=int, default=3, choices=range(2, 7))
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--poll", type=float, default=0.2, help="the service's poll interval")
    parser.add_argument(
        "--idle",
        action="store_true",
        help=f"IMAP IDLE with polls {IDLE_POLL:g} s apart; replies by APPEND",
    )
    args = parser.parse_args(argv)
    if args.games * args.players > 40:
        parser.error("at most 40 players in all (the test server has bench1 to bench40)")
    poll = IDLE_POLL if args.idle else args.poll
    run(args.games, args.players, args.seconds, poll, args.idle)


if __name__ == "__main__":
    main()
