"""A thread-safe least-recently-used map bounded by the bytes its values hold: the REST
response cache (web/response_cache.py) and /api/search's text windows
(services/search/window.py) keep their entries in one."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any


class SizedLRU:
    """``key -> value``; ``size(value)`` bytes each, at most ``max_bytes`` in all (the
    least recently used go first). ``hits`` and ``misses`` count the lookups."""

    def __init__(self, max_bytes: int, size: Callable[[Any], int]):
        self.max_bytes = max_bytes
        self.bytes = 0
        self.hits = self.misses = 0
        self._size = size
        self._entries: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: Hashable) -> Any:
        """The value under ``key`` (now the most recently used), or None."""
        with self._lock:
            value = self._entries.get(key)
            if value is None:
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            self.hits += 1
            return value

    def put(
        self, key: Hashable, value: Any, *, replaces: Callable[[Any], bool] = lambda old: True
    ) -> None:
        """Keep ``value`` under ``key``, unless the value there already stays
        (``replaces(old)`` is false); then drop the least recently used down to
        ``max_bytes``."""
        with self._lock:
            old = self._entries.get(key)
            if old is not None:
                if not replaces(old):
                    return
                self.bytes -= self._size(old)
                del self._entries[key]
            self._entries[key] = value
            self.bytes += self._size(value)
            while self.bytes > self.max_bytes and self._entries:
                _key, dropped = self._entries.popitem(last=False)
                self.bytes -= self._size(dropped)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.bytes = 0
