"""The throughput phase's load generator: one keep-alive HTTP/1.1 connection per
client over asyncio streams, and nothing else.

The bench's clients share the server's two cores, so what they cost is taken from
the workers.  httpx (the phase's client until 2026-11-26) took about 2.5 ms of CPU
per request, and its pool's scheduling added a tail of its own: an empty Django view
answered 330 requests/s (p99 ~700 ms) through it, and 900 requests/s (p99 ~90 ms)
through this client, on the same workers.  This one costs ~0.15 ms per request.
"""

from __future__ import annotations

import asyncio
from urllib.parse import urlencode


class Connection:
    """One client's connection to ``127.0.0.1:port``, opened at its first request and
    opened again after the server closes it."""

    def __init__(self, port: int, headers: dict[str, str]) -> None:
        self.port = port
        self.headers = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, path: str, data: dict[str, str]) -> tuple[int, bytes]:
        """POST ``data`` as a form; the answer's status and body."""
        if self.writer is None or self.reader is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        body = urlencode(data).encode()
        head = (
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
            "Content-Type: application/x-www-form-urlencoded\r\n"
            f"Content-Length: {len(body)}\r\n{self.headers}\r\n"
        )
        self.writer.write(head.encode() + body)
        try:
            return await self._answer(self.reader)
        except (asyncio.IncompleteReadError, ConnectionError):
            self.close()
            raise

    async def _answer(self, reader: asyncio.StreamReader) -> tuple[int, bytes]:
        status = int((await reader.readline()).split()[1])
        length, chunked, close = 0, False, False
        while (line := await reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            name, value = name.strip().lower(), value.strip().lower()
            if name == "content-length":
                length = int(value)
            elif name == "transfer-encoding":
                chunked = "chunked" in value
            elif name == "connection":
                close = value == "close"
        if chunked:
            chunks = []
            while size := int((await reader.readline()).split(b";")[0], 16):
                chunks.append(await reader.readexactly(size))
                await reader.readline()
            await reader.readline()
            data = b"".join(chunks)
        else:
            data = await reader.readexactly(length)
        if close:
            self.close()
        return status, data

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None
