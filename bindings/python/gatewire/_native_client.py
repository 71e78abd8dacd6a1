"""The native handle of a client and the registry keys it owns (private): :class:`_NativeClient`,
shared by the clients, :class:`gatewire.Pages` and the completion paths."""

from __future__ import annotations

import threading

from . import _native
from ._callbacks import _registry
from ._exceptions import GatewireError

__all__ = ["_NativeClient"]


class _NativeClient:
    """The native handle and the registry keys a client owns; freed by :meth:`free` exactly
    once (from :meth:`Client.close`, the finaliser, or at interpreter exit).

    Whoever uses the handle holds it with :meth:`acquire`/:meth:`release`, except the C
    extension's ``start_on`` (``_completions``): it reads ``handle`` and starts a call in one
    C call under the GIL, so :meth:`free` clearing ``handle`` (under the GIL) before it frees
    the client is what keeps that path off a freed client."""

    def __init__(self) -> None:
        self.handle: int | None = None
        # `acquire` and `release` run on every call: they take the plain lock under the
        # condition (a C context manager) and notify only when `free` waits.
        self._mutex = threading.Lock()
        self.lock = threading.Condition(self._mutex)
        self.starting = 0  # gw_call_async / observer calls in progress (they return at once)
        self.plugin_keys: list[int] = []
        self.observer_keys: dict[int, int] = {}  # library observer id -> registry key
        self.monitor_keys: dict[int, int] = {}  # library event monitor id -> registry key
        self.exporter_keys: dict[int, int] = {}  # library span exporter id -> registry key
        self.measurement_keys: dict[int, int] = {}  # library measurement exporter id -> registry key

    def acquire(self) -> int:
        with self._mutex:
            if not self.handle:
                raise GatewireError("the client is closed")
            self.starting += 1
            return self.handle

    def release(self) -> None:
        with self._mutex:
            self.starting -= 1
            if self.handle is None and self.starting == 0:  # `free` waits for this
                self.lock.notify_all()

    def free(self) -> None:
        with self.lock:
            handle, self.handle = self.handle, None
            # Short calls that already hold the handle return at once; wait for them.
            self.lock.wait_for(lambda: self.starting == 0, timeout=5.0)
        if handle:
            # Blocks until the loop thread has ended (running calls complete as cancelled),
            # with the GIL released (CDLL), so their Python callbacks can still run.
            _native.lib.gw_client_free(handle)
        for key in self.plugin_keys:
            _registry.pop(key)
        for key in self.observer_keys.values():
            _registry.pop(key)
        for key in self.monitor_keys.values():
            _registry.pop(key)
        for key in self.exporter_keys.values():
            _registry.pop(key)
        for key in self.measurement_keys.values():
            _registry.pop(key)
        self.measurement_keys.clear()
        self.monitor_keys.clear()
        self.exporter_keys.clear()
        self.plugin_keys.clear()
        self.observer_keys.clear()
