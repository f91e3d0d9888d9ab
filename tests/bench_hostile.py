"""How long the service takes over each of 5,000 hostile mails (`python3 dev.py bench-hostile`).

Two games are set up in a fresh local service; every mail goes through `take` (what a poll
does with each mail: parse, check, apply or refuse, or quarantine) one after the other, and
the time of each is measured. Prints the slowest mails with their shapes, the percentiles,
and the slowest mail of each shape. The target: the slowest under 100 ms on one core.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from pbem.flow.service import SeatSpec, Service
from pbem.host.runner import take
from pbem.host.transport import MaildirInbox
from tests.support.hostile import Target, hostile_mails
from tests.support.localmail import START, later, local_service, take_mail


def targets(service: Service) -> list[Target]:
    """The reply address of each player's newest mail in two fresh games."""
    service.new_game(
        [SeatSpec("Ann", "ann@example.test", "red"), SeatSpec("Bob", "bob@example.test", "blue")],
        seed=4,
        now=START,
    )
    service.new_game(
        [SeatSpec("Cy", "cy@example.test", "green"), SeatSpec("Ann", "ann@example.test")],
        seed=5,
        now=START,
    )
    newest = {str(m["To"]): m for m in take_mail(service)}
    return [
        Target(str(m["Reply-To"]).split("<")[-1].rstrip(">"), to, service.settings.from_address)
        for to, m in newest.items()
        if m["Reply-To"]
    ]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        service = local_service(Path(folder))
        found = targets(service)
        print(f"{args.count} hostile mails (seed {args.seed}) through one local service ...")
        timings: list[tuple[float, str, int, str]] = []
        by_shape: dict[str, list[float]] = defaultdict(list)
        started = time.perf_counter()
        for n, (shape, raw) in enumerate(hostile_mails(args.count, args.seed, found), 1):
            begin = time.perf_counter()
            outcome = take(service, raw, later(1 + n // 100))
            spent = time.perf_counter() - begin
            timings.append((spent, shape, len(raw), outcome))
            by_shape[shape].append(spent)
            if n % 500 == 0:
                print(f"  {n} mails, {time.perf_counter() - started:.1f} s", flush=True)
        take_mail(service)
    spent = sorted(t[0] for t in timings)
    print(
        f"median {1000 * statistics.median(spent):.1f} ms, p99 "
        f"{1000 * spent[int(0.99 * (len(spent) - 1))]:.1f} ms, slowest {1000 * spent[-1]:.1f} ms"
    )
    print("the ten slowest:")
    for seconds, shape, size, outcome in sorted(timings, reverse=True)[:10]:
        print(f"  {1000 * seconds:7.1f} ms  {size:>9} bytes  {outcome:<12} {shape}")
    print("the slowest of each shape:")
    for shape, times in sorted(by_shape.items(), key=lambda item: -max(item[1])):
        print(f"  {1000 * max(times):7.1f} ms  ({len(times):>4} mails)  {shape}")
    limit = 0.100
    print(f"slowest under {1000 * limit:.0f} ms: {'yes' if spent[-1] < limit else 'NO'}")
    idle_poll(10_000)
    return 0


def idle_poll(handled: int) -> None:
    """How long a poll of a local Maildir takes that holds `handled` mails, all handled."""
    with tempfile.TemporaryDirectory() as folder:
        inbox = MaildirInbox(Path(folder) / "inbox")
        for n in range(handled):
            (Path(folder) / "inbox" / "cur" / f"{n:06}.bench:2,S").write_bytes(b"Subject: x\n\nx\n")
        begin = time.perf_counter()
        for _ in range(10):
            assert list(inbox.new_messages()) == []
        each = (time.perf_counter() - begin) / 10
    print(f"a poll of a Maildir with {handled} handled mails and none new: {1000 * each:.1f} ms")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
