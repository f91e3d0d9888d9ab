"""Benchmark of the mail loop: many games at once through real IMAP and SMTP servers.

Starts Dovecot and the test SMTP server on loopback, runs `pbem serve` on them in a
process of its own, and lets scripted players answer every prompt at once with a random
option. Players read their prompts as the SMTP server accepts them (the service is what is
measured, not their mail clients) and reply over SMTP; the service reads over IMAP.

Prints the inbound moves the service processed per second, and the delay from a reply's
delivery to the mailbox until the SMTP server accepted the service's next prompt for that
game (median and 95th percentile). The last line is `moves/s: N`.

    python -m tests.bench_mail [--games 10] [--players 3] [--seconds 40] [--poll 0.2]
"""

from __future__ import annotations

import argparse
import email
import os
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

from sqlmodel import select

from pbem.config import settings_toml
from pbem.db import open_database, session
from pbem.models import Inbound
from pbem.service import SeatSpec, Service
from tests.localmail import START, reply_to, text_of
from tests.mailservers import Dovecot, Mail, SmtpServer, address, parse
from tests.test_mail_loop import mail_settings

SERVICE = "tongiaki@example.test"


def run(games: int, players: int, seconds: float, poll: float) -> float:
    rng = random.Random(1)
    with Dovecot() as dovecot, tempfile.TemporaryDirectory() as tmp:
        smtp = SmtpServer(dovecot).start()
        settings = replace(
            mail_settings(Mail(dovecot, smtp), Path(tmp) / "data"),
            poll_seconds=poll,
            outbox_seconds=poll,
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
        try:
            delays, elapsed, finished = _drive(smtp, games, seconds, rng)
        finally:
            serve.send_signal(signal.SIGTERM)
            serve.wait(30)
            smtp.stop()
        with session(service.engine) as db:
            moves = sum(1 for i in db.exec(select(Inbound)) if i.outcome == "applied")
    rate = moves / elapsed
    print(f"{games} games of {players} players, poll every {poll} s, {elapsed:.1f} s")
    print(f"inbound moves processed: {moves}, games finished: {finished}")
    if delays:
        p95 = statistics.quantiles(delays, n=20)[-1] if len(delays) >= 20 else max(delays)
        print(
            f"delay from delivery to the next prompt: median {statistics.median(delays):.3f} s, "
            f"p95 {p95:.3f} s"
        )
    print(f"moves/s: {rate:.1f}")
    return rate


def _drive(
    smtp: SmtpServer, games: int, seconds: float, rng: random.Random
) -> tuple[list[float], float, int]:
    """Answer every prompt as soon as the SMTP server accepted it, until time is up."""
    pending: dict[str, float] = {}
    delays: list[float] = []
    finished: set[str] = set()
    seen = 0
    # the players share one kept SMTP connection: this process also runs the SMTP server,
    # and a TLS handshake per reply would slow the server down, not the service
    client = smtplib.SMTP(smtp.host, smtp.port, timeout=10)
    client.login("bench1", smtp.dovecot.password)
    start = time.monotonic()
    while time.monotonic() - start < seconds and len(finished) < games:
        accepted = smtp.accepted[seen:]
        seen += len(accepted)
        for mail in accepted:
            if mail.mail_from != SERVICE:
                continue
            message = email.message_from_bytes(mail.content)  # compat32: quick, headers only
            game = str(message["X-Tongiaki-Game"])
            subject = str(message["Subject"])
            if "Game over" in subject:
                finished.add(game)
            if "Your move" not in subject:
                continue
            if game in pending:
                delays.append(mail.at - pending.pop(game))
            prompt = parse(mail.content)
            options = len(re.findall(r"^  \d+\) ", text_of(prompt), re.MULTILINE))
            player = parseaddr(str(message["To"]))[1]
            target = parseaddr(str(message["Reply-To"]))[1]
            raw = reply_to(prompt, str(rng.randint(1, options)))
            client.sendmail(player, [target], re.sub(rb"\r?\n", b"\r\n", raw))
            pending[game] = time.monotonic()
        if not accepted:
            time.sleep(0.005)
    client.quit()
    return delays, time.monotonic() - start, len(finished)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--players", type=int, default=3, choices=range(2, 7))
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--poll", type=float, default=0.2, help="the service's poll interval")
    args = parser.parse_args(argv)
    if args.games * args.players > 40:
        parser.error("at most 40 players in all (the test server has bench1 to bench40)")
    run(args.games, args.players, args.seconds, args.poll)


if __name__ == "__main__":
    main()
