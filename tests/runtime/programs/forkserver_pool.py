"""A multiprocessing Pool of forkserver workers, no CUDA anywhere: each worker restores the
forkserver's signal handlers (signal.signal with what signal.getsignal returned)."""
import multiprocessing


def square(x):
    return x * x


if __name__ == "__main__":
    with multiprocessing.get_context("forkserver").Pool(2) as pool:
        print(pool.map(square, range(8)))
