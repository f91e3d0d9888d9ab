"""The one tell step: after a writer's lines ran, who gets which mail, under one policy.

A move is news for everyone; news of lines that moved nothing is charged to its writer
(`caused_per_day`); an answer to the writer alone is within their answer budget; table talk
goes to whoever reads it (the game masters' copy too, even when the budget is spent)."""

from __future__ import annotations

from collections.abc import Sequence

import engine
from pbem.commands.registry import Commands, Round
from pbem.commands.writer import Role, Writer
from pbem.core import AnswerKind, LineOutcome, Settings, shown
from pbem.mail_out.budget import may_answer, spent_until
from pbem.mail_out.mailing import Mailer
from pbem.views import letters, news, view
from pbem.views.view import LineResult

NOT_ANSWERED = "; not answered (answer budget spent)"


def tell(mail: Mailer, settings: Settings, writer: Writer, round: Round) -> str:
    """Queue the mails `round` causes; a note for the log ("" or why nothing was answered)."""
    if writer.too_old:  # refused whole: answered within the budget, nothing else
        _refused_whole(mail, settings, writer, round)
        return ""
    if writer.role is Role.PLAYER:
        return _tell_player(mail, settings, writer, round)
    if writer.role is Role.OBSERVER:
        return _tell_observer(mail, settings, writer, round)
    if writer.role is Role.CLOCK:
        return _tell_clock(mail, settings, round)
    return _tell_game_master(mail, settings, writer, round)


def _refused_whole(mail: Mailer, settings: Settings, writer: Writer, round: Round) -> None:
    """A reply address that no longer acts: every line was refused with why; the writer
    hears it within their budget of answers to errors (a player in their round's answer,
    a game master in a short mail of their own), nobody else hears anything."""
    table = round.table
    if not may_answer(
        table.db, writer.actor, AnswerKind.ERROR, table.now, settings.answers_per_day
    ):
        return
    if writer.seat is not None:
        mail.queue_round(table, [], sender=writer.seat, results=round.results)
    elif writer.role is Role.GM:
        mail.queue_gm(
            table,
            subject=engine.Message("Not applied: an old mail"),
            notice=writer.too_old,
            to=[writer.actor],
        )


def answer_kind(writer: Writer, round: Round, settings: Settings) -> tuple[AnswerKind, int]:
    """The budget an answer to the writer alone is counted in, and its size a day: a person
    trying the commands gets more answers than text that is no command."""
    kind = AnswerKind.ERROR if round.failed else AnswerKind.ANSWER
    if writer.role is Role.PLAYER and real_commands(round.results, writer.commands):
        return AnswerKind.COMMAND, settings.command_answers_per_day
    return kind, settings.answers_per_day


def _may_answer(writer: Writer, round: Round, settings: Settings) -> tuple[bool, str]:
    """The one budget check: whether an answer to the writer alone may go, and the word it
    carries when it is the last one for a while."""
    kind, per_day = answer_kind(writer, round, settings)
    table = round.table
    if not may_answer(table.db, writer.actor, kind, table.now, per_day):
        return False, ""
    return True, last_answer(round, writer.actor, per_day, kind)


def _tell_player(mail: Mailer, settings: Settings, writer: Writer, round: Round) -> str:
    table, seat = round.table, writer.seat
    assert seat is not None and seat.address is not None
    moved = round.moves > 0
    note = ""
    if not moved and not round.announced:  # an answer to the sender alone: within the budget
        allowed, note = _may_answer(writer, round, settings)
        if not allowed:
            # what was said still reaches whoever reads it at once, the game masters too
            mail.deliver_talk(table, round.talk)
            return NOT_ANSWERED
    if round.farewell:  # the game masters hear who left
        mail.queue_gm(
            table,
            subject=engine.Message(
                "{name} ({colour}) resigned", name=seat.name, colour=news.colour(seat.colour)
            ),
            notice=engine.Message(
                "{name} ({colour}) resigned from game {game}.",
                name=seat.name,
                colour=news.colour(seat.colour),
                game=table.game.id,
            ),
            happened=round.announced,
        )
    mail.queue_round(
        table,
        round.events,
        sender=seat,
        answers=round.answers,
        results=round.results,
        show_board=round.show_board,
        announced=round.announced,
        note=note,
        # news of a command that moved nothing is charged to its sender: bounded per reader
        cause=seat if not moved and not round.events else None,
    )
    mail.deliver_talk(table, round.talk)
    return ""


def _tell_observer(mail: Mailer, settings: Settings, writer: Writer, round: Round) -> str:
    table, watcher = round.table, writer.observer
    assert watcher is not None
    if round.farewell:  # stopped: one short answer (none to a machine), and nothing more
        if not writer.automatic:
            mail.queue_stopped(table, watcher, invited=writer.invited)
        if round.announced:
            mail.queue_round(table, [], announced=round.announced)
        return ""
    if round.watchers:  # accepted: the first mail of the game, and the players told
        mail.welcome_watchers(table, round.watchers)
        mail.queue_round(table, [], announced=round.announced, welcomed=round.watchers)
        return ""
    if writer.invited:
        return "; not answered (an invitation not accepted)"
    allowed, _ = _may_answer(writer, round, settings)
    if allowed:
        at, picture = mail.moment(table)
        answer = letters.watch(
            at,
            watcher.name,
            results=round.results,
            answers=round.answers,
            subject=engine.Message("Not applied: see why")
            if round.failed
            else engine.Message("Your answer"),
        )
        mail.queue_watch(table, watcher, answer, picture)
    mail.deliver_talk(table, round.talk)
    return ""


