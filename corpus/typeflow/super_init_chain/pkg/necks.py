class Neck:
    def run(self, x):
        return x.sum().item()


def build_neck():
    return Neck()
