"""A package whose `__init__` re-exports one private module; another private module is only
imported lazily, inside a function; a third (`_legacy`) nothing imports."""

from ._impl import Used