def _tell_game_master(mail: Mailer, settings: Settings, writer: Writer, round: Round) -> str:
    """Mail the players what the game master did, the new players their welcome, and the
    game master their results."""
    table = round.table
    for farewell in round.farewells:  # addressed as the seat was, before the commands
        mail.post(table, farewell, None)
    if round.welcome:
        at, _ = mail.moment(table)
        for seat in round.welcome:
            mail.queue(table, seat, letters.welcome(at, seat.seat), None)
    mail.welcome_watchers(table, round.watchers)
    mail.invite(table, round.invited)
    if round.announced or round.events:
        # a change that is no move is a short line; a decision taken back, resumed, moved
        # on or handed to a new player is asked for again
        moved = table.game.decision != round.opened or round.asked_again
        mail.queue_round(
            table,
            round.events,
            announced=round.announced,
            subject=engine.Message("News from the game master"),
            welcomed=round.watchers,
            quiet=not round.events and not moved,
        )
    if writer.role is Role.GM:
        if not round.applied and not _may_answer(writer, round, settings)[0]:
            return NOT_ANSWERED  # an answer alone: within the budget
        verbs = ", ".join(dict.fromkeys(r.line.split()[0].lower()[:20] for r in round.results))
        verbs = shown(verbs, 60) or "-"
        mail.queue_gm(
            table,
            subject=engine.Message("Not applied: {commands}", commands=verbs)
            if round.failed
            else engine.Message("Done: {commands}", commands=verbs),
            results=round.results,
            answers=round.answers,
            show_board=round.show_board,
            to=[writer.actor],
        )
    elif round.announced:  # the host's commands: to every game master of the game
        mail.queue_gm(
            table,
            subject=engine.Message("The host acted as game master"),
            notice=engine.Message("The host gave game master commands on the command line."),
            happened=round.announced,
        )
    return ""


def _tell_clock(mail: Mailer, settings: Settings, round: Round) -> str:
    """The automatic move is news for everyone; a seat it marked absent is told so in the
    subject of its own mail, and the game masters hear of it."""
    table = round.table
    subject = engine.Message("You are marked absent in game {game}", game=table.game.id)
    absent = {seat.seat: subject for seat in round.absent}
    mail.queue_round(table, round.events, announced=round.announced, told=absent or None)
    for seat in round.absent:
        who = engine.Message("{name} ({colour})", name=seat.name, colour=news.colour(seat.colour))
        mail.queue_gm(
            table,
            subject=engine.Message("{who} is absent", who=who),
            notice=engine.counted(
                "{who} missed {count} deadline in a row and is now marked absent: the {bot} "
                "bot plays the seat until {name} writes again. You may hand the seat to someone "
                "else (replace {seat} ADDRESS [NAME]) or to a bot for good (kick {seat}).",
                "{who} missed {count} deadlines in a row and is now marked absent: the {bot} "
                "bot plays the seat until {name} writes again. You may hand the seat to someone "
                "else (replace {seat} ADDRESS [NAME]) or to a bot for good (kick {seat}).",
                settings.absence_after,
                who=who,
                bot=settings.absent_bot,
                name=seat.name,
                seat=str(seat.seat + 1),
            ),
            happened=round.announced,
        )
    return ""


def real_commands(results: Sequence[LineResult], commands: Commands) -> bool:
    """Whether every line of a mail that was read is a real command: carried out, or
    refused but written as a command (its own word in any language, a move's word, an
    option's number alone). Their answers count against the larger budget; text that is
    no command, a misspelt word, a number with other words ('1 2 (auto-reply)'), a command
    that looks written with more ('status (3)') are what autoresponders write."""
    read = [r for r in results if r.outcome != LineOutcome.IGNORED]
    done = (LineOutcome.APPLIED, LineOutcome.ANSWERED)
    return bool(read) and all(
        r.outcome in done or _written_as_command(r.line, commands) for r in read
    )


def _written_as_command(line: str, commands: Commands) -> bool:
    whole = line.lower().strip(" .!")
    found = commands.named(whole)
    if found is not None and found.looks:
        return True
    verb = whole.partition(" ")[0]
    found = commands.named(verb)
    return (found is not None and not found.looks) or engine.is_move_word(verb) or whole.isdecimal()


def last_answer(round: Round, address: str, per_day: int, kind: AnswerKind) -> str:
    """A word in the answer that spends the sender's answer budget: until when a reply that
    moves nothing goes unanswered (else a player whose refused move meets silence would
    wait for the deadline)."""
    table = round.table
    until = spent_until(table.db, address, table.now, per_day, kind)
    if until is None:
        return ""
    if kind == AnswerKind.COMMAND:
        return engine.Message(
            "This is the last answer to your commands that move nothing (help, status, tz "
            "...) that you get before {time}: until then such replies get no answer (a "
            "setting such as tz or lang is still made), so that no autoresponder can make the "
            "game mail without end. A move you make is still applied, and everyone is mailed "
            "the news.",
            time=view.when(until),
        )
    return engine.Message(
        "This is the last answer to a reply that moves nothing (a refused line, help, status "
        "...) that you get before {time}: until then such replies get no answer, so that no "
        "autoresponder can make the game mail without end. A move you make is still applied, "
        "and everyone is mailed the news.",
        time=view.when(until),
    )
