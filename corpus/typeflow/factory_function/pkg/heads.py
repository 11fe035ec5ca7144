class Head:
    def compute(self, x):
        return x.sum().item()


def make_head(kind):
    if kind == "plain":
        return Head()
    raise ValueError(kind)
