"""The Redis channel layer, with connections that wait their turn and one
fire-and-forget task made outage-proof.

A worker's layer draws its Redis connections from one pool per event loop.  redis-py's
plain pool refuses a command at once ("Too many connections") when every connection
is in use: with a few hundred sockets on a worker, their joins, beats and pushes at
one moment failed, a push was lost and every socket's receive backed off as if Redis
were down.  Here a command waits for a free connection (``timeout`` seconds, then
it fails as an outage does).

channels-redis cleans a received message's backup in a task nobody awaits; when Redis
goes away at that moment the task's exception is logged by asyncio as "Task exception
was never retrieved", with a traceback.  Here it is one warning line: the message
stays in its backup and may be delivered again, which a consumer takes in its stride
(it re-renders and sends only what differs)."""

from __future__ import annotations

import logging
from typing import Any

from channels_redis.core import RedisChannelLayer as BaseRedisChannelLayer
from redis.asyncio import BlockingConnectionPool
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)


class RedisChannelLayer(BaseRedisChannelLayer):
    def create_pool(self, index: int) -> Any:
        host = dict(self.hosts[index])
        if "address" not in host:  # a sentinel: channels-redis's own pool
            return super().create_pool(index)
        return BlockingConnectionPool.from_url(host.pop("address"), **host)

    async def _clean_receive_backup(self, index: int, channel: Any) -> None:
        try:
            await super()._clean_receive_backup(index, channel)
        except (RedisError, OSError) as exc:
            logger.warning("channel layer: a receive backup was not cleaned (%s)", exc)
