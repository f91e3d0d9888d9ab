"""Benchmark of how much mail a game writes: a 4-person game on the default settings, every
prompt answered with option 1 through `pbem.replies.handle` (no mail servers: the mails are
read from the outbox). Prints KB per reply, and per kind of mail (count, KB each, KB in
all). The last line is `KB per reply: N`.

    python -m tests.bench_mail_size [--replies 24] [--players 4]
"""

from __future__ import annotations

import argparse
import tempfile
from collections import defaultdict
from datetime import timedelta
from pathlib import Path

from pbem.flow.replies import handle
from pbem.flow.service import SeatSpec
from tests.support.localmail import START, local_service, parse, reply_to, take_raw

NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve", "Flo")
COLOURS = ("red", "blue", "green", "yellow", "purple", "orange")


def run(replies: int, players: int) -> tuple[float, dict[str, list[int]]]:
    """KB per reply, and the sizes of the mails of each kind after the first prompts."""
    sizes: dict[str, list[int]] = defaultdict(list)
    with tempfile.TemporaryDirectory() as tmp:
        service = local_service(Path(tmp))
        specs = [
            SeatSpec(NAMES[n], f"{NAMES[n].lower()}@example.test", COLOURS[n])
            for n in range(players)
        ]
        service.new_game(specs, seed=1, now=START)
        waiting = [parse(raw) for raw in take_raw(service)]
        total, answered, now = 0, 0, START
        while answered < replies:
            prompts = [m for m in waiting if m["X-Tongiaki-Kind"] == "prompt"]
            if not prompts:
                break
            now += timedelta(minutes=5)
            handle(service, reply_to(prompts[-1], "1"), now)
            answered += 1
            raws = take_raw(service)
            waiting = [parse(raw) for raw in raws]
            for raw, mail in zip(raws, waiting, strict=True):
                sizes[str(mail["X-Tongiaki-Kind"])].append(len(raw))
                total += len(raw)
    return total / 1024 / max(answered, 1), sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--replies", type=int, default=24)
    parser.add_argument("--players", type=int, default=4)
    arguments = parser.parse_args()
    per_reply, sizes = run(arguments.replies, arguments.players)
    print(f"{arguments.players} players, {arguments.replies} replies answered with option 1")
    print(f"{'kind':<12} {'mails':>6} {'KB each':>8} {'KB in all':>10}")
    for kind, counted in sorted(sizes.items()):
        each = sum(counted) / len(counted) / 1024
        print(f"{kind:<12} {len(counted):>6} {each:>8.1f} {sum(counted) / 1024:>10.1f}")
    print(f"KB per reply: {per_reply:.1f}")


if __name__ == "__main__":
    main()
