"""Time limits given as one value: :class:`Timeouts`, the ``timeout=`` argument of the
clients and of every call."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

__all__ = ["Timeouts", "TimeoutArgument"]


@dataclass(frozen=True)
class Timeouts:
    """Time limits in seconds (``httpx.Timeout``'s role; the exception for a timed-out call is
    :class:`gatewire.Timeout`). A field left None keeps the value below it: the call's
    keeps the route's and the client's, the client's keeps the config's ``timeouts``
    (``connect`` 10, ``attempt`` 30, ``deadline`` none). The ranges are the library's
    (0.001...86400), checked by it.

    Attributes:
        connect: seconds to set up a connection (TCP and TLS); per client only (the config's
            ``timeouts.connect``): a call given one raises :class:`gatewire.InvalidArgument`.
        attempt: seconds per attempt (request sent to response read), as ``attempt_timeout``.
        deadline: seconds for the whole call, every attempt and retry delay included, as
            ``deadline``.
    """

    connect: float | None = None
    attempt: float | None = None
    deadline: float | None = None


#: What ``timeout=`` takes: seconds per attempt (a number, as ``requests``' and ``urllib3``'s
#: ``timeout``: each attempt has it, retries have their own), a :class:`Timeouts`, or None to
#: keep the defaults.
TimeoutArgument = Union[float, Timeouts, None]


def as_timeouts(timeout: TimeoutArgument) -> Timeouts:
    """``timeout`` as a :class:`Timeouts` (a number is the attempt's limit).

    Raises:
        TypeError: ``timeout`` is neither a number, a Timeouts nor None.
    """
    if timeout is None:
        return Timeouts()
    if isinstance(timeout, Timeouts):
        return timeout
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise TypeError(f"timeout must be a number of seconds or a gatewire.Timeouts, got {timeout!r}")
    return Timeouts(attempt=float(timeout))
