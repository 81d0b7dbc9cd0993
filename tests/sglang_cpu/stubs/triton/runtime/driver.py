"""Stand-in for ``triton.runtime.driver``: there is no active GPU driver."""

from .._placeholder import unavailable


class _NoActiveDriver:
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        unavailable(f"triton.runtime.driver.active.{name}")


class _DriverConfig:
    def __init__(self):
        self.active = _NoActiveDriver()

    def set_active(self, driver):
        self.active = driver

    def reset_active(self):
        self.active = _NoActiveDriver()


driver = _DriverConfig()
