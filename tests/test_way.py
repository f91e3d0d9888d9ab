"""The way a reply takes (CONTRIBUTING.md, "The one flow"): from the mailbox to its answer in
the outbox, the modules the host and the flow hand it to, traced while a real reply is
handled. The bounds are today's: a change that makes the way longer fails here."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from pbem.flow.deadlines import tick
from pbem.flow.gm import GameMaster
from pbem.flow.service import SeatSpec
from pbem.host.runner import take
from pbem.store import Outbox, session
from tests.support.localmail import START, later, local_service, reply_to, take_mail
from tests.support.way import Way, traced

MOST_MODULES = 12  # the bounds
MOST_COMEBACKS = 5


def _way_of_a_move(tmp_path: Path, *, guided: bool) -> Way:
    service = local_service(tmp_path)
    ann, bob = SeatSpec("Ann", "ann@example.test"), SeatSpec("Bob", "bob@example.test")
    service.new_game([ann, bob], now=START, seed=3)
    prompt = [m for m in take_mail(service) if "ann@" in str(m["To"])][-1]
    with traced(guided=guided) as way:
        assert take(service, reply_to(prompt, "1"), later(5)) == "applied"
    with session(service.engine) as db:
        assert len(db.exec(Outbox.__table__.select()).all()) >= 2  # the answer and the news
    return way


def test_a_reply_passes_few_modules_and_seldom_comes_back(tmp_path: Path) -> None:
    way = _way_of_a_move(tmp_path, guided=True)
    print("the way of a move:", " -> ".join(way.modules))
    print(f"{way.hops} hops, {len(way.passed)} modules, {way.comebacks} comebacks")
    assert way.modules[0] == "pbem.flow.replies" and way.modules[-1] == "pbem.host.runner"
    # the one flow: let in (the door, who wrote), the lines run, everyone told
    assert {"pbem.mail_in.entry", "pbem.commands.rounds", "pbem.mail_out.tell"} <= way.passed
    assert len(way.passed) <= MOST_MODULES
    assert way.comebacks <= MOST_COMEBACKS
    layers = way.coarse(2)
    # the layers it passes, each entered from the flow: never one layer calling another
    assert all(name == "pbem.flow" for name in layers.modules[:-1:2])


def test_the_trace_sees_every_call_across_modules(tmp_path: Path) -> None:
    """Unguided, the same reply crosses many more module borders (the lowest layer, the
    engine, the modules' own helpers): the guided way leaves those out on purpose."""
    whole = _way_of_a_move(tmp_path, guided=False)
    assert whole.hops > 100 and "pbem.core.addressing" in whole.passed
    assert "engine" in whole.passed


def test_the_clock_and_the_host_go_the_same_way(tmp_path: Path) -> None:
    """The automatic move at a deadline and the host's `pbem gm` run their lines where a
    reply's run (`pbem.commands.rounds`) and are told by the same step (`pbem.mail_out.tell`)."""
    service = local_service(tmp_path)
    ann, bob = SeatSpec("Ann", "ann@example.test"), SeatSpec("Bob", "bob@example.test")
    service.new_game([ann, bob], now=START, seed=3, deadline_seconds=3600)
    take_mail(service)
    with traced(guided=True) as clock:
        assert tick(service, START + timedelta(hours=1)).automatic == 1
    mails = take_mail(service)
    assert any("No answer from Ann" in str(m.get_payload(0)) for m in mails), mails
    with traced(guided=True) as host:
        results, _ = GameMaster(service).run_host(1, ["extend 1d"], later(90))
    assert [r.outcome for r in results] == ["applied"]
    for way in (clock, host):
        assert {"pbem.commands.rounds", "pbem.mail_out.tell"} <= way.passed, way.modules
