"""What a player wrote in a reply: the body without quotes, quote headers and signatures.

The work is linear in the size of the mail, whatever its shape. Quote headers are found left
to right, each line tested once. A line longer than `MAX_HEADER_LINE` is text, never (part
of) a quote header or a signature, so the patterns that search a line never get a long one;
the patterns that read a whole text do it in one pass that cannot backtrack far. HTML is read
by a tokenizer that stops at the first construct the document leaves open, as a browser does
at its end. A part's Content-* headers are read from their first `MAX_CONTENT_HEADER`
characters, without the policy's header parser. Every line is read: a reply may be written
below a quote of any length, so no count of lines or characters is a safe place to stop.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator, Sequence
from email.message import Message
from email.utils import parseaddr
from functools import lru_cache
from html import unescape
from typing import Any
from urllib.parse import unquote

Lines = list[str]

MAX_HEADER_LINE = 1000
"""Characters of a line that can be (part of) a quote header or a signature line. A mail
line holds at most 998 (RFC 5322) and attributions are far shorter; only decoding
(quoted-printable soft breaks, format=flowed, HTML) makes longer lines, and those are text."""

MAX_CONTENT_HEADER = 4096
"""Characters of a part's Content-Type, Content-Disposition and Content-Transfer-Encoding
read: the type and the parameters read here (charset, format, delsp) come first in them."""

_COLON = r"[:\uff1a]"
_VERBS = (
    r"wrote|writes|schrieb|a\s+écrit|schreef|escribió|escreveu|ha\s+scritto|scrisse|kirjoitti"
    r"|skrev|skrifaði|napisał|napisała|napsal|написал|написала|yazdı|írta|έγραψε"
)
_VERB = re.compile(_VERBS, re.I)
# matched against the text before its final colon, trailing spaces removed (see _ends_with_verb)
_END_VERB = re.compile(
    rf"(?:^|[\s>\]\"',])(?:{_VERBS})(?:\s*\(\w+\))?(?:\s.{{0,120}})?\Z"
    r"|(?:写道|寫道|書きました|のメール|のメッセージ|작성)\Z",
    re.I,
)
_END_ADDRESS = re.compile(rf"[>\]\"]\s*{_COLON}$")
_START = re.compile(
    r"(?:on|am|le|el|il|op|em|den|på|dne|w\s+dniu)\s"
    r"|\d{1,4}[./-]\d{1,2}[./-]\d{2,4}|\d{4}年"
    r"|\d{1,2}\.?\s+[^\W\d]{3,}\.?,?\s+\d{2,4}"
    r"|[^\W\d]{2,4}\.?,?\s+\d{1,2}\.?\s",
    re.I,
)
_FROM_LABELS = (
    r"from|von|de|da|van|fra|från|lähettäjä|od|от|kimden|feladó|afzender"
    r"|发件人|寄件者|差出人|보낸\s?사람"
)
_OTHER_LABELS = (
    r"sent|date|to|cc|subject|gesendet|datum|an|betreff|envoyé|à|objet|enviado|fecha|para"
    r"|asunto|inviato|data|a|oggetto|verzonden|aan|onderwerp|sendt|til|emne|skickat|till"
    r"|ämne|lähetetty|päivämäärä|vastaanottaja|aihe|отправлено|дата|кому|тема|wysłano|do"
    r"|temat|发送时间|日期|收件人|主题|送信日時|宛先|件名"
)
_FROM_LABEL = re.compile(rf"\*?(?:{_FROM_LABELS})\*?\s?{_COLON}", re.I)
_LABEL = re.compile(rf"\*?(?:{_FROM_LABELS}|{_OTHER_LABELS})\*?\s?{_COLON}", re.I)
_DIGIT_OR_AT = re.compile(r"[\d@]")
_FORWARD = re.compile(
    r"(?:begin forwarded message|anfang der weitergeleiteten nachricht"
    r"|début du message réexpédié)\s*:",
    re.I,
)
_SIG_MARK = re.compile(r"--|—|_{3,}")
_MOBILE = re.compile(
    r"(?:sent (?:from|with|via|using)|get outlook for|von meinem|gesendet (?:von|mit)"
    r"|envoyé (?:de|depuis|à partir de|avec)|enviado (?:desde|de|con)|inviato da"
    r"|verzonden (?:met|vanaf)|verstuurd (?:met|vanaf)|lähetetty|skickat från|sendt fra"
    r"|отправлено (?:с|из))\s[^,.;!?<(]{0,50}(?:<[^>]*>|\([^)]*\))?\.?"
    r"|\S{1,20}から送信",
    re.I,
)
_CLOSING = re.compile(
    r"(?:(?:(?:best|kind|warm|many)\s+)?regards|cheers|sincerely|best(?:\s+wishes)?"
    r"|mvh|hilsen|med vänlig hälsning|vänliga hälsningar|venlig hilsen|med vennlig hilsen"
    r"|(?:viele|beste|liebe)\s+grüße|grüße|gruß|mit freundlichen grüßen|cordialement"
    r"|bien à vous|saludos|un saludo|cordiali saluti|saluti|(?:met vriendelijke\s+)?groet(?:en)?"
    r"|terveisin|ystävällisin terveisin|с уважением|всего доброго)[,.!]?",
    re.I,
)
_DASH_NAME = re.compile(r"--?[A-ZÀ-Þ][\w.'-]*(?:\s[A-ZÀ-Þ][\w.'-]*){0,3}")
_BLANK_RUN = re.compile(r"\n{3,}")


def message_text(message: Message) -> str:
    """The readable body of a message: text/plain, else text/html as text; '' if neither."""
    return _body(message, drop_quotes=False)


def reply_text(
    message: Message, *, own_addresses: Sequence[str] = (), own_names: Sequence[str] = ()
) -> str:
    """The new text of a reply; HTML-only replies lose their quote containers first."""
    body = _body(message, drop_quotes=True)
    return new_text(body, own_addresses=own_addresses, own_names=own_names)


def new_text(body: str, *, own_addresses: Sequence[str] = (), own_names: Sequence[str] = ()) -> str:
    """The part of a reply body its sender wrote: no quotes, quote headers or signatures."""
    lines = _normalise(body).split("\n")
    own = _own_pattern(own_addresses, own_names)
    kept = [line.rstrip() for line in _cut_quotes(lines, own) if not _quoted(line)]
    return _tidy(_drop_signature(kept))


def _short(line: str) -> bool:
    return len(line) <= MAX_HEADER_LINE


# --- message bodies ---------------------------------------------------------------------------

_CONTENT_HEADERS = ("content-type", "content-disposition", "content-transfer-encoding")
# pure-Python codecs with quadratic decoders; no mail client writes its text in them
_SLOW_CODECS = ("punycode", "idna")


def _body(message: Message, *, drop_quotes: bool) -> str:
    found = _body_part(message)
    if found is None:
        return ""
    part, kind, headers = found
    params = _params(headers.get("content-type", ""))
    text = _decoded(part, headers.get("content-transfer-encoding"), params.get("charset"))
    if kind == "text/html":
        return _html_text(text, drop_quotes=drop_quotes)
    if params.get("format", "").lower() == "flowed":
        return _unflow(text, delsp=params.get("delsp", "").lower() == "yes")
    return text


def _body_part(message: Message) -> tuple[Message, str, dict[str, str]] | None:
    """The first text/plain part that is no attachment, else the first text/html one, with
    its type and `_content_headers`; parts are visited in order, without recursion."""
    html: tuple[Message, str, dict[str, str]] | None = None
    for part in _leaves(message):
        headers = _content_headers(part)
        if _before_semicolon(headers.get("content-disposition", "")) == "attachment":
            continue
        kind = _content_type(part, headers)
        if kind == "text/plain":
            return part, kind, headers
        if kind == "text/html" and html is None:
            html = part, kind, headers
    return html


def _leaves(message: Message) -> Iterator[Message]:
    stack = [message]
    while stack:
        part = stack.pop()
        if part.is_multipart():
            children = part.get_payload()  # the list of parts: no header is read for it
            if isinstance(children, list):
                stack += [child for child in reversed(children) if isinstance(child, Message)]
        else:
            yield part


def _content_headers(part: Message) -> dict[str, str]:
    """The first of each Content-* header by lower-case name, unfolded and cut to
    `MAX_CONTENT_HEADER` characters. The part's own accessors would run the policy's header
    parser over the whole header at each call: quadratic in the number of parameters, and
    recursing past the limit on nested comments."""
    headers: dict[str, str] = {}
    for name, value in part.raw_items():
        key = name.lower()
        if key in _CONTENT_HEADERS and key not in headers:
            headers[key] = "".join(str(value)[:MAX_CONTENT_HEADER].splitlines()).strip()
    return headers


def _before_semicolon(value: str) -> str:
    return value.partition(";")[0].strip().lower()


def _content_type(part: Message, headers: dict[str, str]) -> str:
    if "content-type" not in headers:
        return part.get_default_type()
    kind = _before_semicolon(headers["content-type"])
    return kind if kind.count("/") == 1 else "text/plain"


_PARAM = re.compile(r";\s*([^\s;=]+)\s*=\s*(\"(?:[^\"\\]|\\.)*\"|[^;\s]*)")
_ESCAPED = re.compile(r"\\(.)")


def _params(value: str) -> dict[str, str]:
    """The parameters of a Content-Type value by lower-case name, the first of each name; an
    RFC 2231 `name*=charset'language'value` is read, continuations (`name*0=`) are not."""
    params: dict[str, str] = {}
    for match in _PARAM.finditer(value):
        name, text = match[1].lower(), match[2]
        if len(text) >= 2 and text[0] == text[-1] == '"':
            text = _ESCAPED.sub(r"\1", text[1:-1])
        if name.endswith("*"):
            name, text = name[:-1], unquote(text.split("'", 2)[-1], errors="replace")
        params.setdefault(name, text.strip('"').strip())
    return params


def _decoded(part: Message, transfer_encoding: str | None, charset: str | None) -> str:
    """The part's text, its transfer encoding undone by the standard library (given the
    header as read here) and decoded by its charset, else UTF-8, else Latin-1."""
    plain = Message()
    if transfer_encoding is not None:
        plain["Content-Transfer-Encoding"] = transfer_encoding
    raw: Any = part.__dict__.get("_payload")  # as parsed: no header of the part is read
    plain.set_payload(raw)
    payload = plain.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return _normalise(str(payload or ""))
    for name in (charset or "utf-8", "utf-8"):
        try:
            if codecs.lookup(name).name in _SLOW_CODECS:
                continue
            return _normalise(payload.decode(name))
        except (LookupError, ValueError):
            continue
    return _normalise(payload.decode("latin-1"))


def _normalise(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _unflow(text: str, *, delsp: bool) -> str:
    """Join the soft line breaks of format=flowed text (RFC 3676), quote depth by quote depth."""
    out: list[list[str]] = []
    depth_before, soft = -1, False
    for line in text.split("\n"):
        depth = len(line) - len(line.lstrip(">"))
        content = line[depth:].removeprefix(" ")
        if soft and depth == depth_before:
            out[-1].append(content)
        else:
            out.append([">" * depth + (" " if depth else "") + content])
        soft = content.endswith(" ") and content != "-- "
        if soft and delsp:
            out[-1][-1] = out[-1][-1][:-1]
        depth_before = depth
    return "\n".join("".join(pieces) for pieces in out)


# --- HTML -------------------------------------------------------------------------------------

_BLOCKS = frozenset(
    {"address", "article", "aside", "blockquote", "center", "dd", "div", "dl", "dt", "footer"}
    | {"form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "ol", "p", "pre"}
    | {"section", "table", "td", "th", "tr", "ul"}
)
_HIDDEN = frozenset({"script", "style", "title", "template"})
_QUOTE_MARKS = (
    *("gmail_quote", "moz-cite-prefix", "yahoo_quoted", "protonmail_quote", "zmail_extra"),
    *("gmail_signature", "moz-signature"),
)
_CUT_IDS = ("divrplyfwdmsg", "appendonsend", "olk_src_body_section")
_BORDER_TOP = re.compile(r"border-top(?:-style)?\s*:", re.I)
_SOLID = re.compile(r"\bsolid", re.I)
_LONG_CHARREF = re.compile(r"&#(?:([xX])([0-9a-fA-F]{30,})|([0-9]{30,}))(;?)")
_SPACES = re.compile(r"\s+")

# Tokens, each matched where the previous one ended; none can fail after a long scan except
# at the end of the document, where reading stops.
_MARKUP = re.compile(r"<(?:([a-zA-Z])|(/[a-zA-Z])|(!--)|[!?/])")  # groups: start, end, comment
_START_TAG = re.compile(
    r"<([a-zA-Z][^\t\n\r\f />\x00]*)((?:[^>=]|=\s*+(?:\"[^\"]*\"|'[^']*')|=)*+)>"
)
_END_TAG = re.compile(r"</([a-zA-Z][^\t\n\r\f />\x00]*)[^>]*+>")
_COMMENT_END = re.compile(r"--!?>")
_OTHER_MARKUP = re.compile(r"<[!?/][^>]*+>")  # doctype, processing instruction, bogus comment
_RAW_TEXT_END = {name: re.compile(rf"</{name}(?=[\s/>])", re.I) for name in ("script", "style")}
_ATTRIBUTE = re.compile(r"([^\s/=>]+)(?:\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s>]*))?")

Attrs = dict[str, str]


def _attributes(text: str) -> Attrs:
    """The attributes of a start tag by lower-case name, their values in lower case: the first
    of each name, as a browser reads them."""
    attrs: Attrs = {}
    for match in _ATTRIBUTE.finditer(text):
        value = match[2] or ""
        if value[:1] in ("'", '"'):
            value = value[1:-1]
        attrs.setdefault(match[1].lower(), _unescape(value).lower())
    return attrs


def _is_quote(tag: str, attrs: Attrs) -> bool:
    if tag == "blockquote":
        return True
    marks = f"{attrs.get('class', '')} {attrs.get('id', '')}"
    return tag in ("div", "span", "section") and any(mark in marks for mark in _QUOTE_MARKS)


def _is_cut(tag: str, attrs: Attrs) -> bool:
    ident = attrs.get("id", "")
    if tag == "hr" or (ident and any(cut in ident for cut in _CUT_IDS)):
        return True
    return tag == "div" and _border_top_solid(attrs.get("style", ""))


def _border_top_solid(style: str) -> bool:
    """A declaration sets border-top(-style) to solid: searched from its first border-top
    only (a later one finds nothing the first does not), so once per character."""
    for declaration in style.split(";"):
        found = _BORDER_TOP.search(declaration)
        if found and _SOLID.search(declaration, found.end()):
            return True
    return False


def _unescape(text: str) -> str:
    """html.unescape, also of a numeric character reference of thousands of digits (int()
    refuses those): leading zeros are dropped, and a number still longer than 8 digits is
    beyond U+10FFFF, so U+FFFD, as html.unescape makes of any such number."""
    if "&#" in text:
        text = _LONG_CHARREF.sub(_shorter_charref, text)
    return unescape(text)


def _shorter_charref(match: re.Match[str]) -> str:
    x, hex_digits, digits, semicolon = match.groups()
    number = (hex_digits or digits).lstrip("0") or "0"
    return "\ufffd" if len(number) > 8 else f"&#{x or ''}{number}{semicolon}"


_OPEN, _CLOSE, _TEXT = "open", "close", "text"


def _html_tokens(html: str) -> Iterator[tuple[str, str, str]]:
    """(kind, tag name or text, attribute text) for start tags, end tags and text; comments
    and declarations are left out. A tag, comment or quoted attribute value left open ends
    the document (the rest is inside it): no text is scanned twice."""
    pos = 0
    while (markup := _MARKUP.search(html, pos)) is not None:
        at = markup.start()
        if at > pos:
            yield _TEXT, _unescape(html[pos:at]), ""
        if markup.lastindex == 1:
            if (tag := _START_TAG.match(html, at)) is None:
                return
            name, attrs = tag[1].lower(), tag[2]
            yield _OPEN, name, attrs
            pos = tag.end()
            if attrs.endswith("/"):
                yield _CLOSE, name, ""
            elif name in _RAW_TEXT_END:
                if (close := _RAW_TEXT_END[name].search(html, pos)) is None:
                    return
                yield _TEXT, html[pos : close.start()], ""
                pos = close.start()
            continue
        if markup.lastindex == 2:
            end = _END_TAG.match(html, at)
            if end is not None:
                yield _CLOSE, end[1].lower(), ""
        elif markup.lastindex == 3:
            end = _COMMENT_END.search(html, at + 4)
        else:
            end = _OTHER_MARKUP.match(html, at)
        if end is None:
            return
        pos = end.end()
    if pos < len(html):
        yield _TEXT, _unescape(html[pos:]), ""


class _TextMaker:
    """HTML to plain text; with drop_quotes, quote containers and all after a cut are left out."""

    def __init__(self, *, drop_quotes: bool) -> None:
        self.drop_quotes = drop_quotes
        self.out: Lines = []
        self.skip_tag, self.skip_depth = "", 0
        self.pre = 0
        self.fresh = True

    def read(self, html: str) -> str:
        for kind, value, attrs in _html_tokens(html):
            if kind == _TEXT:
                self.handle_data(value)
            elif kind == _CLOSE:
                self.handle_endtag(value)
            elif self.handle_starttag(value, attrs):
                break  # a cut: the rest is the quote
        return "".join(self.out)

    def handle_starttag(self, tag: str, attr_text: str) -> bool:
        """Handles a start tag; True at a cut, after which nothing is read."""
        if self.skip_depth:
            self.skip_depth += int(tag == self.skip_tag)
            return False
        attrs = _attributes(attr_text) if attr_text else {}
        if tag in _HIDDEN or (self.drop_quotes and _is_quote(tag, attrs)):
            self.skip_tag, self.skip_depth = tag, 1
        elif self.drop_quotes and _is_cut(tag, attrs):
            return True
        elif tag == "br":
            self._write("\n")
        elif tag in _BLOCKS:
            self._line_break()
            self.pre += int(tag == "pre")
        return False

    def handle_endtag(self, tag: str) -> None:
        if self.skip_depth:
            self.skip_depth -= int(tag == self.skip_tag)
            if self.skip_depth:
                return
        if tag in _BLOCKS:
            self._line_break()
            self.pre = max(0, self.pre - int(tag == "pre"))

    def handle_data(self, data: str) -> None:
        if self.skip_depth:
            return
        text = data if self.pre else _SPACES.sub(" ", data)
        self._write(text.lstrip(" ") if self.fresh else text)

    def _line_break(self) -> None:
        if not self.fresh:
            self._write("\n")

    def _write(self, text: str) -> None:
        if text:
            self.out.append(text)
            self.fresh = text.endswith("\n") or (self.fresh and not text.strip())


def _html_text(html: str, *, drop_quotes: bool) -> str:
    text = _TextMaker(drop_quotes=drop_quotes).read(html)
    lines = [line.strip() for line in text.split("\n")]
    return _BLANK_RUN.sub("\n\n", "\n".join(lines)).strip("\n")


# --- quotes and quote headers -----------------------------------------------------------------


class _Own:
    """The service's own address and name as a quote header shows them: a pattern, and the
    plain words one of which a line must hold first (a cheap test before the pattern)."""

    def __init__(self, pattern: re.Pattern[str], words: Sequence[str]) -> None:
        self.pattern, self.words = pattern, tuple(words)

    def search(self, line: str) -> bool:
        lowered = line.lower()
        return any(word in lowered for word in self.words) and bool(self.pattern.search(line))


def _own_pattern(addresses: Sequence[str], names: Sequence[str]) -> _Own | None:
    found = _own_parts(tuple(addresses), tuple(names))
    return _Own(*found) if found else None


@lru_cache(maxsize=16)  # the service's own addresses and names: the same for every reply
def _own_parts(
    addresses: tuple[str, ...], names: tuple[str, ...]
) -> tuple[re.Pattern[str], tuple[str, ...]] | None:
    parts, words = [], []
    for address in addresses:
        local, _, domain = parseaddr(address)[1].partition("@")
        if local and domain:
            # a tag is at most 100 characters, so an address is found in linear time
            parts.append(
                rf"(?<![\w.+-]){re.escape(local)}(?:\+[^@\s]{{0,100}})?@{re.escape(domain)}"
            )
            words.append(local.lower())
    for name in names:
        if name.strip():
            parts.append(rf"(?<!\w){re.escape(name.strip())}(?!\w)")
            words.append(name.strip().lower())
    return (re.compile("|".join(parts), re.I), tuple(words)) if parts else None


def _quoted(line: str) -> bool:
    return line.lstrip().startswith(">")


def _cut_quotes(lines: Lines, own: _Own | None) -> Lines:
    """Drop each quote header and the quote under it; keep text below a '>' quote."""
    kept: Lines = []
    headers = _Headers(lines, own)
    at = 0
    while (header := headers.first(at)) is not None:
        start, end = header
        kept += lines[at:start]
        at = end
        if not _quote_follows(lines, at):
            return kept
    return kept + lines[at:]


def _quote_follows(lines: Lines, at: int) -> bool:
    return next((_quoted(lines[i]) for i in range(at, len(lines)) if lines[i].strip()), True)


class _Headers:
    """The quote headers of a body, asked for left to right: each line is tested at most
    once for the service's own quote header and once for any quote header."""

    def __init__(self, lines: Lines, own: _Own | None) -> None:
        self.lines, self.own = lines, own
        self.own_from = 0  # no own header starts in lines[:own_from], except own_found
        self.own_found: tuple[int, int] | None = None

    def first(self, at: int) -> tuple[int, int] | None:
        """The first quote header in lines[at:] as (first line, line after it): the
        service's own, else any."""
        own = self._first_own(at)
        if own is not None:
            i, end = own
            return _header_start(self.lines, i, at), end
        for i in range(at, len(self.lines)):
            line = self.lines[i]
            if _short(line) and line.strip() and not _quoted(line):
                generic = _generic_end(self.lines, i)
                if generic is not None:
                    return i, generic
        return None

    def _first_own(self, at: int) -> tuple[int, int] | None:
        if self.own is None:
            return None
        if self.own_found is not None and self.own_found[0] >= at:
            return self.own_found
        self.own_found = None
        for i in range(max(at, self.own_from), len(self.lines)):
            end = _own_end(self.lines, i, self.own)
            if end is not None:
                self.own_found, self.own_from = (i, end), i + 1
                return self.own_found
        self.own_from = len(self.lines)
        return None


