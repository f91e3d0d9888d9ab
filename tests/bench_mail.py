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

With `--against REV` the service of commit REV (checked out into a temporary worktree) runs
beside this one's, in turns (`--rounds` of each, alternating which goes first), on the same
servers' code, players and games: the machine's speed and load then weigh on both alike. The
games are made and the service runs with each side's own code (`python -m pbem`, its folder
first on PYTHONPATH, in this one's virtual environment); the last lines are the service's CPU
per move of each side, the median of its rounds.

    python -m tests.bench_mail [--games 10] [--players 3] [--seconds 40] [--poll 0.2] [--idle]
        [--against REV [--rounds 3]]
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
import shutil
import signal
import smtplib
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from contextlib import closing, suppress
from dataclasses import dataclass, replace
from email.utils import parseaddr
from pathlib import Path
from typing import Any

from pbem.core.config import settings_toml
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
FIRST_MAIL_SECONDS = 120  # how long the service may take to start (a loaded machine)
ROOT = Path(__file__).resolve().parent.parent  # the checkout this benchmark is in

# the games of a run, made by the code of the side measured (`--against`: an older commit's
# schema and settings may differ); argv: config file, games, players, the start (ISO)
NEW_GAMES = """
import sys
from datetime import datetime
from pathlib import Path
try:
    from pbem.core.config import load_settings
    from pbem.flow.service import SeatSpec, Service
    from pbem.store.db import open_database
except ImportError:  # a commit before pbem/ was in layers (issue 28)
    from pbem.config import load_settings
    from pbem.db import open_database
    from pbem.service import SeatSpec, Service
settings = load_settings(Path(sys.argv[1]))
games, players, start = int(sys.argv[2]), int(sys.argv[3]), datetime.fromisoformat(sys.argv[4])
service = Service(open_database(settings.database_path), settings)
for g in range(games):
    seats = [
        SeatSpec(f"B{g * players + i}", f"bench{g * players + i + 1}@{sys.argv[5]}")
        for i in range(players)
    ]
    service.new_game(seats, seed=g, now=start)
"""


@dataclass(frozen=True)
class Figures:
    """What one run measured."""

    moves: int
    rate: float  # inbound moves processed per second
    service_ms: float  # the service's CPU per move


def run(
    games: int,
    players: int,
    seconds: float,
    poll: float,
    idle: bool = False,
    code: Path = ROOT,
) -> Figures:
    """One run; `code`: the checkout whose service is measured (this one's by default)."""
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
        env = {**os.environ, "PBEM_IMAP_PASSWORD": dovecot.password}
        env["PBEM_SMTP_PASSWORD"] = dovecot.password
        env["PYTHONPATH"] = os.pathsep.join([str(code), *filter(None, [env.get("PYTHONPATH")])])
        env.pop("PBEM_CONFIG", None)
        domain = address("bench1").partition("@")[2]
        made = [sys.executable, "-c", NEW_GAMES, str(config), str(games), str(players)]
        subprocess.run([*made, START.isoformat(), domain], env=env, cwd=code, check=True)
        command = [sys.executable, "-m", "pbem", "serve", "--config", str(config)]
        serve = subprocess.Popen(command, env=env, cwd=code, stderr=subprocess.DEVNULL)
        delays: list[float] = []
        processes = (serve.pid, smtp_process.pid, dovecot.pid or 0)
        try:
            before: list[tuple[float, ...]] = []  # at the service's first mail: its start
            delays, elapsed, finished = _drive(  # is left out, as a long run would dilute it
                accepted,
                smtp_port,
                dovecot,
                games,
                seconds,
                rng,
                idle,
                started=lambda: before.append(_cpu(*processes)),
            )
            used = [after - start for after, start in zip(_cpu(*processes), before[0], strict=True)]
            moves = _applied(settings.database_path)  # those the CPU was counted for
        finally:
            serve.send_signal(signal.SIGTERM)
            serve.wait(30)
            stop.set()
            _drain_and_join(smtp_process, accepted)
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
    if moves:
        print(f"service CPU per move: {used[0] / moves * 1000:.1f} ms")
    print(f"moves/s: {rate:.1f}")
    return Figures(moves, rate, used[0] / moves * 1000 if moves else float("nan"))


def _applied(database: Path) -> int:
    """The inbound moves a service applied, read with sqlite3 (any commit's schema)."""
    with closing(sqlite3.connect(f"{database.as_uri()}?mode=ro", uri=True)) as reader:
        query = "SELECT count(*) FROM inbound WHERE outcome = 'applied'"
        return int(reader.execute(query).fetchone()[0])


