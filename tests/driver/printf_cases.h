// The printf calls of printf_all.cu, shared with the host reference printf_host.c: EACH(s)
// runs statement s for one thread `t` (the kernel) or for every thread in turn (the host),
// so both print the same lines in the order a warp prints them: each call for lanes 0..n-1.
#define PRINTF_CASES(EACH)                                                                     \
    EACH(printf("int: %d %i [%5d] [%-5d] %+d [% d] %05d %hd %hhd %d\n", t - 3, t * 1000,       \
                t, t, t, t, t, (short)(t * 5000 + 30000), (char)(t * 100), -2147483647 - 1));  \
    EACH(printf("unsigned: %u %o %x %X %#x %#o %lu %llx %hu %hhx\n", 4000000000u + t, t * 8u, \
                t * 0xabcdu, t * 0xabcdu, t, t * 9u, 18000000000000000000ul + t,               \
                0xfedcba9876543210ull + t, (unsigned short)(t * 30000),                        \
                (unsigned char)(t * 77)));                                                     \
    EACH(printf("long: %ld %lld %lli %zu %jd %td %lo\n", -9000000000000000000l + t,           \
                -(long long)t * 123456789012ll, 5ll * t, (size_t)t * 3, (intmax_t)t * -7,      \
                (ptrdiff_t)t - 2, 01234567012345670l));                                       \
    EACH(printf("float: %f %F %e %E %g %G %a %A\n", t * 1.5 - 2.25, t * 1e10, t * 3.25e-7,   \
                t * 3.25e-7, t * 0.0001, t * 1e20, t * 0.75, t * -0.75));                      \
    EACH(printf("special: %f %e %g %F %f %.3f\n", (double)INFINITY, -(double)INFINITY,        \
                (double)NAN, (double)INFINITY, 0.0 * -1.0, 1.0 / 3.0));                        \
    EACH(printf("precision: %.3f [%10.4e] [%-12.2g] %.0f %#.0f %.10g %#g %.0e\n", t / 7.0,    \
                t * 12345.678, t * 0.000123, t + 0.5, (double)t, 1.0 / (t + 1), (double)t,     \
                t * 25.0));                                                                    \
    EACH(printf("float arg: %f %g %.9g\n", (float)t / 3.0f, (float)(t * 1e-3f),                \
                (float)(t + 0.1f)));                                                           \
    EACH(printf("star: [%*d] [%-*d] [%.*f] [%*.*f] [%*d]\n", t + 2, t, t + 2, t, t,          \
                3.14159265, 9, t, 2.71828, -4, t));                                            \
    EACH(printf("char/string: %c [%c] %s [%10s] [%-6.3s] [%.2s] %%\n", 'A' + t, ' ' + t,     \
                "hello", "right", "truncate", "ab\0cd"));                                      \
    EACH(printf("pointer: %p %p\n", (void *)(uintptr_t)(0x1000 + t * 16), (void *)0));          \
    EACH(printf("no arguments\n"));                                                            \
    EACH(printf("%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d|%f%f\n", t, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,  \
                11, 12, 13, 14, 15, 0.5, (double)t));
