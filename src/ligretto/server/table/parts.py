"""How a :class:`~ligretto.server.table.table.Table` shows what its parts hold as its own
attributes: ``table.seats`` is ``table.seating.seats``, read and written through the table
(:class:`Through`), so the table's callers need not know which part holds what.
"""

from __future__ import annotations

from typing import Generic, TypeVar, cast, overload

T = TypeVar("T")


class Through(Generic[T]):
    """An attribute of one of its owner's parts (the owner's attribute ``part``), read and
    written through the owner under the same name: in ``class Table``,
    ``seats: Through[list[Seat | None]] = Through("seating")``."""

    def __init__(self, part: str) -> None:
        self.part = part
        self.name = ""

    def __set_name__(self, owner: type[object], name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type[object]) -> Through[T]: ...
    @overload
    def __get__(self, instance: object, owner: type[object]) -> T: ...
    def __get__(self, instance: object | None, owner: type[object]) -> Through[T] | T:
        if instance is None:
            return self
        return cast(T, getattr(getattr(instance, self.part), self.name))

    def __set__(self, instance: object, value: T) -> None:
        setattr(getattr(instance, self.part), self.name, value)
