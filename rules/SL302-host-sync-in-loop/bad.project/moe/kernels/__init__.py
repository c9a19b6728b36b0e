# The package re-exports its kernels' helpers: callers import them from here.
from .offsets import group_start_rows, padded_size
