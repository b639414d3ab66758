"""The op conformance kit: checks an executor against eager PyTorch (issue #16; docs/conformance.md).

Run as a pytest plugin (entry point ``pytest11``, ``thunder_conformance``; a no-op unless
``--thunder-executor`` is given)::

    pytest --pyargs thunder_core.testing.conformance --thunder-executor NAME [--thunder-ops PATTERNS]
           [--thunder-target cpu|cuda|h100] [--thunder-xfails FILE] [--thunder-max-examples N]

One concept per module:

* ``plugin.py``: the pytest options, profiles, parametrization, xfails and summary;
* ``test_kit.py``: the tests the plugin parametrizes (collected by ``--pyargs``);
* ``runner.py``: what each test does (hypothesis searches, OpInfo samples, claims, plans);
* ``discovery.py``: which symbols an executor claims, alone or in regions (probes);
* ``strategies.py``: hypothesis strategies from a symbol's signature and traits;
* ``cases.py``: examples as data whose repr is Python (``Case``, ``ChainCase``, ``TensorSpec``);
* ``check.py``: one example through ``tc.jit`` against eager (values, what ran, gradients);
* ``executors.py``: the executor under test, and the penalized fallback it runs with;
* ``targets.py``: where examples run (``cpu``, ``cuda``) or are only planned (a GPU profile);
* ``opinfo.py``: PyTorch's OpInfo samples, and the known-symbol coverage of ``op_db``;
* ``xfails.py``: the plugin author's known failures; ``repro.py``: one-line reproducers.
"""
