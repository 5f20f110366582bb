"""OWN201 through an object in an attribute, a release method that clears the wrong field, and
a base class's flag-guarded protocol, across four modules (TensorRT tools/Polygraphy: cuda.py's
Stream, backend/base/runner.py's BaseRunner, backend/trt/runner.py's TrtRunner). The caller
calls deactivate_impl() directly (base/runner.py's warning suggests it: "If you really want to
deactivate this runner, call deactivate_impl() directly"), which frees the runner's stream but
leaves `is_active` set; deactivate() then runs deactivate_impl() again: the stream is destroyed
twice.

Proof: `self.stream` holds the Stream that activate_impl() (reached through the inherited
activate()) made; Stream.free() destroys `ptr` on every path and never clears it; `is_active` is
True after activate() and nothing in deactivate_impl() changes it, so deactivate()'s guard lets
the second free through. RULES.md "Ownership across the program" (objects in attributes, MRO),
"Release methods are protocols" (flags set in the same method are followed); reported at the
deactivate() call, the caller's call site of the second free. The clean look-alike is
tests/fixtures/protocols/polygraphy_runner_pkg/."""
from trt_runner import TrtRunner


def run():
    runner = TrtRunner()
    runner.activate()
    runner.infer()
    runner.deactivate_impl()
    runner.deactivate()  # E: OWN201