def _run_apart(
    games: int, players: int, seconds: float, poll: float, idle: bool, code: Path
) -> Figures:
    """`run` in a process of its own (each run forks its SMTP server: a second fork from a
    process whose first run left threads behind could hang), its report passed on."""
    command = [sys.executable, "-m", "tests.bench_mail", "--games", str(games)]
    command += ["--players", str(players), "--seconds", str(seconds), "--poll", str(poll)]
    command += ["--code", str(code), *(["--idle"] if idle else [])]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    print(done.stdout, end="", flush=True)
    if done.returncode != 0:
        raise SystemExit(f"bench-mail: a run failed ({done.returncode}):\n{done.stderr}")
    said = dict(
        line.split(": ", 1)
        for line in done.stdout.splitlines()
        if line.startswith(("inbound moves processed", "service CPU per move", "moves/s"))
    )
    moves = int(said["inbound moves processed"].split(",")[0])
    service = float(said.get("service CPU per move", "nan ms").split()[0])
    return Figures(moves, float(said["moves/s"]), service)


def against(
    revision: str, rounds: int, games: int, players: int, seconds: float, poll: float, idle: bool
) -> tuple[list[Figures], list[Figures]]:
    """Runs of the service of `revision` and of this checkout in turns, `rounds` of each
    (the first of a round alternates), in one session on one machine; prints each run and
    then both sides' median CPU per move."""
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--verify", f"{revision}^{{commit}}"],
        capture_output=True,
        text=True,
    )
    if commit.returncode != 0:
        raise SystemExit(f"bench-mail: no commit {revision!r} here: {commit.stderr.strip()}")
    head = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    new_name = f"this checkout ({head}{', changed' if dirty else ''})"
    old_name = f"{revision} ({commit.stdout.strip()[:10]})"
    folder = Path(tempfile.mkdtemp(prefix="bench-mail-against-"))
    tree = folder / "tree"
    add = ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), commit.stdout.strip()]
    subprocess.run(add, check=True, capture_output=True)
    old: list[Figures] = []
    new: list[Figures] = []
    try:
        for round_ in range(rounds):
            sides = [(old_name, tree, old), (new_name, ROOT, new)]
            for name, code, kept in sides if round_ % 2 == 0 else sides[::-1]:
                print(f"-- round {round_ + 1} of {rounds}: {name}", flush=True)
                kept.append(_run_apart(games, players, seconds, poll, idle, code))
    finally:
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)],
            capture_output=True,
        )
        shutil.rmtree(folder, ignore_errors=True)
    print(f"service CPU per move, {rounds} run(s) of {seconds:g} s each, in turns:")
    for name, kept in ((old_name, old), (new_name, new)):
        each = ", ".join(f"{f.service_ms:.1f}" for f in kept)
        rates = ", ".join(f"{f.rate:.1f}" for f in kept)
        print(
            f"  {name}: median {statistics.median(f.service_ms for f in kept):.1f} ms "
            f"({each}); moves/s {rates}"
        )
    ratio = statistics.median(f.service_ms for f in new) / statistics.median(
        f.service_ms for f in old
    )
    print(f"this checkout's service CPU per move / {revision}'s: {ratio:.2f}")
    return old, new


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
    """Wait for the SMTP process to end, reading what it still passes on meanwhile, in a
    thread left behind if it blocks: the process may end halfway through writing an item
    into the queue's pipe, and a read of that item then waits forever."""

    def drain() -> None:
        with suppress(EOFError, OSError, ValueError):
            while True:
                with suppress(queue.Empty):
                    accepted.get(timeout=0.05)

    threading.Thread(target=drain, name="drain-smtp", daemon=True).start()
    process.join(seconds)
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
    *,
    started: Callable[[], object] = lambda: None,
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
    first: float | None = None  # the service's first mail: the time is counted from there
    while (first is None and time.monotonic() - start < FIRST_MAIL_SECONDS) or (
        first is not None and time.monotonic() - first < seconds and len(finished) < games
    ):
        try:
            mail_from, content, at = accepted.get(timeout=0.05)
        except queue.Empty:
            continue
        if mail_from != SERVICE:
            continue
        if first is None:
            started()
            first = time.monotonic()
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
    if first is None:
        raise SystemExit(f"bench-mail: no mail from the service in {FIRST_MAIL_SECONDS} s")
    return delays, time.monotonic() - first, len(finished)


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
    parser.add_argument(
        "--against",
        metavar="REV",
        help="also run the service of commit REV, in turns with this checkout's",
    )
    parser.add_argument(
        "--rounds", type=int, default=3, help="with --against: runs of each side (default 3)"
    )
    parser.add_argument("--code", type=Path, default=ROOT, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.games * args.players > 40:
        parser.error("at most 40 players in all (the test server has bench1 to bench40)")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    poll = IDLE_POLL if args.idle else args.poll
    if args.against:
        against(args.against, args.rounds, args.games, args.players, args.seconds, poll, args.idle)
        return
    run(args.games, args.players, args.seconds, poll, args.idle, code=args.code)


if __name__ == "__main__":
    main()
