"""Polygraphy's runner base class (TensorRT tools/Polygraphy/polygraphy/backend/base/runner.py,
reduced; see app.py): activate() and deactivate() are guarded by the flag `is_active`, which each
sets, and call the subclass's activate_impl() / deactivate_impl(); `with runner:` activates and
deactivates."""


class BaseRunner:
    def __init__(self, name):
        self.name = name
        self.is_active = False

    def __enter__(self):
        self.activate()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self.deactivate()

    def activate_impl(self):
        pass

    def activate(self):
        if self.is_active:
            return
        self.activate_impl()
        self.is_active = True

    def deactivate_impl(self):
        pass

    def deactivate(self):
        if not self.is_active:
            return
        self.deactivate_impl()
        self.is_active = False