def _windows(lines: Lines, i: int) -> Iterator[tuple[int, str]]:
    """The line at i joined with up to two following non-blank lines, as (end, text)."""
    text = lines[i].strip()
    yield i + 1, text
    for j in range(i + 1, min(i + 3, len(lines))):
        following = lines[j].strip()
        if not following or not _short(following) or _START.match(following):
            return
        text = f"{text} {following}"
        yield j + 1, text


def _own_end(lines: Lines, i: int, own: _Own) -> int | None:
    line = lines[i]
    if not _short(line) or not own.search(line) or _quoted(line):
        return None
    return next((end for end, text in _windows(lines, i) if _header_like(text)), None)


def _header_like(text: str) -> bool:
    return bool(_LABEL.match(text) or text.endswith((":", "\uff1a")) or _dashed(text))


def _header_start(lines: Lines, i: int, top: int) -> int:
    """Move up (not above line `top`) over the start of a wrapped attribution and over
    separator and header lines."""
    if i > top and _wrapped_from(lines[i - 1].strip(), lines[i].strip()):
        i -= 1
    while i > top and (_separator(lines[i - 1].strip()) or _LABEL.match(lines[i - 1].strip())):
        i -= 1
    return i


def _wrapped_from(before: str, line: str) -> bool:
    if not before or not _short(before) or _quoted(before):
        return False
    if before.endswith("<") or line.startswith("<"):
        return True
    joined = f"{before} {line}"
    return bool(_START.match(before) and (_ends_with_verb(joined) or _END_ADDRESS.search(joined)))


