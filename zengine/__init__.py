"""Shim so that ``%load_ext zengine`` works; the package is :mod:`zengine_jupyter`."""

from zengine_jupyter.kernel import load_ipython_extension, unload_ipython_extension

__all__ = ["load_ipython_extension", "unload_ipython_extension"]
