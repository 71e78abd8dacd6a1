"""The ``gatewire`` logger's lines about calls, the way ``urllib3`` logs its requests (private).

A client logs each attempt at DEBUG and each retry and failed call at INFO, with no plugin
in its config. The lines are made from the core's call events (``gw_event_json``), whose
method and path the core has already redacted (README "Secrets"): this module formats, it
never sees a header or a secret. While the logger is not enabled for INFO the client has no
event monitor at all, so a silent logger costs a call nothing but one
:meth:`logging.Logger.isEnabledFor` (cached by :mod:`logging`) when it starts; an
:class:`~gatewire.AsyncClient` checks once per batch of results instead.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Callable

logger = logging.getLogger("gatewire")

__all__ = ["CallLog"]


def _outcome(event: dict[str, Any]) -> str:
    status, error = event.get("status") or 0, event.get("error")
    if error and status:
        return f"{error} (status {status})"
    return str(error or status)


def log_event(event: dict[str, Any]) -> None:
    """Logs one call event (the dict of :meth:`gatewire.Client.add_event_monitor`)."""
    kind = event.get("event")
    where = f"{event.get('method', '')} {event.get('path', '')}"
    if kind == "attempt_finished":
        logger.debug("%s attempt %d: %s in %.3f s", where, event.get("attempt") or 0, _outcome(event),
                     (event.get("timings") or {}).get("total") or 0.0)
    elif kind == "retry_scheduled":
        logger.info("%s retrying in %.3f s after attempt %d: %s", where, event.get("delay") or 0.0,
                    event.get("attempt") or 0, _outcome(event))
    elif kind == "call_finished" and event.get("error"):
        logger.info("%s failed after %d attempt(s) in %.3f s: %s", where, event.get("attempt") or 0,
                    event.get("elapsed") or 0.0, _outcome(event))


class CallLog:
    """Keeps one event monitor on a client exactly while the ``gatewire`` logger is enabled for
    INFO (DEBUG included), checked by :meth:`sync` as each call starts (a :class:`Client`) or
    after each batch of results (an :class:`AsyncClient`).

    Args:
        add: the client's ``add_event_monitor``.
        remove: the client's ``remove_event_monitor``.
    """

    def __init__(self, add: Callable[[Callable[[dict[str, Any]], None]], int], remove: Callable[[int], None]) -> None:
        self._add = add
        self._remove = remove
        self._lock = threading.Lock()
        self._monitor: int | None = None

    @property
    def in_sync(self) -> bool:
        """Whether the monitor is there exactly when the logger wants INFO (no lock): the cheap
        check a call makes before :meth:`sync`."""
        return logger.isEnabledFor(logging.INFO) is (self._monitor is not None)

    def sync(self) -> None:
        """Adds or removes the monitor to match the logger's level; any thread.

        Raises:
            GatewireError: the client is closed (from ``add``/``remove``).
        """
        wanted = logger.isEnabledFor(logging.INFO)
        if wanted == (self._monitor is not None):
            return
        with self._lock:
            if wanted and self._monitor is None:
                self._monitor = self._add(log_event)
            elif not wanted and self._monitor is not None:
                monitor, self._monitor = self._monitor, None
                self._remove(monitor)