def _ends_with_verb(text: str) -> bool:
    """'... wrote:': a verb, at most 120 characters and a colon ending the text. The colon
    and the spaces before it are cut off first, so that the pattern cannot backtrack."""
    if not text.endswith((":", "\uff1a")):
        return False
    return bool(_END_VERB.search(text[:-1].rstrip()))


def _dashed(text: str) -> bool:
    """'-----Original Message-----': two or more dashes at both ends, between them up to
    101 characters that neither start nor end with a dash or a space once trimmed."""
    inner = text.lstrip("-")
    middle = inner.rstrip("-")
    if len(text) - len(inner) < 2 or len(inner) - len(middle) < 2:
        return False
    middle = middle.strip()
    return 0 < len(middle) <= 101 and not middle.startswith("-")


def _separator(text: str) -> bool:
    return _dashed(text) or (len(text) >= 3 and not text.strip("_"))


def _generic_end(lines: Lines, i: int) -> int | None:
    """The end of a quote header starting at line i, found by its form alone."""
    line = lines[i].strip()
    if _FORWARD.match(line) or _header_block(lines, i) or _dashed_header(lines, i):
        return i + 1
    if not any(later.rstrip().endswith((":", "\uff1a")) for later in lines[i : i + 3]):
        return None  # an attribution ends with a colon
    for end, text in _windows(lines, i):
        if _attribution(text, single=end == i + 1):
            return end
    return None


