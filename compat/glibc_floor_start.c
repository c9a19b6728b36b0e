// The executable's entry point when it is linked for an older glibc (SL_GLIBC_FLOOR; the link
// says -e sl_start). The C runtime's own _start, from glibc >= 2.34, passes no initialiser to
// __libc_start_main and leaves running the executable's constructors to it; glibc < 2.34 does
// not, and runs the initialiser it is given instead, so with that _start no C++ global would be
// constructed there. This one passes sl_init, which runs them as glibc < 2.34's __libc_csu_init
// did. glibc >= 2.34 runs the initialiser it is given instead of its own walk ("legacy program"),
// so the constructors run once on either. The executable's destructors are run by the dynamic
// loader on both (fini is NULL, as in glibc's start files for dynamic executables).
#include <stddef.h>

#define SL_HIDDEN __attribute__((visibility("hidden")))

typedef void (*sl_init_fn)(int, char**, char**);
extern void _init(void);  // crti.o's .init section
extern sl_init_fn __init_array_start[] SL_HIDDEN;  // both defined by the linker
extern sl_init_fn __init_array_end[] SL_HIDDEN;

SL_HIDDEN void sl_init(int argc, char** argv, char** envp) {
  _init();
  size_t n = (size_t)(__init_array_end - __init_array_start);
  for (size_t i = 0; i < n; i++) __init_array_start[i](argc, argv, envp);
}

// The x86-64 process entry (System V ABI): %rdx holds the loader's finaliser, the stack holds
// argc then argv. Calls __libc_start_main(main, argc, argv, sl_init, NULL, rtld_fini, stack_end).
__asm__(
    ".text\n"
    ".globl sl_start\n"
    ".hidden sl_start\n"
    ".type sl_start, @function\n"
    "sl_start:\n"
    ".cfi_startproc\n"
    ".cfi_undefined rip\n"
    "  xorl %ebp, %ebp\n"  // the outermost frame
    "  movq %rdx, %r9\n"   // rtld_fini
    "  popq %rsi\n"        // argc
    "  movq %rsp, %rdx\n"  // argv
    "  andq $-16, %rsp\n"
    "  pushq %rax\n"  // keeps the stack 16-byte aligned at the call
    "  pushq %rsp\n"  // stack_end
    "  xorl %r8d, %r8d\n"
    "  leaq sl_init(%rip), %rcx\n"
    "  movq main@GOTPCREL(%rip), %rdi\n"
    "  call *__libc_start_main@GOTPCREL(%rip)\n"
    "  hlt\n"
    ".cfi_endproc\n"
    ".size sl_start, .-sl_start\n");
