"""The service loop: one asyncio event loop in a background thread that hosts every service.

The UI thread submits coroutines with :meth:`ServiceLoop.submit` and never waits on them;
results come back through ``concurrent.futures.Future`` callbacks, which the router turns
into queued Qt signals. Services are built lazily on the loop by a factory coroutine, so
``import mcp`` and file I/O happen off the UI thread and the window shows at once.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Generic, TypeVar

log = logging.getLogger(__name__)

S = TypeVar("S")
T = TypeVar("T")
STOP_GRACE = 2.0  # seconds the cancelled requests get to wind down when the loop stops


class ServiceLoopStopped(RuntimeError):
    """A request came after the service loop stopped (the app is quitting)."""


class ServiceLoop(Generic[S]):
    """Runs an asyncio loop in a daemon thread and builds the services on it on first use."""

    def __init__(self, factory: Callable[[], Awaitable[S]], name: str = "elftia-services") -> None:
        self._factory = factory
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._services: asyncio.Future[S] | None = None
        self._started = False
        self._stopped = False
        self._built_hooks: list[Callable[[S], None]] = []
        self._hooks_lock = threading.Lock()
        self._built: S | None = None

    def start(self) -> None:
        """Start the thread (idempotent)."""
        if not self._started:
            self._started = True
            self._thread.start()

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The service loop (for ``call_soon_threadsafe``)."""
        return self._loop

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_forever()
        pending = asyncio.all_tasks(self._loop)  # requests still running at quit: end them, quietly
        for task in pending:
            task.cancel()
        if pending:
            _, stuck = self._loop.run_until_complete(asyncio.wait(pending, timeout=STOP_GRACE))
            for task in stuck:  # e.g. a subprocess cancelled while its pipes were being connected (asyncio 3.11)
                log.warning("Left unfinished at quit: %s", task.get_coro())
        self._loop.run_until_complete(self._loop.shutdown_asyncgens())
        self._loop.close()

    def when_built(self, hook: Callable[[S], None]) -> None:
        """Run ``hook(services)`` on the loop once the services are built, before any work gets them.

        Registered after the build, it runs at once on the loop. Each hook runs exactly once.
        """
        with self._hooks_lock:
            built = self._built
            if built is None:
                self._built_hooks.append(hook)
                return
        self.start()
        self._loop.call_soon_threadsafe(hook, built)

    async def _build(self) -> S:
        services = await self._factory()
        with self._hooks_lock:
            self._built = services
            hooks, self._built_hooks = self._built_hooks, []
        for hook in hooks:
            try:
                hook(services)
            except Exception:
                log.exception("A hook on the built services failed")
        return services

    async def services(self) -> S:
        """The services, built by the factory on first use (on the loop)."""
        if self._services is None:
            self._services = asyncio.ensure_future(self._build())
        return await asyncio.shield(self._services)

    def submit(self, work: Callable[[S], Coroutine[Any, Any, T]]) -> concurrent.futures.Future[T]:
        """Run ``work(services)`` on the loop; returns at once with a future.

        After :meth:`stop`, the future fails at once with ``ServiceLoopStopped``.
        """
        if self._stopped:
            future: concurrent.futures.Future[T] = concurrent.futures.Future()
            future.set_exception(ServiceLoopStopped("The app is shutting down; the request was not run."))
            return future
        self.start()

        async def runner() -> T:
            """The work on the open services."""
            return await work(await self.services())

        return asyncio.run_coroutine_threadsafe(runner(), self._loop)

    @property
    def built(self) -> bool:
        """Whether the services were asked for (so there is something to clean up)."""
        return self._services is not None

    def stop(self, cleanup: Callable[[S], Coroutine[Any, Any, None]] | None = None, timeout: float = 10.0) -> None:
        """Run ``cleanup``, then stop the loop and join the thread, all within ``timeout`` seconds."""
        if not self._started or self._stopped:
            self._stopped = True
            return
        deadline = time.monotonic() + timeout
        if cleanup is not None and self._services is not None:
            future = self.submit(cleanup)
            try:
                future.result(timeout=timeout)
            except Exception:
                log.exception("Cleanup of the services failed")
        self._stopped = True
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=max(0.05, deadline - time.monotonic()))
