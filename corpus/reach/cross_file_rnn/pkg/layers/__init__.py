from pkg.layers.recurrent import Lstm

__all__ = ["Lstm"]
