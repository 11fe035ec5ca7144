"""A package whose `__init__` re-exports one private module; another private module is only
imported lazily, inside a function; two are loaded by name (`importlib.import_module`); one
(`_legacy`) nothing imports."""

from ._impl import Used
