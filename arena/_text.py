"""Text a bot wrote, made inert before anyone sees it.

A bot controls its replies, its stderr and (in a league) its name. Printed
raw, that text could move the organiser's cursor, set the window title, write
to the clipboard (OSC 52), or reorder what a line appears to say (bidi
overrides); in XML it could make a JUnit file unreadable. Everything a bot
wrote goes through ``inert`` before it reaches a terminal, a log a person
reads, or a report, and through ``xml_text`` before it goes into XML. JSON
output needs nothing more: ``json.dumps`` escapes every control character.
"""

from __future__ import annotations


def _escape(code: int) -> str:
    if code < 0x100:
        return {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"}.get(code, f"\\x{code:02x}")
    return f"\\u{code:04x}"


_UNSAFE = (
    list(range(0x00, 0x20)) + [0x7F] + list(range(0x80, 0xA0))  # C0, DEL, C1 (CSI 0x9b...)
    + [0x061C, 0x200E, 0x200F, 0x2028, 0x2029]  # marks and line separators
    + list(range(0x202A, 0x202F)) + list(range(0x2066, 0x206A))  # bidi embeddings and isolates
    + [0xFEFF, 0xFFFE, 0xFFFF]  # byte-order mark; not characters (invalid in XML)
)
_TABLE = {code: _escape(code) for code in _UNSAFE}


def inert(text: str) -> str:
    """``text`` with every control, bidi and non-character shown as an escape (``\\x1b``).

    Printable text, including non-ASCII letters, is unchanged. A line break
    becomes ``\\n``: split multi-line text first and pass each line.
    """
    return text.translate(_TABLE)


def inert_lines(text: str) -> list[str]:
    """Each line of ``text``, made inert."""
    return [inert(line) for line in text.splitlines()]


def xml_text(text: str) -> str:
    """Text safe inside XML 1.0 (lines kept): everything else as ``inert`` shows it."""
    return "\n".join(inert(line) for line in text.split("\n"))
