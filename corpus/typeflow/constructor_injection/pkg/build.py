from .model import Detector
from .parts import Backbone, Head


def build_detector():
    return Detector(Backbone(), head=Head())
