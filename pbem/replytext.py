"""What a player wrote in a reply: the body without quotes, quote headers and signatures."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from email.message import Message
from email.utils import parseaddr
from html.parser import HTMLParser

Lines = list[str]

_COLON = r"[:\uff1a]"
_VERBS = (
    r"wrote|writes|schrieb|a\s+écrit|schreef|escribió|escreveu|ha\s+scritto|scrisse|kirjoitti"
    r"|skrev|skrifaði|napisał|napisała|napsal|написал|написала|yazdı|írta|έγραψε"
)
_END_VERB = re.compile(
    rf"(?:^|[\s>\]\"',])(?:{_VERBS})(?:\s*\(\w+\))?(?:\s.{{0,120}}?)?\s*{_COLON}$"
    rf"|(?:写道|寫道|書きました|のメール|のメッセージ|작성)\s*{_COLON}$",
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
_DASHED = re.compile(r"-{2,}\s*[^-\s].{0,100}?\s*-{2,}")
_SEPARATOR = re.compile(r"-{2,}\s*[^-\s].{0,100}?\s*-{2,}|_{3,}")
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


# --- message bodies ---------------------------------------------------------------------------


def _body(message: Message, *, drop_quotes: bool) -> str:
    part = _body_part(message)
    if part is None:
        return ""
    text = _decoded(part)
    if part.get_content_subtype() == "html":
        return _html_text(text, drop_quotes=drop_quotes)
    if str(part.get_param("format", "")).lower() == "flowed":
        return _unflow(text, delsp=str(part.get_param("delsp", "")).lower() == "yes")
    return text


def _body_part(message: Message) -> Message | None:
    parts = [
        part
        for part in message.walk()
        if not part.is_multipart() and part.get_content_disposition() != "attachment"
    ]
    for kind in ("text/plain", "text/html"):
        for part in parts:
            if part.get_content_type() == kind:
                return part
    return None


def _decoded(part: Message) -> str:
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return _normalise(str(payload or ""))
    for charset in (part.get_content_charset() or "utf-8", "utf-8"):
        try:
            return _normalise(payload.decode(charset))
        except (LookupError, UnicodeDecodeError):
            continue
    return _normalise(payload.decode("latin-1"))


def _normalise(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _unflow(text: str, *, delsp: bool) -> str:
    """Join the soft line breaks of format=flowed text (RFC 3676), quote depth by quote depth."""
    out: Lines = []
    depth_before, soft = -1, False
    for line in text.split("\n"):
        depth = len(line) - len(line.lstrip(">"))
        content = line[depth:].removeprefix(" ")
        if soft and depth == depth_before:
            out[-1] += content
        else:
            out.append(">" * depth + (" " if depth else "") + content)
        soft = content.endswith(" ") and content != "-- "
        if soft and delsp:
            out[-1] = out[-1][:-1]
        depth_before = depth
    return "\n".join(out)


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
_BORDER_TOP = re.compile(r"border-top(?:-style)?\s*:[^;]*\bsolid", re.I)

Attrs = list[tuple[str, str | None]]


def _attr(attrs: Attrs, name: str) -> str:
    return next((value or "" for key, value in attrs if key == name), "").lower()


def _is_quote(tag: str, attrs: Attrs) -> bool:
    marks = f"{_attr(attrs, 'class')} {_attr(attrs, 'id')}"
    in_marks = tag in ("div", "span", "section") and any(mark in marks for mark in _QUOTE_MARKS)
    return tag == "blockquote" or in_marks


def _is_cut(tag: str, attrs: Attrs) -> bool:
    if tag == "hr" or any(cut in _attr(attrs, "id") for cut in _CUT_IDS):
        return True
    return tag == "div" and bool(_BORDER_TOP.search(_attr(attrs, "style")))


class _TextMaker(HTMLParser):
    """HTML to plain text; with drop_quotes, quote containers and all after a cut are left out."""

    def __init__(self, *, drop_quotes: bool) -> None:
        super().__init__(convert_charrefs=True)
        self.drop_quotes = drop_quotes
        self.out: Lines = []
        self.skip_tag, self.skip_depth = "", 0
        self.stopped = False
        self.pre = 0
        self.fresh = True

    def handle_starttag(self, tag: str, attrs: Attrs) -> None:
        if self.stopped:
            return
        if self.skip_depth:
            self.skip_depth += int(tag == self.skip_tag)
        elif tag in _HIDDEN or (self.drop_quotes and _is_quote(tag, attrs)):
            self.skip_tag, self.skip_depth = tag, 1
        elif self.drop_quotes and _is_cut(tag, attrs):
            self.stopped = True
        elif tag == "br":
            self._write("\n")
        elif tag in _BLOCKS:
            self._line_break()
            self.pre += int(tag == "pre")

    def handle_endtag(self, tag: str) -> None:
        if self.stopped:
            return
        if self.skip_depth:
            self.skip_depth -= int(tag == self.skip_tag)
            if self.skip_depth:
                return
        if tag in _BLOCKS:
            self._line_break()
            self.pre = max(0, self.pre - int(tag == "pre"))

    def handle_data(self, data: str) -> None:
        if self.stopped or self.skip_depth:
            return
        text = data if self.pre else re.sub(r"\s+", " ", data)
        self._write(text.lstrip(" ") if self.fresh else text)

    def _line_break(self) -> None:
        if not self.fresh:
            self._write("\n")

    def _write(self, text: str) -> None:
        if text:
            self.out.append(text)
            self.fresh = text.endswith("\n") or (self.fresh and not text.strip())


def _html_text(html: str, *, drop_quotes: bool) -> str:
    maker = _TextMaker(drop_quotes=drop_quotes)
    maker.feed(html)
    maker.close()
    lines = [line.strip() for line in "".join(maker.out).split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n")


# --- quotes and quote headers -----------------------------------------------------------------


def _own_pattern(addresses: Sequence[str], names: Sequence[str]) -> re.Pattern[str] | None:
    parts = []
    for address in addresses:
        local, _, domain = parseaddr(address)[1].partition("@")
        if local and domain:
            parts.append(rf"(?<![\w.+-]){re.escape(local)}(?:\+[^@\s]*)?@{re.escape(domain)}")
    parts += [rf"(?<!\w){re.escape(name.strip())}(?!\w)" for name in names if name.strip()]
    return re.compile("|".join(parts), re.I) if parts else None


def _quoted(line: str) -> bool:
    return line.lstrip().startswith(">")


def _cut_quotes(lines: Lines, own: re.Pattern[str] | None) -> Lines:
    """Drop each quote header and the quote under it; keep text below a '>' quote."""
    kept: Lines = []
    while (header := _find_header(lines, own)) is not None:
        start, end = header
        kept += lines[:start]
        lines = lines[end:]
        if not _quote_follows(lines):
            return kept
    return kept + lines


def _quote_follows(lines: Lines) -> bool:
    return next((_quoted(line) for line in lines if line.strip()), True)


def _find_header(lines: Lines, own: re.Pattern[str] | None) -> tuple[int, int] | None:
    """The first quote header as (first line, line after it): the service's own, else any."""
    if own is not None and (header := _find_own(lines, own)) is not None:
        return header
    for i, line in enumerate(lines):
        if line.strip() and not _quoted(line) and (end := _generic_end(lines, i)):
            return i, end
    return None


