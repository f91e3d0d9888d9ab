"""The rules for players (`docs/rules.md`, installed as `pbem/docs/rules.md`) as the mails show
them: headings, paragraphs and list items, each as plain text and as HTML.

Only the markdown that file uses is read: `#` and `##` headings, `- ` list items, paragraphs,
`code` and **bold**.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from pathlib import Path

from markupsafe import Markup, escape

CODE_STYLE = (
    "font-family:Menlo,Consolas,'Courier New',monospace;font-size:14px;"
    "background:#f3f6f8;padding:0 3px;border-radius:3px;white-space:nowrap;"
)
NBSP = "\u00a0"
_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*(.+?)\*\*")


class BlockKind(StrEnum):
    """What a block of the rules is: picks how the templates lay it out."""

    TITLE = "title"  # `# ...`
    HEADING = "heading"  # `## ...`
    PARAGRAPH = "paragraph"
    ITEM = "item"  # `- ...`


@dataclass(frozen=True)
class Block:
    """One heading, paragraph or list item; `gap` when a blank line comes before it."""

    kind: BlockKind
    source: str  # its markdown, on one line
    gap: bool

    @property
    def text(self) -> str:
        return _BOLD.sub(r"\1", _CODE.sub(r"\1", self.source))

    @property
    def unbroken(self) -> str:
        """`text` with the spaces inside commands as NO-BREAK SPACE, so that wrapping keeps
        each command on one line (the template turns them back into spaces)."""
        kept = _CODE.sub(lambda m: m[1].replace(" ", NBSP), self.source)
        return _BOLD.sub(r"\1", kept)

    @property
    def html(self) -> Markup:
        page = str(escape(self.source))
        page = _CODE.sub(lambda m: f'<code style="{CODE_STYLE}">{m[1]}</code>', page)
        return Markup(_BOLD.sub(r"<b>\1</b>", page))


def rules_path(lang: str = "en") -> Path:
    """The installed copy, or `docs/rules.md` of the checkout; in another language
    `docs/rules.LANG.md`, or the English rules while that file is missing."""
    here = Path(__file__).resolve().parents[1]  # pbem/
    name = "rules.md" if lang == "en" else f"rules.{lang}.md"
    for folder in (here / "docs", here.parent / "docs"):
        if (folder / name).is_file():
            return folder / name
    if lang != "en":
        return rules_path()
    installed = here / "docs" / "rules.md"
    return installed if installed.is_file() else here.parent / "docs" / "rules.md"


def parse(markdown: str) -> tuple[Block, ...]:
    """The blocks of a markdown text; the lines of one paragraph or item are joined."""
    blocks: list[Block] = []
    kind: BlockKind | None = None
    lines: list[str] = []

    def close() -> None:
        nonlocal kind, lines
        if lines:
            assert kind is not None
            after = blocks[-1].kind if blocks else None
            gap = (
                bool(blocks)
                and kind is not BlockKind.ITEM
                and after not in (BlockKind.TITLE, BlockKind.HEADING)
            )
            blocks.append(Block(kind, " ".join(lines), gap or kind is BlockKind.HEADING))
        kind, lines = None, []

    for raw in markdown.splitlines():
        line = raw.strip()
        heading = re.fullmatch(r"(#{1,2}) +(.+)", line)
        if not line or heading or line.startswith("- "):
            close()
        if heading:
            kind = BlockKind.TITLE if len(heading[1]) == 1 else BlockKind.HEADING
            lines = [heading[2]]
            close()
        elif line.startswith("- "):
            kind, lines = BlockKind.ITEM, [line[2:].strip()]
        elif line:
            kind = kind or BlockKind.PARAGRAPH
            lines.append(line)
    close()
    return tuple(blocks)


@cache
def blocks(lang: str = "en") -> tuple[Block, ...]:
    """The rules for players in `lang` (English if there is no translation), read once."""
    return parse(rules_path(lang).read_text(encoding="utf-8"))


__all__ = ["NBSP", "Block", "BlockKind", "blocks", "parse", "rules_path"]
