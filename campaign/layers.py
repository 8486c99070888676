"""The Redis channel layer, with one fire-and-forget task made outage-proof.

channels-redis cleans a received message's backup in a task nobody awaits; when Redis
goes away at that moment the task's exception is logged by asyncio as "Task exception
was never retrieved", with a traceback.  Here it is one warning line: the message
stays in its backup and may be delivered again, which a consumer takes in its stride
(it re-renders and sends only what differs)."""

from __future__ import annotations

import logging
from typing import Any

from channels_redis.core import RedisChannelLayer as BaseRedisChannelLayer
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)


class RedisChannelLayer(BaseRedisChannelLayer):
    async def _clean_receive_backup(self, index: int, channel: Any) -> None:
        try:
            await super()._clean_receive_backup(index, channel)
        except (RedisError, OSError) as exc:
            logger.warning("channel layer: a receive backup was not cleaned (%s)", exc)
