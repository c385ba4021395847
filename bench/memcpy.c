/* The plain-memcpy baseline for memory://: copy SIZE bytes in BLOCK-sized memcpy calls from one
 * buffer into a freshly allocated destination (as memory:// upload does into its new object), and
 * from a filled source into one BLOCK-sized buffer (as its download does). Prints MiB/s for both.
 * The same memory as storebench's: the block buffer page-aligned (its AlignedBuf), the object from
 * malloc (its Vec); the relative alignment of source and destination changes memcpy's speed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    size_t size = argc > 1 ? strtoull(argv[1], 0, 10) : (1UL << 30);
    size_t block = argc > 2 ? strtoull(argv[2], 0, 10) : (1UL << 20);
    char *src = aligned_alloc(4096, (block + 4095) / 4096 * 4096);
    for (size_t i = 0; i < block; i++) src[i] = (char)(i * 131 + 7);
    double t0 = now();
    char *dst = malloc(size); /* fresh, untouched pages: first-touch faults, as a new object has */
    for (size_t off = 0; off < size; off += block) memcpy(dst + off, src, block);
    double t1 = now();
    char *buf = aligned_alloc(4096, (block + 4095) / 4096 * 4096);
    volatile char sink = 0;
    double t2 = now();
    for (size_t off = 0; off < size; off += block) { memcpy(buf, dst + off, block); sink ^= buf[off % block]; }
    double t3 = now();
    printf("{\"write_mib_s\": %.1f, \"read_mib_s\": %.1f}\n", size / 1048576.0 / (t1 - t0), size / 1048576.0 / (t3 - t2));
    (void)sink;
    free(dst); free(src); free(buf);
    return 0;
}
