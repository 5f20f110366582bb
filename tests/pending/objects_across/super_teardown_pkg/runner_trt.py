"""OWN201 through super() across modules (the shape of TensorRT demo/Diffusion's pipeline
subclasses and Polygraphy's runners, whose deactivate/teardown call their base's): the subclass's
teardown() calls `super().teardown()`, which frees `self.workspace`, and then frees it again
(written as if the base did not). A bug wholly inside TrtRunner.teardown: reported there once,
never at its callers (app.py). The clean look-alike is
tests/fixtures/objects_across/super_teardown_pkg/.

Proof: super() in TrtRunner resolves to BaseRunner (its only base), whose teardown frees
`self.workspace` on every path. RULES.md "Ownership across the program" (MRO, super()),
"across functions" (a bug inside one function is reported there once)."""
from cuda.bindings import runtime as cudart

from runner_base import BaseRunner


class TrtRunner(BaseRunner):
    def teardown(self):
        super().teardown()
        cudart.cudaFree(self.workspace)  # E: OWN201

