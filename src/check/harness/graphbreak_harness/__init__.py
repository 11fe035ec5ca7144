"""graphbreak check harness, one module per concern (stdlib + torch only). The entry script is ../harness.py.

Below each module, only the modules it imports (an acyclic graph: tests/python/test_harness_package.py):

    records       the result record, limits, shared patterns, small utilities (imports no harness module)
    probe         `harness.py env` and importing torch
    frames        attributing frames and errors to the user's code
    case          loading the case's factory, normalizing it, compile options
    parity        comparing compiled results with eager's against a reference
    steps         running and timing steps
    profiling     --profile: phases, kernels, syncs
    dynamo_facts  explain, break records from Dynamo's logs, graph and cache counters
    trace_map     what Dynamo traced, runtime events, the build inputs of the result cache
    run_parity    Run's parity phase (a mixin)
    run_compile   Run's compile phase (a mixin)
    run           Run and run_command, where `run` and each forked child of `serve` end
    fork_server   `harness.py serve`
    entry         main: env | run | serve
"""
