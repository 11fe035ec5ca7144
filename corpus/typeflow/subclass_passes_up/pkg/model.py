from .base import Base
from .parts import build_refiner


class Middle(Base):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)


class Leaf(Middle):
    def __init__(self):
        super().__init__(refiner=build_refiner())
