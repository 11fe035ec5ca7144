"""gpytorch 1.15.2 GP models and marginal log likelihoods as `graphbreak check` cases (random data, small sizes).

Users define a model as gpytorch's examples do (ExactGP with a mean and a kernel; ApproximateGP with a variational
strategy; a deep-kernel-learning model with a neural feature extractor; multitask models) and train it with the
examples' loop: `output = model(train_x); loss = -mll(output, train_y); loss.backward()`. Each training case here is
that step as one module (forward returns the loss); eval cases are the examples' prediction
`likelihood(model(test_x))` in eval mode under no_grad (with `gpytorch.settings.fast_pred_var()` where the example
uses it), returning the predictive mean and variance. 32 training points (SVGP: 16 inducing points).
"""

import math

import gpytorch
import torch
from torch import nn

N = 32


def _data(d=1, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.rand(N, d, generator=g) if d > 1 else torch.linspace(0, 1, N)
    y = torch.sin(x * (2 * math.pi)).sum(-1) if d > 1 else torch.sin(x * (2 * math.pi))
    return x, y + 0.1 * torch.randn(y.shape, generator=g)


KERNELS = {
    "rbf": lambda d: gpytorch.kernels.ScaleKernel(gpytorch.kernels.RBFKernel()),
    "matern": lambda d: gpytorch.kernels.ScaleKernel(gpytorch.kernels.MaternKernel(nu=2.5, ard_num_dims=d)),
    "spectral_mixture": lambda d: gpytorch.kernels.SpectralMixtureKernel(num_mixtures=4, ard_num_dims=d),
    "periodic_plus_linear": lambda d: gpytorch.kernels.ScaleKernel(gpytorch.kernels.PeriodicKernel())
    + gpytorch.kernels.ScaleKernel(gpytorch.kernels.LinearKernel()),
}


class ExactGPModel(gpytorch.models.ExactGP):
    def __init__(self, train_x, train_y, likelihood, kernel):
        super().__init__(train_x, train_y, likelihood)
        self.mean_module = gpytorch.means.ConstantMean()
        self.covar_module = kernel

    def forward(self, x):
        return gpytorch.distributions.MultivariateNormal(self.mean_module(x), self.covar_module(x))


class MLLStep(nn.Module):
    """The examples' training step: loss = -mll(model(train_x), train_y)."""

    def __init__(self, model, likelihood, mll):
        super().__init__()
        self.model = model
        self.likelihood = likelihood
        self.mll = mll

    def forward(self, x, y):
        output = self.model(x)
        return -self.mll(output, y).sum()


class Predict(nn.Module):
    """The examples' prediction: observed_pred = likelihood(model(test_x)); mean and variance."""

    def __init__(self, model, likelihood, fast_pred_var=False):
        super().__init__()
        self.model = model
        self.likelihood = likelihood
        self.fast_pred_var = fast_pred_var

    def forward(self, x):
        with gpytorch.settings.fast_pred_var(self.fast_pred_var):
            pred = self.likelihood(self.model(x))
            return pred.mean, pred.variance


def _exact(kernel, d):
    x, y = _data(d)
    likelihood = gpytorch.likelihoods.GaussianLikelihood()
    model = ExactGPModel(x, y, likelihood, KERNELS[kernel](d))
    if kernel == "spectral_mixture":
        model.covar_module.initialize_from_data(x, y)
    return model, likelihood, x, y


def case_exact_train(kernel="rbf"):
    torch.manual_seed(0)
    d = 1 if kernel in ("rbf", "periodic_plus_linear") else 2
    model, likelihood, x, y = _exact(kernel, d)
    mll = gpytorch.mlls.ExactMarginalLogLikelihood(likelihood, model)
    return {"model": MLLStep(model, likelihood, mll), "args": (x, y), "loss": lambda out: out}


def case_exact_predict(kernel="rbf", fast_pred_var=False):
    torch.manual_seed(0)
    d = 1 if kernel in ("rbf", "periodic_plus_linear") else 2
    model, likelihood, x, _ = _exact(kernel, d)
    test_x = torch.linspace(0, 1, 17) if d == 1 else torch.rand(17, d, generator=torch.Generator().manual_seed(3))
    return {"model": Predict(model, likelihood, fast_pred_var), "args": (test_x,)}


class SVGPModel(gpytorch.models.ApproximateGP):
    def __init__(self, inducing_points):
        variational_distribution = gpytorch.variational.CholeskyVariationalDistribution(inducing_points.size(0))
        variational_strategy = gpytorch.variational.VariationalStrategy(
            self, inducing_points, variational_distribution, learn_inducing_locations=True)
        super().__init__(variational_strategy)
        self.mean_module = gpytorch.means.ConstantMean()
        self.covar_module = gpytorch.kernels.ScaleKernel(gpytorch.kernels.RBFKernel())

    def forward(self, x):
        return gpytorch.distributions.MultivariateNormal(self.mean_module(x), self.covar_module(x))


def _svgp():
    x, y = _data(2)
    likelihood = gpytorch.likelihoods.GaussianLikelihood()
    model = SVGPModel(x[:16].clone())
    return model, likelihood, x, y


def case_svgp_train():
    """SVGP training step with the variational ELBO (minibatch of all 32 points)."""
    torch.manual_seed(0)
    model, likelihood, x, y = _svgp()
    mll = gpytorch.mlls.VariationalELBO(likelihood, model, num_data=y.size(0))
    return {"model": MLLStep(model, likelihood, mll), "args": (x, y), "loss": lambda out: out}


def case_svgp_predict():
    torch.manual_seed(0)
    model, likelihood, x, _ = _svgp()
    return {"model": Predict(model, likelihood), "args": (x[:8],)}


class FeatureExtractor(nn.Sequential):
    def __init__(self, d):
        super().__init__(nn.Linear(d, 32), nn.ReLU(), nn.Linear(32, 8), nn.ReLU(), nn.Linear(8, 2))


class DKLModel(gpytorch.models.ExactGP):
    """The deep-kernel-learning example: NN features, scaled to [-1, 1], into a grid-interpolation RBF kernel."""

    def __init__(self, train_x, train_y, likelihood):
        super().__init__(train_x, train_y, likelihood)
        self.mean_module = gpytorch.means.ConstantMean()
        self.covar_module = gpytorch.kernels.GridInterpolationKernel(
            gpytorch.kernels.ScaleKernel(gpytorch.kernels.RBFKernel(ard_num_dims=2)), num_dims=2, grid_size=16)
        self.feature_extractor = FeatureExtractor(train_x.size(-1))
        self.scale_to_bounds = gpytorch.utils.grid.ScaleToBounds(-1.0, 1.0)

    def forward(self, x):
        projected_x = self.scale_to_bounds(self.feature_extractor(x))
        return gpytorch.distributions.MultivariateNormal(self.mean_module(projected_x),
                                                         self.covar_module(projected_x))


def case_dkl_train():
    torch.manual_seed(0)
    x, y = _data(4)
    likelihood = gpytorch.likelihoods.GaussianLikelihood()
    model = DKLModel(x, y, likelihood)
    mll = gpytorch.mlls.ExactMarginalLogLikelihood(likelihood, model)
    return {"model": MLLStep(model, likelihood, mll), "args": (x, y), "loss": lambda out: out}


class MultitaskGPModel(gpytorch.models.ExactGP):
    """The multitask example: a multitask mean and an index kernel over 2 correlated tasks."""

    def __init__(self, train_x, train_y, likelihood):
        super().__init__(train_x, train_y, likelihood)
        self.mean_module = gpytorch.means.MultitaskMean(gpytorch.means.ConstantMean(), num_tasks=2)
        self.covar_module = gpytorch.kernels.MultitaskKernel(gpytorch.kernels.RBFKernel(), num_tasks=2, rank=1)

    def forward(self, x):
        return gpytorch.distributions.MultitaskMultivariateNormal(self.mean_module(x), self.covar_module(x))


def case_multitask_train():
    torch.manual_seed(0)
    x, y = _data(1)
    y2 = torch.stack([y, torch.cos(x * (2 * math.pi))], -1)
    likelihood = gpytorch.likelihoods.MultitaskGaussianLikelihood(num_tasks=2)
    model = MultitaskGPModel(x, y2, likelihood)
    mll = gpytorch.mlls.ExactMarginalLogLikelihood(likelihood, model)
    return {"model": MLLStep(model, likelihood, mll), "args": (x, y2), "loss": lambda out: out}


def case_classification_train():
    """Dirichlet-based GP classification example (exact GP on transformed labels, 2 classes batched)."""
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    x = torch.rand(N, 2, generator=g)
    labels = (x.sum(-1) > 1).long()
    likelihood = gpytorch.likelihoods.DirichletClassificationLikelihood(labels, learn_additional_noise=True)

    class DirichletGPModel(gpytorch.models.ExactGP):
        def __init__(self, train_x, train_y, likelihood, num_classes):
            super().__init__(train_x, train_y, likelihood)
            self.mean_module = gpytorch.means.ConstantMean(batch_shape=torch.Size((num_classes,)))
            self.covar_module = gpytorch.kernels.ScaleKernel(
                gpytorch.kernels.RBFKernel(batch_shape=torch.Size((num_classes,))),
                batch_shape=torch.Size((num_classes,)))

        def forward(self, x):
            return gpytorch.distributions.MultivariateNormal(self.mean_module(x), self.covar_module(x))

    model = DirichletGPModel(x, likelihood.transformed_targets, likelihood, likelihood.num_classes)
    mll = gpytorch.mlls.ExactMarginalLogLikelihood(likelihood, model)
    return {"model": MLLStep(model, likelihood, mll), "args": (x, likelihood.transformed_targets),
            "loss": lambda out: out}
