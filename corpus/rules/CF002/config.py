"""Configuration classes the CF002 corpus reads defaults from (the rule reads these class bodies)."""

from dataclasses import dataclass, field

try:
    from pydantic import BaseModel, Field
except ImportError:
    # The proofs run where pydantic is not installed: a stand-in with pydantic's behaviour for
    # what the corpus uses (class-body defaults, keyword overrides).
    class BaseModel:
        def __init__(self, **values):
            for name, value in values.items():
                setattr(self, name, value)

    def Field(default, **_):
        return default


class ModelConfig(BaseModel):
    name: str = "detector"
    compile: bool = False


class TrainConfig(BaseModel):
    epochs: int = 100
    multi_scale: bool = True
    ema: bool = Field(False, description="keep an EMA copy")


@dataclass
class BaseRunConfig:
    debug: bool = field(default=True)


@dataclass
class RunConfig(BaseRunConfig):
    use_compile: bool = False
    amp: bool = False
