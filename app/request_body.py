"""Where a request's body ends, told from its head and the bytes read so far: the worker's loop reads the body
of a request whose size is within the body limit before any thread sees it (app/worker.py), so a client that
sends its body slowly holds a descriptor, not a thread.

Only the framing is checked here; anything this reader does not understand (a bad Content-Length, two of them,
a transfer coding other than chunked, a malformed chunk) goes to a thread at once, where gunicorn's parser
answers it as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: the reference's limit on a request body (3 MiB; app/api/negotiation.py answers 413 beyond it)
MAX_BODY_BYTES = 3 * 1024 * 1024
#: what chunked framing may add to a body within the limit before the loop stops buffering it
MAX_CHUNKED_OVERHEAD = 64 * 1024
CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"
HEX_DIGITS = re.compile(rb"[0-9A-Fa-f]{1,16}")


@dataclass
class BodyReader:
    """The state of one body being read by the loop: bytes of `buf` from `start` on are the body."""

    start: int  # where the body begins in the buffer (just after the head)
    length: int | None  # Content-Length, or None for a chunked body
    left_to_thread: bool = False  # framing the loop does not read (a thread and gunicorn's parser do)
    next_chunk: int = 0  # chunked: offset of the next chunk-size line not yet passed over

    def complete(self, buf: bytes | bytearray) -> bool | None:
        """True when the whole body is in `buf`, False when more must come, None when the loop should stop
        reading it (malformed framing or over the limit: a thread and gunicorn's parser answer it)."""
        if self.left_to_thread:
            return None
        if self.length is not None:
            return len(buf) - self.start >= self.length
        return self._chunks_complete(buf)

    def _chunks_complete(self, buf: bytes | bytearray) -> bool | None:
        pos = self.next_chunk or self.start
        while True:
            line_end = buf.find(b"\r\n", pos)
            if line_end < 0:
                self.next_chunk = pos
                return None if len(buf) - pos > 1024 else False  # a chunk-size line is short
            digits = bytes(buf[pos:line_end]).split(b";", 1)[0].strip()
            if not HEX_DIGITS.fullmatch(digits):  # int() would take "0x1f", "+5" or "1_0": gunicorn does not
                return None
            size = int(digits, 16)
            if size == 0:  # the last chunk; trailers, if any, end with an empty line
                if buf.find(b"\r\n\r\n", line_end) >= 0:
                    return True
                self.next_chunk = pos
                return None if len(buf) - line_end > 8192 else False
            following = line_end + 2 + size + 2
            if following - self.start > MAX_BODY_BYTES + MAX_CHUNKED_OVERHEAD:
                return None  # over the limit: the app answers 413 as it reads
            if len(buf) < following:
                self.next_chunk = pos
                return False
            if buf[following - 2 : following] != b"\r\n":
                return None
            pos = following


def buffer_needed(reader: BodyReader) -> int:
    """The most a body being read may take of the budget: its length, or the chunked limit with its framing."""
    return reader.length if reader.length is not None else MAX_BODY_BYTES + MAX_CHUNKED_OVERHEAD


def head_end(buf: bytes | bytearray) -> int:
    """Where the request head in `buf` ends (just past its empty line); -1 when it has not ended."""
    crlf, lf = buf.find(b"\r\n\r\n"), buf.find(b"\n\n")
    ends = [at + width for at, width in ((crlf, 4), (lf, 2)) if at >= 0]
    return min(ends) if ends else -1


def body_reader(buf: bytes | bytearray) -> tuple[BodyReader | None, bool]:
    """How the loop reads the body of the request whose head begins `buf`: a reader (None when the request has
    no body), and whether the client waits for `100 Continue`."""
    end = head_end(buf)
    if end < 0:
        return None, False
    lengths: list[bytes] = []
    codings: list[bytes] = []
    expects_continue = False
    for line in bytes(buf[:end]).split(b"\n")[1:]:
        name, colon, value = line.partition(b":")
        if not colon:
            continue
        name = name.strip().lower()
        if name == b"content-length":
            lengths.append(value.strip())
        elif name == b"transfer-encoding":
            codings.append(value.strip().lower())
        elif name == b"expect":
            expects_continue = value.strip().lower() == b"100-continue"
    if codings:
        if lengths or codings != [b"chunked"]:  # ambiguous or unsupported framing: gunicorn's parser refuses it
            return BodyReader(end, None, left_to_thread=True), False
        return BodyReader(end, None), expects_continue
    if not lengths:
        return None, False
    if len(lengths) != 1 or not lengths[0].isdigit():  # a framing error gunicorn answers
        return BodyReader(end, None, left_to_thread=True), False
    length = int(lengths[0])
    if length == 0:
        return None, False
    if length > MAX_BODY_BYTES:  # the app answers 413 without reading it
        return BodyReader(end, length, left_to_thread=True), False
    return BodyReader(end, length), expects_continue
