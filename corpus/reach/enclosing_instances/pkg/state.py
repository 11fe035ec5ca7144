"""Instances a traced function reads from an enclosing scope: a module-level instance and a
closure variable. Dynamo runs their methods (and the dunders `obj.attr = v` implies) inline."""

import torch


class Store:
    def __setattr__(self, name, value):
        torch._dynamo.graph_break()  # reached: `store.last = x` / `local.last = x`
        object.__setattr__(self, name, value)

    def lookup(self, x):
        print("lookup")  # reached: `store.lookup(x)`
        return x


store = Store()


def forward_step(x):
    store.last = x
    return store.lookup(x) + 1


def make_step():
    local = Store()

    def step(x):
        local.last = x
        return x * 2

    return step


def case_module_instance():
    return forward_step, (torch.randn(3),)


def case_closure_instance():
    return make_step(), (torch.randn(3),)
