"""Whether a mail's From can be believed: one plain address whose display name names no
other, and, with `authenticated_from = "dmarc"`, the receiving server's own
Authentication-Results (RFC 8601) vouching for its domain.

Pure: reads the message, never raises. The PyPI package `authres` is not used: it raises on
the trailing ";" OpenDKIM writes and recurses on nested comments.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from dataclasses import dataclass
from email.header import decode_header, make_header
from email.message import Message
from email.utils import getaddresses

from pbem.core.config import AuthenticatedFrom
from pbem.core.headers import header_texts

log = logging.getLogger(__name__)

FROM_LIMIT = 2_000  # Python's address parser takes quadratic time: longer From is refused
_PLAIN = re.compile(r"[^\s@<>()\[\]\",;:\\]+@[^\s@<>()\[\]\",;:\\]+\Z")
_ADDRESS_LIKE = re.compile(r"\w\s*@\s*\w")  # after NFKC: full-width and small @ are @ then
_AUTHSERV_GUESS = re.compile(r'\s*"?([^\s;"()]+)')

# A token of a structured header: ("word" | "quoted" | "=" | ";", text)
_Token = tuple[str, str]


@dataclass(frozen=True)
class _Result:
    method: str  # "dkim", "dmarc", ...: lowercase, without a version
    result: str  # "pass", "fail", ...: lowercase
    properties: dict[str, str]  # "header.d" -> "example.com"


def sender_refusal(
    message: Message, *, authenticated_from: AuthenticatedFrom, authserv_id: str
) -> str | None:
    """None when the From of `message` can be believed, else a short reason for the log."""
    try:
        address, refusal = _from_address(message)
        if address is None:
            return refusal
        if authenticated_from == AuthenticatedFrom.OFF:
            return None
        return _authentication_refusal(message, address.rpartition("@")[2], authserv_id)
    except Exception:  # a bug here must refuse the mail, not stop the mailbox
        log.exception("the sender of a mail could not be checked")
        return "From could not be checked"


def _raw_values(message: Message, name: str) -> list[str]:
    """Every value of the header `name` as it was sent, unfolded."""
    return [
        re.sub(r"[\r\n]", "", str(value))
        for key, value in message.raw_items()
        if key.lower() == name.lower()
    ]


# -- From ------------------------------------------------------------------------------------


def _from_address(message: Message) -> tuple[str | None, str]:
    """The one address of From, or None and why not."""
    raw = _raw_values(message, "From")
    if len(raw) != 1:
        return None, f"mail holds {len(raw)} From headers"
    address, refusal = _one_address(raw[0])
    if address is None:
        return None, refusal
    # as the service reads it (the parser of the header registry, which is slow on long
    # values, only now): the same address, or the two parsers disagree about the sender
    decoded = header_texts(message, "From")
    again, refusal = _one_address(decoded[0] if decoded else "")
    if again is None:
        return None, refusal
    if again.lower() != address.lower():
        return None, "From reads as two different addresses"
    return address.lower(), ""


def _one_address(text: str) -> tuple[str | None, str]:
    if len(text) > FROM_LIMIT:
        return None, f"From is too long ({len(text)} characters)"
    tokens = _tokens(text, ";")
    if tokens is None:
        return None, "From has an open quote or comment"
    if any(kind == ";" or (kind == "word" and ":" in word) for kind, word in tokens):
        return None, "From holds a group"
    try:
        pairs = [(name, address) for name, address in getaddresses([text]) if name or address]
    except Exception:  # the parser of old Pythons has raised on odd input
        return None, "From cannot be parsed"
    if len(pairs) != 1:
        return None, f"From holds {len(pairs)} addresses"
    name, address = pairs[0]
    if not _PLAIN.match(address):
        return None, "From holds no address"
    if _names_another_address(name, address):
        return None, "display name holds another address"
    return address, ""


def _names_another_address(name: str, address: str) -> bool:
    text = unicodedata.normalize("NFKC", _decoded_words(name))
    if not _ADDRESS_LIKE.search(text):
        return False
    return text.strip(" <>\"'").lower() != address.lower()  # many mailers name you by address


def _decoded_words(text: str) -> str:
    """`text` with RFC 2047 encoded words decoded, where they can be."""
    if "=?" not in text:
        return text
    try:
        return str(make_header(decode_header(text)))
    except Exception:  # undecodable words stay as they were
        return text


# -- Authentication-Results -----------------------------------------------------------------


def _authentication_refusal(message: Message, domain: str, authserv_id: str) -> str | None:
    # the receiving servers' names, exactly: a server removes headers that carry its own
    # name (RFC 8601 §5), not those of a made-up name below it
    ours = {name.lower().rstrip(".") for name in authserv_id.replace(",", " ").split()}
    results: list[_Result] = []
    for value in _raw_values(message, "Authentication-Results"):  # encoded words stay words
        host, found = _parse(value)
        if host is None or host not in ours:
            continue  # another host's word: anyone can write it
        if found is None:
            return f"unreadable Authentication-Results from {host}"
        results += found
    verdicts = sorted({r.result for r in results if r.method == "dmarc"})
    if "fail" in verdicts:
        return f"dmarc=fail from {authserv_id}"
    if "pass" in verdicts and len(verdicts) > 1:
        return f"dmarc={' and dmarc='.join(verdicts)} from {authserv_id}"
    signatures = {r.result for r in results if r.method == "dkim"}
    if "pass" in signatures and len(signatures) > 1 and "pass" not in verdicts:
        # the server's own verdict on the signatures beside a pass: one was written by
        # someone else (a server that judged a signature writes its result)
        return f"dkim={' and dkim='.join(sorted(signatures))} from {authserv_id}"
    for result in results:
        if result.result != "pass":
            continue
        if result.method == "dmarc" and _same_domain(result.properties, domain):
            return None
        if result.method == "dkim" and _aligned(_signing_domain(result.properties), domain):
            return None
    return f"no dmarc=pass or aligned dkim=pass from {authserv_id}"


def _same_domain(properties: dict[str, str], domain: str) -> bool:
    said = properties.get("header.from")
    return said is None or said.lower().rstrip(".") == domain.lower().rstrip(".")


def _signing_domain(properties: dict[str, str]) -> str:
    return properties.get("header.d") or properties.get("header.i", "").rpartition("@")[2]


def _aligned(signer: str, domain: str) -> bool:
    """Relaxed alignment without the public suffix list: the same domain, or one a
    subdomain of the other where the shorter has a dot (never a bare top-level domain)."""
    signer, domain = signer.lower().strip("."), domain.lower().strip(".")
    if not signer or not domain:
        return False
    if signer == domain:
        return True
    short, long = sorted((signer, domain), key=len)
    return "." in short and long.endswith("." + short)


def _parse(value: str) -> tuple[str | None, list[_Result] | None]:
    """The authserv-id of an Authentication-Results value (None if there is none) and its
    results (None if they cannot be read)."""
    tokens = _tokens(value, "=;")
    if tokens is None:
        guess = _AUTHSERV_GUESS.match(value)
        return (guess.group(1).lower().rstrip(".") if guess else None), None
    if not tokens or tokens[0][0] not in ("word", "quoted"):
        return None, None
    host = tokens[0][1].lower().rstrip(".")
    segments: list[list[_Token]] = [[]]
    for token in tokens:
        if token[0] == ";":
            segments.append([])
        else:
            segments[-1].append(token)
    if len(segments[0]) > 2:  # authserv-id [version]
        return host, None
    results: list[_Result] = []
    for segment in segments[1:]:
        if not segment or segment == [("word", "none")]:
            continue
        result = _result(segment)
        if result is None:
            return host, None
        results.append(result)
    return host, results


def _result(segment: list[_Token]) -> _Result | None:
    """One `method=result prop=value ...`; None when it is not that."""
    if len(segment) % 3 or any(
        key[0] != "word" or equals[0] != "=" or value[0] not in ("word", "quoted")
        for key, equals, value in zip(segment[::3], segment[1::3], segment[2::3], strict=True)
    ):
        return None
    properties: dict[str, str] = {}
    for key, _, value in zip(segment[3::3], segment[4::3], segment[5::3], strict=True):
        if key[1].lower() in properties:
            return None
        properties[key[1].lower()] = value[1]
    method = segment[0][1].partition("/")[0].lower()
    return _Result(method, segment[2][1].lower(), properties)


def _tokens(text: str, specials: str) -> list[_Token] | None:
    """Words, quoted strings (unescaped) and the `specials` of a structured header value,
    comments dropped; None when a quoted string or a comment is left open or unopened."""
    tokens: list[_Token] = []
    word: list[str] = []
    quoted: list[str] | None = None
    depth = 0  # of nested comments
    escaped = False

    def end_word() -> None:
        if word:
            tokens.append(("word", "".join(word)))
            word.clear()

    for char in text:
        if escaped:
            if quoted is not None:
                quoted.append(char)
            escaped = False
        elif char == "\\" and (quoted is not None or depth):
            escaped = True
        elif quoted is not None:
            if char == '"':
                tokens.append(("quoted", "".join(quoted)))
                quoted = None
            else:
                quoted.append(char)
        elif char == "(":
            end_word()
            depth += 1
        elif char == ")":
            if not depth:
                return None
            depth -= 1
        elif depth:
            continue
        elif char == '"':
            end_word()
            quoted = []
        elif char in specials:
            end_word()
            tokens.append((char, char))
        elif char.isspace():
            end_word()
        else:
            word.append(char)
    if depth or quoted is not None or escaped:
        return None
    end_word()
    return tokens


__all__ = ["FROM_LIMIT", "sender_refusal"]
