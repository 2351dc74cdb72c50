"""Where Qt meets asyncio: the service loop thread and the McpRouter.

Every route method returns a ``Pending[T]`` for its request::

    router.servers.test(server_id).then(self, on_done, on_error)   # callbacks while ``self`` lives
    pending = router.explore.try_tool(sid, name, args)
    pending.progress(self, slot).then(self, done, failed)          # this request's progress only
    pending.cancel()                                               # cancels the work on the service loop

A receiver destroyed cancels its requests; ``finished`` / ``failed`` / ``busyChanged`` / ``unanswered``
are emitted for every request as before. A route is a small declaration: ``self._core.submit(channel,
work)``, ``self._core.call(channel, Model, params, work)`` or ``self._by_id(channel, server_id, work)``.

Modules:

- ``activity``: Recent tool calls per server, kept in memory from the ``toolCalled`` signal, and what sandboxes
  blocked.
- ``app_lifecycle``: Quitting the desktop app: every way out ends in one bounded shutdown, and no server
  outlives it.
- ``channels``: Parameter models of the router channels that have no model in ``core.models``.
- ``errors``: Errors as the UI receives them: a category to branch on, a message to show, details on demand.
- ``events``: Service events re-emitted as the router's Qt signals, and the service's questions to the user.
- ``file_watch``: The window follows the config, agents and settings files when another process changes them.
- ``icons``: Icons as images the UI can show: a kept icon file drawn at a fixed size, off the UI thread.
- ``pending``: ``Pending[T]``: one request in flight, as the object a route method returns.
- ``plumbing``: The router's shared plumbing: submit work to the service loop, deliver the outcome on the UI
  thread.
- ``pool_host``: The window as the pool host: gateways and CLI commands share the window's servers while it
  runs.
- ``results``: Typed results of the router's channels that have no model in ``core.models``.
- ``results_servers``: Typed results of the server channels the Servers page reads (issue 36: no JSON dicts into
  ``ui/``).
- ``router``: ``McpRouter``: the UI's only way to the services, one route object per feature.
- ``service_loop``: The service loop: one asyncio event loop in a background thread that hosts every service.
- ``services``: The services the UI reaches through the router: the application's (``application.services``)
  plus the window's own.
- ``signals``: Every Qt signal the router emits, in one documented class, and the typed payloads they carry.
- ``routes/``: The router's routes: one plain object per feature, held by ``bridge/router.py``'s ``McpRouter``.
"""
