"""mcsa_cli.lazy: a module loaded at its first use, from several threads at once.

Each probe runs in a fresh interpreter (scipy not yet imported): 16 threads wait at a barrier,
then read one attribute each of five lazily loaded scipy modules.  The standard library's
LazyLoader fails this on Python 3.11 (13 of 16 threads saw a half-executed module here).
"""

import subprocess
import sys

import pytest

PROBE = r'''
import sys, threading
from types import ModuleType
sys.setswitchinterval(1e-6)
from mcsa_cli.lazy import lazy_module
make = {"lazy": lazy_module, "planted": ModuleType}[sys.argv[1]]
want = {"scipy.stats": "norm", "scipy.optimize": "brentq", "scipy.integrate": "quad",
        "scipy.linalg": "expm", "scipy.special": "gammaln"}
mods = {n: make(n) for n in want}
loaded_before = "scipy.stats" in sys.modules
errors, gate = [], threading.Barrier(16)
def touch(n):
    gate.wait()
    try:
        getattr(mods[n], want[n])
    except Exception as e:
        errors.append(f"{n}: {type(e).__name__}")
names = list(want)
threads = [threading.Thread(target=touch, args=(names[i % 5],)) for i in range(16)]
[t.start() for t in threads]
[t.join() for t in threads]
same = all(getattr(mods[n], want[n]) is getattr(sys.modules[n], want[n]) for n in want
           if n in sys.modules)
print(loaded_before, len(errors), same)
'''


def _probe(kind):
    r = subprocess.run([sys.executable, "-c", PROBE, kind], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    loaded_before, errors, same = r.stdout.split()
    return loaded_before == "True", int(errors), same == "True"


def test_first_use_from_16_threads_at_once_sees_the_whole_module():
    loaded_before, errors, same = _probe("lazy")
    assert not loaded_before  # still lazy: nothing imported before the first attribute access
    assert errors == 0
    assert same  # the stand-in's attributes are the real module's


def test_the_probe_sees_a_broken_module():  # the check above can fail
    _, errors, _ = _probe("planted")
    assert errors == 16


def test_a_missing_module_is_refused_at_once():
    from mcsa_cli.lazy import lazy_module

    with pytest.raises(ModuleNotFoundError):
        lazy_module("mcsa_no_such_module")
