class Refiner:
    def refine(self, x):
        return x.sum().item()


def build_refiner():
    return Refiner()
