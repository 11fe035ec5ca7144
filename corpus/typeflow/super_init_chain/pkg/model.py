from .base import Base
from .necks import Neck


class Sub(Base):
    def __init__(self):
        super().__init__(Neck())
