"""Benchmark of reply text extraction on hostile replies: the seconds per MiB that
`reply_text` takes over each shape of `tests.support.hostile.REPLY_BODIES`, at 100 KiB and
at 1 MiB (the fastest of `--repeat` runs; building and parsing the mail are not counted).
Linear work shows as about the same figure at both sizes.

    python -m tests.bench_replytext [--repeat 3] [SHAPE ...]
"""

from __future__ import annotations

import argparse
import sys
import time

from pbem.mail_in.replytext import reply_text
from tests.support.hostile import OWN_ADDRESS, REPLY_BODIES, REPLY_COMMAND

KIB = 1024
MIB = 1024 * KIB
SIZES = (100 * KIB, MIB)


def seconds(shape: str, size: int, repeat: int) -> float:
    """The fastest of `repeat` runs over a reply of `shape` and `size`; checks the result."""
    message = REPLY_BODIES[shape](size)
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        text = reply_text(message, own_addresses=[OWN_ADDRESS], own_names=["Tongiaki"])
        best = min(best, time.perf_counter() - start)
        if text != REPLY_COMMAND:
            raise AssertionError(f"{shape} at {size} bytes: {text[:80]!r}")
    return best


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shapes", nargs="*", metavar="SHAPE", help="default: all")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    unknown = set(args.shapes) - set(REPLY_BODIES)
    if unknown:
        parser.error(f"unknown shapes: {', '.join(sorted(unknown))}")
    print(f"{'shape':30} {'s/MiB at 100 KiB':>17} {'s/MiB at 1 MiB':>15}")
    for shape in args.shapes or REPLY_BODIES:
        per_mib = [seconds(shape, size, args.repeat) * MIB / size for size in SIZES]
        print(f"{shape:30} {per_mib[0]:17.3f} {per_mib[1]:15.3f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
