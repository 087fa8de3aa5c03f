"""Memoising pure functions within one process: a config's claims share what they would each recompute.

``memoised(maxsize)`` caches per arguments with typed keys (``True`` or ``2.0`` never hits the entry of an equal
int) when the arguments hash; unhashable arguments are computed every time. Nothing outlives the process, and
callers keep arrays they return read-only.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, wraps
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def memoised(maxsize: int) -> Callable[[F], F]:
    """Decorator: ``f(*args, **kwargs)`` once per distinct hashable arguments (at most ``maxsize`` kept, least
    recently used dropped; a call spelling an argument by keyword is its own entry); unhashable ones every time.

    >>> calls = []
    >>> @memoised(4)
    ... def square(x):
    ...     calls.append(x)
    ...     return x * x
    >>> square(3), square(3), square([3][0]), len(calls)
    (9, 9, 9, 1)
    """

    def decorate(f: F) -> F:
        cached = lru_cache(maxsize=maxsize, typed=True)(f)

        @wraps(f)
        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                hash((args, *kwargs.items()))
            except TypeError:
                return f(*args, **kwargs)
            return cached(*args, **kwargs)

        call.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
        return call  # type: ignore[return-value]

    return decorate