def _attribution(text: str, *, single: bool) -> bool:
    if not text.endswith((":", "\uff1a")):
        return False
    verb = _ends_with_verb(text)
    if _START.match(text):
        return verb or bool(_END_ADDRESS.search(text))
    return verb and single and bool(_DIGIT_OR_AT.search(text))


def _header_block(lines: Lines, i: int) -> bool:
    following = lines[i + 1 : i + 4]
    return bool(_FROM_LABEL.match(lines[i].strip())) and any(
        _LABEL.match(line.strip()) for line in following
    )


def _dashed_header(lines: Lines, i: int) -> bool:
    line = lines[i].strip()
    if not _dashed(line):
        return False
    after = next((lines[j].strip() for j in range(i + 1, len(lines)) if lines[j].strip()), "")
    return bool(_LABEL.match(after) or _VERB.search(line))


# --- signatures -------------------------------------------------------------------------------


def _drop_signature(lines: Lines) -> Lines:
    """Cut at a signature mark or a mobile signature, else a closing or '-Name' at the end."""
    mark = next((i for i, line in enumerate(lines) if _signature_mark(line.strip())), len(lines))
    return _drop_closing(_trimmed(lines[:mark]))


def _signature_mark(line: str) -> bool:
    return (
        bool(line) and _short(line) and bool(_SIG_MARK.fullmatch(line) or _MOBILE.fullmatch(line))
    )


def _drop_closing(lines: Lines) -> Lines:
    """Cut a closing ('Regards,') followed by at most four short lines, or a final '-Name'."""
    last = [i for i, line in enumerate(lines) if line.strip()][-5:]
    for n, i in enumerate(last):
        short = all(len(lines[j]) <= 40 for j in last[n + 1 :])
        if short and _CLOSING.fullmatch(lines[i].strip()):
            return lines[:i]
    blank_before = len(lines) < 2 or not lines[-2].strip()
    if lines and blank_before and _DASH_NAME.fullmatch(lines[-1].strip()):
        return lines[:-1]
    return lines


def _trimmed(lines: Lines) -> Lines:
    start = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    end = len(lines) - next((i for i, line in enumerate(reversed(lines)) if line.strip()), 0)
    return lines[start:end]


def _tidy(lines: Lines) -> str:
    return _BLANK_RUN.sub("\n\n", "\n".join(_trimmed(lines)))
