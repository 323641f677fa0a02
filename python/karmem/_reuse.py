"""What ``T.decode_into`` needs to decode into an existing object: lists
cut or grown in place, and a value given to an existing one without
replacing its lists, dicts and nested objects. Decoded objects never share
parts, so a part kept here is written through one place only."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar, cast

T = TypeVar("T")


def fit(old: list[T], n: int, make: Callable[[], T]) -> list[T]:
    """``old`` cut or grown to ``n`` elements, the same list: the first
    elements are kept (to be decoded over), new ones come from ``make``."""
    if len(old) > n:
        del old[n:]
    elif len(old) < n:
        old.extend(make() for _ in range(n - len(old)))
    return old


def assign(x: Any, y: Any) -> None:
    """Gives every field of the dataclass ``x`` the value of ``y``'s (the
    same class), keeping ``x``'s parts as :func:`keep` does."""
    for f in dataclasses.fields(x):
        setattr(x, f.name, _keep(getattr(x, f.name), getattr(y, f.name)))


def keep(old: T, new: T) -> T:
    """``new``'s value in ``old`` when they are both lists, both dicts or
    both objects of one dataclass (the elements of a list kept the same
    way), else ``new``: how a decoder resets a field the message does not
    have (its default) without replacing the objects it held."""
    return cast(T, _keep(old, new))


def _keep(old: Any, new: Any) -> Any:
    if isinstance(old, list) and isinstance(new, list):
        common = min(len(old), len(new))
        for i in range(common):
            old[i] = _keep(old[i], new[i])
        del old[common:]
        old.extend(new[common:])
        return old
    if isinstance(old, dict) and isinstance(new, dict):
        old.clear()
        old.update(new)
        return old
    if type(old) is type(new) and dataclasses.is_dataclass(old):
        if old is not new:
            assign(old, new)
        return old
    return new