def _windows(lines: Lines, i: int) -> Iterator[tuple[int, str]]:
    """The line at i joined with up to two following non-blank lines, as (end, text)."""
    text = lines[i].strip()
    yield i + 1, text
    for j in range(i + 1, min(i + 3, len(lines))):
        if not lines[j].strip() or _START.match(lines[j].strip()):
            return
        text = f"{text} {lines[j].strip()}"
        yield j + 1, text


def _find_own(lines: Lines, own: re.Pattern[str]) -> tuple[int, int] | None:
    for i, line in enumerate(lines):
        if _quoted(line) or not own.search(line):
            continue
        for end, text in _windows(lines, i):
            if _header_like(text):
                return _header_start(lines, i), end
    return None


def _header_like(text: str) -> bool:
    return bool(_LABEL.match(text) or text.endswith((":", "\uff1a")) or _DASHED.fullmatch(text))


def _header_start(lines: Lines, i: int) -> int:
    """Move up over the start of a wrapped attribution and over separator and header lines."""
    if i > 0 and _wrapped_from(lines[i - 1].strip(), lines[i].strip()):
        i -= 1
    while i > 0 and (
        _SEPARATOR.fullmatch(lines[i - 1].strip()) or _LABEL.match(lines[i - 1].strip())
    ):
        i -= 1
    return i


def _wrapped_from(before: str, line: str) -> bool:
    if not before or _quoted(before):
        return False
    if before.endswith("<") or line.startswith("<"):
        return True
    joined = f"{before} {line}"
    return bool(_START.match(before) and (_END_VERB.search(joined) or _END_ADDRESS.search(joined)))


def _generic_end(lines: Lines, i: int) -> int | None:
    """The end of a quote header starting at line i, found by its form alone."""
    line = lines[i].strip()
    if _FORWARD.match(line) or _header_block(lines, i) or _dashed_header(lines, i):
        return i + 1
    for end, text in _windows(lines, i):
        if _attribution(text, single=end == i + 1):
            return end
    return None


def _attribution(text: str, *, single: bool) -> bool:
    if not text.endswith((":", "\uff1a")):
        return False
    verb = bool(_END_VERB.search(text))
    if _START.match(text):
        return verb or bool(_END_ADDRESS.search(text))
    return verb and single and bool(re.search(r"[\d@]", text))


def _header_block(lines: Lines, i: int) -> bool:
    following = lines[i + 1 : i + 4]
    return bool(_FROM_LABEL.match(lines[i].strip())) and any(
        _LABEL.match(line.strip()) for line in following
    )


def _dashed_header(lines: Lines, i: int) -> bool:
    line = lines[i].strip()
    if not _DASHED.fullmatch(line):
        return False
    after = next((later.strip() for later in lines[i + 1 :] if later.strip()), "")
    return bool(_LABEL.match(after) or re.search(_VERBS, line, re.I))


# --- signatures -------------------------------------------------------------------------------


def _drop_signature(lines: Lines) -> Lines:
    """Cut at a signature mark or a mobile signature, else a closing or '-Name' at the end."""
    mark = next((i for i, line in enumerate(lines) if _signature_mark(line.strip())), len(lines))
    return _drop_closing(_trimmed(lines[:mark]))


def _signature_mark(line: str) -> bool:
    return bool(_SIG_MARK.fullmatch(line) or _MOBILE.fullmatch(line))


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
    return re.sub(r"\n{3,}", "\n\n", "\n".join(_trimmed(lines)))
