class DetectionLoss:
    def __init__(self, model):
        self.stride = model.stride

    def __call__(self, preds):
        return preds.sum().item()
