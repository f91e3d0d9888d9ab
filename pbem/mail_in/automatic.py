"""Recognising mail that must never be answered: bounces, auto-replies, lists, ourselves."""

from __future__ import annotations

from email.message import Message

from pbem.core.headers import header_text, header_texts

_DAEMONS = ("mailer-daemon", "postmaster", "noreply", "no-reply", "do-not-reply", "donotreply")


def automatic_reason(message: Message, service_address: str, sender: str) -> str | None:
    """Why `message` (from `sender`, lower case) is automatic mail that must not be
    answered, or None."""
    auto = header_text(message, "Auto-Submitted").strip().lower()
    if auto and auto != "no":
        return f"Auto-Submitted: {auto}"
    precedence = header_text(message, "Precedence").strip().lower()
    if precedence in ("bulk", "junk", "list", "auto_reply"):
        return f"Precedence: {precedence}"
    for header in ("X-Autoreply", "X-Autorespond", "List-Id"):
        if header_texts(message, header):
            return f"{header} header"
    if header_texts(message, "X-Tongiaki-Kind"):  # every mail of a Tongiaki service has it
        return "sent by a Tongiaki service (X-Tongiaki-Kind)"
    if header_text(message, "X-Auto-Response-Suppress").lower() in ("all", "oof", "autoreply"):
        return "X-Auto-Response-Suppress"
    if header_text(message, "Return-Path").strip() == "<>":
        return "empty Return-Path (a bounce)"
    content_type = message.get_content_type()
    if content_type == "multipart/report":
        return "a delivery or read report"
    if _calendar_reply(message):
        return "a calendar's answer to the deadline event (method=REPLY)"
    local = sender.partition("@")[0]
    if not sender:
        return "no sender"
    if any(local.startswith(d) for d in _DAEMONS):
        return f"sent by {sender}"
    service_local, _, service_domain = service_address.lower().partition("@")
    local_base = local.partition("+")[0]
    if local_base == service_local and sender.endswith("@" + service_domain):
        return "sent by this service"
    return None


def _calendar_reply(message: Message) -> bool:
    """Whether a mail is a calendar's Accept/Decline answer: a text/calendar part with
    method=REPLY, at the top or among the first parts (walked without recursion)."""
    parts, seen = [message], 0
    while parts and seen < 20:
        part = parts.pop()
        seen += 1
        if part.get_content_type() == "text/calendar":
            if str(part.get_param("method", "")).upper() == "REPLY":
                return True
        elif part.is_multipart():
            payload = part.get_payload()
            if isinstance(payload, list):
                parts.extend(p for p in payload[:10] if isinstance(p, Message))
    return False
