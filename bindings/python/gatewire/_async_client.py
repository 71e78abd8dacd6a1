"""The asyncio client, :class:`AsyncClient` (``httpx.AsyncClient``'s shape), and how its
calls' outcomes reach the asyncio loop.

How a call's outcome reaches a coroutine, with no thread per call: each asyncio loop that
uses a client has a completion queue (:class:`_LoopQueue`, ``gw_queue``) into which the
library pushes finished results from its own loop thread. When a result lands in an empty
queue, the library's notify function (``gw_queue_set_notify``) wakes the asyncio loop for one
:meth:`_LoopQueue.drain`, which takes every waiting result with one ``gw_queue_wait`` per 256
and resolves their asyncio futures. With the binding's C extension (``_completions``) the
notify function is C: it writes to an eventfd the asyncio loop reads (``loop.add_reader``),
so the library's thread never takes the GIL; without it, a ctypes callback calls
``loop.call_soon_threadsafe``. Either way a batch of completions costs one wake-up of the
asyncio loop, and no Python code runs per call on the library's thread.
"""

from __future__ import annotations

import asyncio
import ctypes
import itertools
import os
import threading
import weakref
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, Coroutine, Iterable, Mapping, cast

from . import _exceptions, _native
from ._callbacks import _registry, check_plain_callable
from ._calllog import CallLog
from ._completions import CLIENT_CLOSED, Completions, speedups
from ._auth import RefreshingCredential
from ._base_client import _SCALARS, BaseClient, CallOptions, documents_call_options
from ._exceptions import GatewireError
from ._pagination import Pages
from ._progress import Progress, ProgressCallback
from ._result import Result, accepted
from ._config import CacheArgument, Config, CookiesArgument, TimeoutArgument
from ._tracecontext import ambient_parent

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["AsyncClient"]

_BATCH = 256  # results taken per gw_queue_wait
_BARE_LIMIT = 256  # (method, path, route) whose option-less calls' gw_call_options are kept


def _no_queue() -> _LoopQueue | None:
    """``AsyncClient._last_queue`` before any call: answers as a dead weak reference does."""
    return None


def _on_queue_notify(queue: int | None, user_data: int | None) -> None:
    """The library's notice that results wait in a loop's queue (on its loop thread)."""
    reference: weakref.ref[_LoopQueue] | None = _registry.get(user_data)
    loop_queue = reference() if reference is not None else None
    if loop_queue is not None:
        loop_queue.wake()


_QUEUE_NOTIFY = _native.QUEUE_NOTIFY_FN(_on_queue_notify)


def _on_readable(reference: weakref.ref[_LoopQueue], fd: int) -> None:
    """The loop's reader of a queue's eventfd (the extension's notifier wrote to it)."""
    try:
        os.eventfd_read(fd)
    except BlockingIOError:
        return  # drained already
    loop_queue = reference()
    if loop_queue is not None:
        loop_queue.drain()


def _free_queue(handle: int, key: int, wakeup: tuple[weakref.ref[asyncio.AbstractEventLoop], int, int] | None) -> None:
    _registry.pop(key)
    if wakeup is not None:
        loop_reference, fd, notifier = wakeup
        fast = speedups()
        assert fast is not None
        fast.notifier_close(notifier)  # no write to the fd from here on, even by a late push
        loop = loop_reference()
        if loop is not None and not loop.is_closed():
            try:
                loop.remove_reader(fd)
            except RuntimeError:
                pass  # another thread's loop, closing: its selector goes with it
        os.close(fd)
    _native.lib.gw_queue_free(handle)  # results still to come are freed by the library


def _progress_key(progress: ProgressCallback | None, loop: asyncio.AbstractEventLoop) -> int:
    """The registry key of a call's ``progress`` callable (0 for none), wrapped so that each
    report is handed to ``loop`` (``call_soon_threadsafe``: at most ten a second per attempt
    plus the finals, so one hand-over each costs little) instead of running on the library's
    loop thread."""
    if progress is None:
        return 0
    check_plain_callable(progress, "progress")

    def hand_over(report: Progress) -> None:
        try:
            loop.call_soon_threadsafe(progress, report)
        except RuntimeError:
            pass  # the loop is closed: nobody awaits the call any more

    return _registry.add(hand_over)


