"""IMAP IDLE's own latency: from the APPEND of a mail until the service's IDLE session reports
it (`pbem.host.transport.ImapIdle.wait` returns True), through a real Dovecot over STARTTLS, one
delivery at a time. What `bench-mail --idle` measures besides (handling the move, rendering
and sending the answers) is left out, so that a busy machine blurs it less.

Prints the median and the 95th percentile of the deliveries, how many the session missed
(none reported within 30 s), and the CPU the waiting thread used per delivery. Asserts nothing.

    python3 dev.py bench-idle [--deliveries 50] [--tls starttls|tls|none]
"""

from __future__ import annotations

import argparse
import imaplib
import queue
import statistics
import threading
import time

from pbem.core.config import ImapSettings, Tls
from pbem.host.transport import ImapIdle
from tests.support.mailservers import Dovecot

SETTLE = 0.2  # seconds between a report and the next delivery: IDLE is issued again meanwhile


def run(deliveries: int, tls: Tls = "starttls") -> list[float]:
    with Dovecot(("tongiaki",), spare_users=0) as dovecot:
        settings = ImapSettings(
            host=dovecot.host,
            port=dovecot.tls_port if tls == "tls" else dovecot.port,
            tls=tls,
            user="tongiaki",
            password=dovecot.password,
            ca_file=str(dovecot.ca_file),
        )
        idle = ImapIdle(settings)
        reports: queue.Queue[float] = queue.Queue()
        stop = threading.Event()
        cpu: list[float] = []

        def wait() -> None:
            began = time.thread_time()
            while not stop.is_set():
                if idle.wait(600):
                    reports.put(time.monotonic())
            cpu.append(time.thread_time() - began)

        waiter = threading.Thread(target=wait)
        waiter.start()
        mailbox = imaplib.IMAP4(dovecot.host, dovecot.port, timeout=10)  # a delivery agent
        mailbox.login("tongiaki", dovecot.password)
        delays: list[float] = []
        missed = 0
        try:
            time.sleep(SETTLE)
            for n in range(deliveries):
                raw = f"Subject: delivery {n}\r\n\r\n{n}\r\n".encode()
                sent = time.monotonic()
                mailbox.append('"INBOX"', "", imaplib.Time2Internaldate(time.time()), raw)
                try:
                    delays.append(reports.get(timeout=30) - sent)
                except queue.Empty:
                    missed += 1
                time.sleep(SETTLE)
        finally:
            mailbox.logout()
            stop.set()
            idle.interrupt()
            waiter.join(30)
            idle.close()
    if delays:
        p95 = statistics.quantiles(delays, n=20)[-1] if len(delays) >= 20 else max(delays)
        print(
            f"IDLE over {tls}: from the APPEND of a mail to its report: median "
            f"{statistics.median(delays) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms "
            f"({len(delays)} deliveries, {missed} missed); the waiting thread's CPU "
            f"{sum(cpu) / deliveries * 1000:.2f} ms a delivery"
        )
    return delays


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deliveries", type=int, default=50)
    parser.add_argument("--tls", choices=["starttls", "tls", "none"], default="starttls")
    args = parser.parse_args(argv)
    run(args.deliveries, args.tls)


if __name__ == "__main__":
    main()