class _LoopQueue:
    """The completion queue of one (client, asyncio loop) pair and the futures of its calls
    in flight, keyed by tag. Used on its loop's thread only, except :meth:`wake` and, once
    the loop is closed, :meth:`discard`.

    It refers to its loop, and the registry to it, weakly: a loop that is gone (each
    ``asyncio.run`` makes one) takes its queue with it, and the queue (its eventfd and its
    ``gw_queue``) is freed then. A call whose awaiting task is cancelled (``asyncio.run``
    cancels the tasks left when it ends) leaves ``pending`` at once, so its future cannot
    keep a finished loop alive; a loop closed while tasks still await calls is kept alive by
    their futures, and :meth:`AsyncClient._loop_queue` discards its queue when the next loop
    makes its first call (:meth:`AsyncClient.aclose` at the latest)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, log: CallLog) -> None:
        self.loop = weakref.ref(loop)  # the loop, or None once it is gone
        self._log = log
        log.sync()
        out = ctypes.c_void_p()
        _exceptions.check(_native.lib.gw_queue_new(ctypes.byref(out)))
        self.handle: int = out.value or 0
        self.key = _registry.add(weakref.ref(self))
        # With the extension, the library's loop thread announces a batch by writing to an
        # eventfd the asyncio loop reads (no GIL on that thread); else through ctypes.
        fast = speedups()
        wakeup = None
        if fast is not None:
            fd = os.eventfd(0, os.EFD_CLOEXEC | os.EFD_NONBLOCK)
            notifier, notify = fast.notifier(fd)
            wakeup = (self.loop, fd, notifier)
            loop.add_reader(fd, _on_readable, weakref.ref(self), fd)
            status = _native.lib.gw_queue_set_notify(self.handle, _native.QUEUE_NOTIFY_FN(notify), notifier)
        else:
            status = _native.lib.gw_queue_set_notify(self.handle, _QUEUE_NOTIFY, self.key)
        self._finalizer = weakref.finalize(self, _free_queue, self.handle, self.key, wakeup)
        _exceptions.check(status)
        self.pending: dict[int, asyncio.Future[Result | GatewireError]] = {}
        self.retry_keys: dict[int, int] = {}  # tag -> registry key of the call's retry_test
        self.tags = itertools.count(1)
        self.completions = Completions(_BATCH)

    def wake(self) -> None:
        """Schedule one drain on the loop (any thread); nothing if the loop is closed."""
        loop = self.loop()
        if loop is None:
            return  # the loop is gone: its calls' results are freed with the queue
        try:
            loop.call_soon_threadsafe(self.drain)
        except RuntimeError:
            pass  # the loop is closed: the same

    def drain(self) -> None:
        """Take every waiting result and resolve its future (on the loop); then match the
        client's ``gatewire`` log monitor to the logger's level, for the calls started next
        (a check per batch of results, not per call: :class:`AsyncClient`)."""
        if not self._finalizer.alive:
            return
        pending, retry_keys = self.pending, self.retry_keys
        while True:
            taken = self.completions.take(self.handle, 0.0)
            for tag, outcome in taken:
                if retry_keys:  # the call has ended: its retry test is asked no more
                    _registry.pop(retry_keys.pop(tag, 0))
                future = pending.pop(tag, None)  # None: its task was cancelled
                if future is not None and not future.done():
                    future.set_result(outcome)
            if len(taken) < _BATCH:
                break
        if not self._log.in_sync:
            try:
                self._log.sync()
            except GatewireError:
                pass  # the client is closed: no call starts any more

    def close(self) -> None:
        """Resolve what has arrived, then free the queue (on the loop)."""
        self.drain()
        self._finalizer()

    def discard(self) -> None:
        """Free the queue of a closed loop (any thread: nothing runs on that loop any more).
        The futures of its calls are dropped unresolved (their tasks can never resume); the
        results of the calls still running are freed by the library as they arrive."""
        self.pending.clear()
        for key in self.retry_keys.values():
            _registry.pop(key)  # a retry test asked meanwhile finds none: the policy decides
        self.retry_keys.clear()
        self._finalizer()


class AsyncClient(BaseClient):
    """A Gatewire client for asyncio: each call is a coroutine, awaited for its
    :class:`Result` (or the :class:`CallError` it raises)::

        import asyncio
        import gatewire

        async def main() -> None:
            async with gatewire.AsyncClient("http://127.0.0.1:8080") as client:  # a local httpbin
                pages = await asyncio.gather(*(client.get("/anything/:n", params={"n": n}) for n in range(3)))
                print([page.json()["url"][-1] for page in pages])                  # ['0', '1', '2']
                missing = await client.get("/status/404", accept_any_status=True)
                print(missing.status_code, missing.ok)                              # 404 False

        asyncio.run(main())

    The arguments are those of :class:`Client` (the same config, plugins, credential,
    ``timeout``, ``cookies``, ``cache``); so are the calls' keyword arguments (:class:`CallOptions`), results and
    errors. A call is started by the coroutine that awaits it and runs on the library's own
    event-loop thread, so the asyncio loop never blocks on the network; its outcome comes
    back with others in one wake-up of the asyncio loop per batch (module docs).

    Any number of asyncio loops, in any threads, may use one AsyncClient at once (each has
    its own completion queue, freed with its loop: at once when the loop ends with its tasks
    done or cancelled, as ``asyncio.run`` leaves them; for a loop closed while tasks still
    await calls, when the next loop makes its first call, or at :meth:`aclose`). Cancelling
    the task that awaits a call cancels the call: the request in flight is aborted (its
    connection closed) or the retry delay stopped, and the failure observers see a
    :class:`Cancelled` failure as for :meth:`CallFuture.cancel`.

    Calls log to the ``gatewire`` logger as :class:`Client`'s do. Its level is read when a
    loop makes its first call and after each batch of results, not per call (the check would
    cost a call about 2%): a level set while calls run applies to the calls that start after
    the next batch has arrived.

    Hooks (plugins, observers, event monitors, ``retry_test``) stay plain callables: they run
    on the library's loop thread, not on the asyncio loop, and must return at once; a
    coroutine function raises TypeError. To start async work from a hook, hand it to the
    asyncio loop with ``loop.call_soon_threadsafe``.

    Close it with :meth:`aclose` or ``async with``; calls still running complete as
    :class:`Cancelled`.

    Raises:
        ConfigError, InvalidArgument, TypeError, OSError: as :class:`Client` raises them, for
            the same arguments.
    """

    def __init__(
        self,
        base_url: str | None = None,
        *,
        config: Config | None = None,
        config_path: str | os.PathLike[str] | None = None,
        plugins: Iterable[Any] = (),
        random_seed: int | None = None,
        credential: RefreshingCredential | None = None,
        timeout: TimeoutArgument = None,
        cookies: CookiesArgument = None,
        cache: CacheArgument = None,
    ) -> None:
        super().__init__(base_url, config=config, config_path=config_path, plugins=plugins,
                         random_seed=random_seed, credential=credential, timeout=timeout, cookies=cookies,
                         cache=cache)
        self._queues: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopQueue] = weakref.WeakKeyDictionary()
        self._queues_lock = threading.Lock()
        # The queue of the loop that called last, weakly: it must not outlive its loop.
        self._last_queue: Callable[[], _LoopQueue | None] = _no_queue
        # (method, path, route, options, their types, (gw_call_options, address)) of the last
        # call with scalar options and no hooks; the options of option-less calls by (method, path, route)
        self._last_options: tuple[Any, ...] | None = None
        self._bare: dict[tuple[str | None, str | None, str | None], tuple[_native.CallOptionsStruct, int]] = {}

    # -- lifecycle -----------------------------------------------------------------------
    async def aclose(self) -> None:
        """Close the client (as :meth:`Client.close`): calls still running complete as
        :class:`Cancelled`, their awaiting coroutines raise it. Idempotent. Blocks this loop
        until the library's loop thread has ended (calls end at once: they are cancelled)."""
        self._finalizer()
        with self._queues_lock:
            queues = list(self._queues.items())
            self._queues.clear()
            self._last_queue = _no_queue
        running = asyncio.get_running_loop()
        for loop, loop_queue in queues:
            if loop is running:
                loop_queue.close()
            else:
                try:
                    loop.call_soon_threadsafe(loop_queue.close)
                except RuntimeError:
                    loop_queue._finalizer()  # that loop is closed: nobody awaits its calls

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"<gatewire.AsyncClient {'closed' if self.closed else 'open'}>"

    # -- calls ---------------------------------------------------------------------------
    def _loop_queue(self, loop: asyncio.AbstractEventLoop) -> _LoopQueue:
        """The queue of ``loop``, made on its first call (``_call`` checks ``_last_queue``
        first). A new loop's first call also frees the queues of the loops closed meanwhile
        with calls in flight (``_LoopQueue``), so closed loops hold no eventfd for long."""
        with self._queues_lock:
            loop_queue = self._queues.get(loop)
            if loop_queue is None:
                for other, closed in list(self._queues.items()):
                    if other.is_closed():  # not running, and never again: its queue is idle
                        del self._queues[other]
                        closed.discard()
                loop_queue = self._queues[loop] = _LoopQueue(loop, self._log)
            self._last_queue = weakref.ref(loop_queue)
            return loop_queue

    def _native_options(self, method: str | None, path: str | None, route: str | None, options: Mapping[str, Any],
                        retry_key: int, progress_key: int) -> tuple[_native.CallOptionsStruct, int]:
        """The call's ``gw_call_options`` and its address. The library copies the options, and
        building them is most of the binding's cost of a call, so they are reused: a call
        without options takes those of the last call to the same (method, path, route) from
        ``_bare``; one with scalar-only options (values and their types) and no hooks, those
        of the last such call, as ``call_many`` does. Not while an OpenTelemetry span is
        current: its context, the call's parent, differs from call to call."""
        if ambient_parent() is not None:
            built = self._options(method, path, route, options, retry_key, progress_key)
            return built, ctypes.addressof(built)
        if not options:
            key = (method, path, route)
            bare = self._bare.get(key)
            if bare is None:
                built = self._options(method, path, route, options, 0, 0)
                bare = (built, ctypes.addressof(built))
                if len(self._bare) >= _BARE_LIMIT:
                    self._bare.clear()
                self._bare[key] = bare
            return bare
        hooked = retry_key or progress_key
        types = tuple(map(type, options.values()))
        last = self._last_options  # one tuple: safe to read while another thread replaces it
        if (not hooked and last is not None and last[0] == method and last[1] == path and last[2] == route
                and last[3] == options and last[4] == types):
            return cast(tuple[_native.CallOptionsStruct, int], last[5])
        built = self._options(method, path, route, options, retry_key, progress_key)
        made = (built, ctypes.addressof(built))
        if not hooked and all(kind in _SCALARS for kind in types):
            self._last_options = (method, path, route, dict(options), types, made)
        return made

    async def _call(self, method: str | None, path: str | None, route: str | None, options: Mapping[str, Any]) -> Result:
        loop = asyncio.get_running_loop()
        loop_queue = self._last_queue()  # most programs run one loop: no lock, no weak dict
        if loop_queue is None or loop_queue.loop() is not loop:
            loop_queue = self._loop_queue(loop)
        retry_key = progress_key = 0
        if options:
            retry_test, progress = options.get("retry_test"), options.get("progress")
            if retry_test is not None:
                check_plain_callable(retry_test, "retry_test")
                retry_key = _registry.add(retry_test)
            if progress is not None:
                try:
                    progress_key = _progress_key(progress, loop)
                except BaseException:
                    _registry.pop(retry_key)
                    raise
        tag = next(loop_queue.tags)
        future: asyncio.Future[Result | GatewireError] = loop.create_future()
        loop_queue.pending[tag] = future
        if retry_key:
            loop_queue.retry_keys[tag] = retry_key
        completions = loop_queue.completions
        try:
            native_options = self._native_options(method, path, route, options, retry_key, progress_key)
            status, call = completions.start_on(self._native, native_options[1], loop_queue.handle, tag, True)
            if status != _native.GW_OK:
                if status == CLIENT_CLOSED:
                    raise GatewireError("the client is closed")
                _exceptions.raise_status(status, _native.last_error_message())
        except BaseException:
            loop_queue.pending.pop(tag, None)
            loop_queue.retry_keys.pop(tag, None)
            _registry.pop(retry_key)
            _registry.pop(progress_key)
            raise
        try:
            outcome = await future
        except asyncio.CancelledError:
            _native.lib.gw_call_cancel(call)
            # Its result finds no future: none keeps this loop alive once its tasks are done.
            loop_queue.pending.pop(tag, None)
            raise
        finally:
            completions.release(call)
            if progress_key:
                _registry.pop(progress_key)  # a cancelled call's last reports find nothing
        if type(outcome) is Result:
            return outcome
        outcome = accepted(outcome, bool(options.get("accept_any_status")))
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    # The calls are plain functions that return the coroutine of _call (one coroutine per
    # call, not two): awaited, or given to asyncio.create_task, as an ``async def`` would be.
    @documents_call_options
    def call(self, method: str, path: str, **options: Unpack[CallOptions]) -> Coroutine[Any, Any, Result]:
        """Send a call; awaited, it returns the call's :class:`Result` when the call completes
        (retries included). The arguments, result and errors are those of :meth:`Client.call`;
        the errors are raised when the coroutine is awaited.

        Args:
            method: ``"GET"``, ``"POST"``, ... (case-insensitive).
            path: relative to the base URL; ``:name`` segments are filled from ``params``.
            **options: the call's keyword arguments, each documented in :class:`CallOptions`;
                {call_options}

        Raises:
            CallError: the call failed (a subclass per kind); :class:`Cancelled` when the
                client was closed meanwhile.
            asyncio.CancelledError: the awaiting task was cancelled (the call is cancelled).
            InvalidArgument, TypeError, GatewireError: as for :meth:`Client.call` (before
                anything is sent).
            RuntimeError: no running asyncio loop.
        """
        return self._call(method, path, None, options)

    @documents_call_options
    def call_route(self, route: str, **options: Unpack[CallOptions]) -> Coroutine[Any, Any, Result]:
        """Call the configured route ``route``; as :meth:`Client.call_route`, awaited as
        :meth:`call`.

        Args:
            route: a route name of the gateway config.
            **options: the call's keyword arguments, each documented in :class:`CallOptions`;
                {call_options}
        """
        return self._call(None, None, route, options)

    def get(self, path: str, **options: Unpack[CallOptions]) -> Coroutine[Any, Any, Result]:
        """``call("GET", path, **options)``: see :meth:`call`."""
        return self._call("GET", path, None, options)

    def post(self, path: str, **options: Unpack[CallOptions]) -> Coroutine[Any, Any, Result]:
        """``call("POST", path, **options)``: see :meth:`call`."""
        return self._call("POST", path, None, options)

    def put(self, path: str, **options: Unpack[CallOptions]) -> Coroutine[Any, Any, Result]:
        """``call("PUT", path, **options)``: see :meth:`call`."""
        return self._call("PUT", path, None, options)

    def patch(self, path: str, **options: Unpack[CallOptions]) -> Coroutine[Any, Any, Result]:
        """``call("PATCH", path, **options)``: see :meth:`call`."""
        return self._call("PATCH", path, None, options)

    def delete(self, path: str, **options: Unpack[CallOptions]) -> Coroutine[Any, Any, Result]:
        """``call("DELETE", path, **options)``: see :meth:`call`."""
        return self._call("DELETE", path, None, options)

    def head(self, path: str, **options: Unpack[CallOptions]) -> Coroutine[Any, Any, Result]:
        """``call("HEAD", path, **options)``: see :meth:`call`."""
        return self._call("HEAD", path, None, options)

    async def pages(
        self,
        route: str,
        *,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        max_retries: int | None = None,
        attempt_timeout: float | None = None,
        deadline: float | None = None,
        timeout: TimeoutArgument = None,
    ) -> AsyncIterator[Result]:
        """The pages of the configured route ``route``, as :meth:`Client.pages`:
        ``async for page in client.pages("issues"): ...``.

        The library's paginator fetches a page with a blocking call, so each page is fetched
        in the loop's default executor (one pooled thread at a time, not one per page); a
        task cancelled meanwhile returns at once, and the walk is freed once that page has
        arrived.

        Raises:
            InvalidArgument: the route has no pagination; a failed page raises its CallError.
        """
        walk = self._pages(route, {
            "params": params, "headers": headers, "max_retries": max_retries,
            "attempt_timeout": attempt_timeout, "deadline": deadline, "timeout": timeout,
        })  # fmt: skip
        busy = threading.Lock()  # held while a pooled thread fetches a page
        loop = asyncio.get_running_loop()
        try:
            while True:
                page = await loop.run_in_executor(None, _next_page, walk, busy)
                if page is None:
                    return
                yield page
        finally:
            if busy.acquire(blocking=False):
                try:
                    walk.close()
                finally:
                    busy.release()
            else:  # cancelled while a page is being fetched: free the walk once it has arrived
                threading.Thread(target=_close_when_idle, args=(walk, busy), name="gatewire-pages-close").start()

def _next_page(walk: Pages, busy: threading.Lock) -> Result | None:
    """The next page, or None at the end (StopIteration cannot cross an executor's future)."""
    with busy:
        return next(walk, None)


def _close_when_idle(walk: Pages, busy: threading.Lock) -> None:
    with busy:
        walk.close()

